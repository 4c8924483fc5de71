#include "commands.hpp"

namespace hcube::cli {

void add_commands(CLI::App& app) {
  add_info(app);
  add_demo(app);
  add_cycle(app);
  add_align(app);
  add_route(app);
  add_schedule(app);
  add_aapc(app);
  add_run(app);
  add_multi_aapc(app);
  add_fft(app);
  add_permute(app);
  add_compare(app);
  add_bench(app);
  add_sweep(app);
  add_redistribute(app);
  add_animate(app);
}

}  // namespace hcube::cli
