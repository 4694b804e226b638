// Registration of the `numlab` subcommands. Each subcommand lives in its own
// file in cli/ and adds itself to the CLI11 application here; main.cpp
// calls them all. A command reports bad input by throwing usage_error
// (usage_error.hpp) or lets the trainer's lab::input_error through (any
// std::exception works): main prints one line and exits with code 2.
#pragma once

#include <CLI/CLI.hpp>

namespace numlab::cli {

void add_formats_command(CLI::App& app);
void add_round_command(CLI::App& app);
void add_testfloat_command(CLI::App& app);
void add_certify_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_experiment_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_merge_command(CLI::App& app);

}  // namespace numlab::cli
