// The hcube subcommands; each registers its flags and its callback.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>

namespace hcube::cli {

// Where a command's JSON result goes instead of standard output: hcube
// animate takes the run as data this way.
using ResultSink = std::function<void(const nlohmann::json&)>;

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

// The wisdom this process's plans read (hcube info, hcube bench): its file, whether it is
// used, and its values or why not.
nlohmann::json wisdom_json();

// Every subcommand above, in the order `hcube --help` lists them; with a sink,
// the commands hcube animate draws hand it their JSON result.
void add_commands(CLI::App& app, const ResultSink& sink = {});

}  // namespace hcube::cli
