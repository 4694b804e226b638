// `numlab`: the command-line entry point, with git-style subcommands.
#include <cstdio>
#include <exception>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"numlab: low-precision arithmetic for deep learning, emulated bit for bit"};
  app.require_subcommand(1);
  numlab::cli::add_formats_command(app);
  numlab::cli::add_round_command(app);
  numlab::cli::add_testfloat_command(app);
  numlab::cli::add_certify_command(app);
  numlab::cli::add_inspect_command(app);
  numlab::cli::add_train_command(app);
  numlab::cli::add_experiment_command(app);
  numlab::cli::add_sweep_command(app);
  numlab::cli::add_merge_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "numlab: %s\n", e.what());
    return 2;
  }
  return 0;
}
