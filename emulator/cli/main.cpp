// hcube: the command-line face of the emulator.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.hpp"
#include "hcube/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"hcube: emulator of a Connection-Machine-2-style SIMD binary n-cube.\n"
               "2^n nodes, each with K = 2^m local words; global address g = node * K + local."};
  app.set_version_flag("--version", std::string("hcube ") + HCUBE_VERSION);
  app.require_subcommand(1);
  hcube::cli::add_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const hcube::Error& e) {
    std::cerr << "hcube: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "hcube: error: out of host memory\n";
    return 1;
  }
  return 0;
}
