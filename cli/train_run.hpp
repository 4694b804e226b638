// One training run as `numlab train` does it (epoch lines on stdout, the run
// recorded into config.trace.db when set, SIGINT ending it after the current
// step), shared by `numlab sweep point`, which adds the run's coordinates.
#pragma once

#include <string>
#include <vector>

#include "lab/train_config.hpp"
#include "rundb/records.hpp"

namespace numlab::cli {

/// How a training run ended without throwing.
enum class train_outcome { finished, interrupted, diverged };

/// Trains the validated `config`; when tracing, records it as run `name` with
/// sweep `coordinates`. A divergence is reported on stderr and recorded as
/// status diverged; any other failure is recorded as failed and rethrown.
train_outcome train_and_record(const lab::train_config& config, const std::string& name,
                               std::vector<rundb::coordinate> coordinates);

/// The folders `--config NAME` looks in after ./configs, found from the
/// running program: the installed share folder, then the source tree's
/// configs/ as seen from the build folder.
std::vector<std::filesystem::path> config_dirs();

}  // namespace numlab::cli
