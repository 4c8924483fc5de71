// hcube tune: measures this host's settings for the CPU's passes (tiles, prefetch, stores) and
// saves them as wisdom, which every later plan reads (emulator/tune.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/emulator/tune.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/app/ranks.hpp"

namespace hcube::cli {


void add_tune(CLI::App& app) {
  struct Flags {
    bool quick = false, json = false;
    std::string output;
    long long log2_bytes = -1;
    double budget = 60;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "tune", "measure this host's tile sizes, prefetch distances, alignment regions and streaming stores for the "
              "CPU's passes and save them as wisdom that plans read (docs/performance.md)");
  cmd->add_flag("--quick", f->quick, "fewer candidates, one timed run each, at most 2^26 bytes (a few seconds)");
  output_flag(cmd->add_option("-o,--output", f->output,
                              "the wisdom file (default $HCUBE_WISDOM, else $XDG_CACHE_HOME/hcube/wisdom.json)"));
  cmd->add_option("--log2-bytes", f->log2_bytes, "the data measured, 2^B bytes (default: beyond 4 x the L3)");
  cmd->add_option("--budget", f->budget, "seconds of measuring at most; keys not reached keep their defaults")
      ->capture_default_str();
  cmd->add_flag("--json", f->json, "print one JSON object instead of prose");
  cmd->callback([f] {
    const std::string path = f->output.empty() ? wisdom_path() : f->output;
    if (f->output.empty()) {  // the cache's directory is made where missing; an --output's must exist
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    }
    check_output(path, f->output.empty() ? "the wisdom file" : "--output");
    const TuneResult r = run_tune(TuneRequest{f->quick, f->log2_bytes, f->budget},
                                  [&](std::size_t i, std::size_t total, const std::string& what) {
                                    if (!f->json && !what.empty()) fmt::print(stderr, "tune: {}/{} {}\n", i + 1, total, what);
                                  });
    write_wisdom(r.wisdom, path);
    if (f->json) {
      nlohmann::json j = to_json(r);
      j["command"] = "tune";
      j["wisdom_path"] = path;
      std::cout << j.dump(2) << "\n";
      return;
    }
    fmt::print("{}", describe(r));
    fmt::print("wisdom: {}\n", path);
  });
}

}  // namespace hcube::cli
