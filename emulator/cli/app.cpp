#include "commands.hpp"
#include "common.hpp"

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
}

}  // namespace hcube::cli
