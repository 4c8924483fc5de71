// hcube: the command-line face of the emulator.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/output_file.hpp"

int main(int argc, char** argv) {
  CLI::App app{"hcube: emulator of a Connection-Machine-2-style SIMD binary n-cube.\n"
               "2^n nodes, each with K = 2^m local words; global address g = node * K + local."};
  app.set_version_flag("--version", std::string("hcube ") + HCUBE_VERSION);
  app.require_subcommand(1);
  hcube::cli::add_commands(app);
  // An interrupted write leaves no temporary beside the user's file.
  hcube::remove_temporaries_on_signals();
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --help-all, --version: printed as CLI11 does, exit 0
  } catch (const CLI::ParseError& e) {
    // One line like every other error, with the nearest spelling of a misspelt command or flag.
    std::cerr << "hcube: error: "
              << hcube::cli::parse_error_text(app, e, std::vector<std::string>(argv + 1, argv + argc)) << "\n";
    return e.get_exit_code() != 0 ? e.get_exit_code() : 1;
  } catch (const hcube::Error& e) {
    std::cerr << "hcube: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "hcube: error: out of host memory\n";
    return 1;
  } catch (const std::exception& e) {
    // Anything the library let through (a stream or filesystem failure) still ends in one line.
    std::string text = e.what();
    for (char& c : text)
      if (c == '\n') c = ' ';
    std::cerr << "hcube: error: " << text << "\n";
    return 1;
  } catch (...) {
    std::cerr << "hcube: error: unexpected failure (unknown exception)\n";
    return 1;
  }
  return 0;
}
