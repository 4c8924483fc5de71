// The hcube subcommands; each registers its flags and its callback.
#pragma once

#include <CLI/CLI.hpp>

#include "hcube/app/run.hpp"

namespace hcube::cli {

using app::ResultSink;

void add_info(CLI::App& app);
void add_demo(CLI::App& app);
void add_cycle(CLI::App& app);
void add_align(CLI::App& app);
void add_route(CLI::App& app);
void add_schedule(CLI::App& app);
void add_aapc(CLI::App& app, const ResultSink& sink = {});
void add_run(CLI::App& app);
void add_multi_aapc(CLI::App& app, const ResultSink& sink = {});
void add_fft(CLI::App& app);
void add_permute(CLI::App& app, const ResultSink& sink = {});
void add_compare(CLI::App& app);
void add_bench(CLI::App& app);
void add_sweep(CLI::App& app);
void add_tune(CLI::App& app);
void add_synthesize(CLI::App& app);
void add_redistribute(CLI::App& app, const ResultSink& sink = {});
void add_scatter(CLI::App& app, const ResultSink& sink = {});
void add_animate(CLI::App& app);

// Every subcommand above, in the order `hcube --help` lists them; with a sink,
// the commands hcube animate draws hand it their JSON result.
void add_commands(CLI::App& app, const ResultSink& sink = {});

}  // namespace hcube::cli
