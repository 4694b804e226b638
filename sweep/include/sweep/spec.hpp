// A sweep spec: a grid over training-config keys (docs/SWEEPS.md), and its
// expansion into points, each one fully resolved training configuration with
// a stable name derived from its values.
//
//   name: fp16-vs-bf16          # optional; default: the spec file's stem
//   base: mlp_fp32              # optional base config (path relative to the spec, or a configs/ name)
//   set: {epochs: 1}            # optional keys every point shares
//   grid:                       # the swept keys; the first varies slowest
//     precision: [fp16-mixed, bf16]
//     rounding.update: [ne, sr]
//     seed: 1..5                # an inclusive integer range
//   slurm: {time: "00:20:00", cpus_per_task: 1, mem: 2G, max_parallel: 8}
//
// Every key is checked against the trainer's config table (lab::config_keys)
// when the spec is expanded, so a typo fails before anything runs.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <lab/train_config.hpp>
#include <rundb/records.hpp>

namespace sweep {

/// One config key given in a spec, with the line that gave it (for errors).
struct spec_value {
  std::string key{};
  std::string value{};
  std::string where{};  ///< "spec.yml:12"
};

/// One swept key and its values, in the spec's order.
struct axis {
  std::string key{};
  std::vector<std::string> values{};
  std::string where{};
};

/// What each Slurm array task asks for (the spec's `slurm` section).
struct slurm_resources {
  std::string partition{};      ///< empty: the cluster's default partition
  std::string account{};        ///< empty: the user's default account
  std::string time = "01:00:00";  ///< wall-clock limit per point
  std::string memory = "2G";    ///< --mem per point
  int cpus_per_task = 1;
  int max_parallel = 0;         ///< the array's %M throttle; 0: no limit
  std::vector<std::string> options{};  ///< more sbatch options, one #SBATCH line each
};

/// A parsed sweep spec.
struct spec {
  std::filesystem::path file{};  ///< where it was read from
  std::string name{};
  std::string base{};             ///< base config name or path; empty: the trainer's defaults
  std::vector<spec_value> fixed{};  ///< the `set` section
  std::vector<axis> grid{};
  slurm_resources slurm{};
};

/// One point of the grid.
struct point {
  std::size_t index = 0;  ///< position in the grid, the first key varying slowest
  std::string name{};     ///< stable, from the coordinates: "precision=bf16,seed=3"
  std::vector<rundb::coordinate> coordinates{};  ///< in the grid's key order
};

/// Reads and checks the structure of a spec file; throws lab::input_error
/// naming the file and line of the first problem (unknown section, empty or
/// repeated grid key, bad range, value with a tab or line break).
spec read_spec(const std::filesystem::path& file);

/// The grid's points in index order. Throws lab::input_error when two points
/// would get the same name (values that differ only in characters a file name
/// cannot hold).
std::vector<point> expand(const spec& s);

/// The point's full configuration: the base config, then `set`, then the
/// point's coordinates, checked by lab::validate; trace.db is left empty
/// (the runner sets it). `config_dirs` are where configs/ names are looked up
/// after the spec's folder and ./configs, in turn. Throws lab::input_error naming the spec line.
lab::train_config resolve(const spec& s, const point& p, std::span<const std::filesystem::path> config_dirs);

/// The stable name of a grid point: "key=value" pairs joined by ',', every
/// character outside [A-Za-z0-9._+=,-] replaced by '_'.
std::string point_name(const std::vector<rundb::coordinate>& coordinates);

}  // namespace sweep
