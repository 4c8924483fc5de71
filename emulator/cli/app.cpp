#include <map>
#include <string>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/app/ranks.hpp"

namespace hcube::cli {

void add_commands(CLI::App& app, const ResultSink& sink) {
  add_info(app);
  add_demo(app);
  add_cycle(app);
  add_align(app);
  add_route(app);
  add_schedule(app);
  add_aapc(app, sink);
  add_run(app);
  add_multi_aapc(app, sink);
  add_fft(app);
  add_permute(app, sink);
  add_compare(app);
  add_bench(app);
  add_sweep(app);
  add_tune(app);
  add_synthesize(app);
  add_redistribute(app, sink);
  add_scatter(app, sink);
  add_animate(app);
  check_numbers(app);
  // Under mpirun on more than one rank, the commands that move no data across
  // a cube say so, and why, before they parse (docs/distributed.md).
  const std::map<std::string, std::string> one_process = {
      {"schedule", "builds and prints a schedule, holding no cube to spread over ranks"},
      {"compare", "times every algorithm on one machine (hcube permute --algorithm A runs each across ranks)"},
      {"sweep", "measures AAPCs of many sizes on one machine (hcube bench --op aapc measures one across ranks)"},
      {"demo", "walks through one small machine"},
      {"animate", "draws one machine's states"},
      {"scatter", "runs the lecture notes' all-to-all scatter on one grid or cube machine"},
      {"tune", "measures one process's caches"},
      {"synthesize", "solves on one process and writes one schedule file"}};
  for (CLI::App* cmd : app.get_subcommands([](const CLI::App*) { return true; })) {
    const auto it = one_process.find(cmd->get_name());
    if (it == one_process.end()) continue;
    cmd->preparse_callback([name = it->first, why = it->second](std::size_t) { refuse_if_distributed(name, why); });
  }
}

}  // namespace hcube::cli
