#include "commands.hpp"
#include "common.hpp"
#include "ranks.hpp"

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
  add_redistribute(app, sink);
  add_animate(app);
  check_numbers(app);
  // Under mpirun on more than one rank, the commands that do not run across
  // ranks yet say so before they parse (docs/distributed.md).
  for (CLI::App* cmd : app.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string name = cmd->get_name();
    if (name == "info" || name == "aapc" || name == "run" || name == "cycle" || name == "permute" || name == "bench" ||
        name == "align" || name == "multi-aapc" || name == "route" ||
        name == "redistribute" || name == "fft")
      continue;
    cmd->preparse_callback([name](std::size_t) { refuse_if_distributed(name); });
  }
}

}  // namespace hcube::cli
