// The trainer's configuration: typed fields, their YAML / command-line keys,
// and loading from configs/*.yml with overrides. Keys are snake_case in YAML
// (batch_size) and kebab-case on the command line (--batch-size). Unknown
// keys and unparsable values are input_errors naming the key and the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "lab/precision_policy.hpp"
#include "lab/trace_config.hpp"

namespace lab {

/// Everything a training run needs. Real-valued keys are held as doubles,
/// exactly the number the decimal that was written denotes (rounded to
/// nearest once), as Python holds torch's hyper-parameters; each is
/// converted to a tensor's format only where the op combines it with the
/// tensor (op_context::scalar), so to_yaml prints it back to the same double.
struct train_config {
  // model
  std::string model = "tutorial_conv";   ///< mlp | tutorial_conv | lenet5 | resnet
  std::size_t depth = 8;                 ///< resnet depth 6N+2
  std::vector<std::size_t> hidden = {256};  ///< mlp hidden widths
  double dropout = 0.0;                  ///< mlp dropout probability
  std::string norm_statistics = "exact";  ///< resnet batch norm's training statistics: exact | one_pass | stable
  // data
  std::string dataset = "fashion_mnist";  ///< fashion_mnist | cifar10 | synthetic
  std::string data_dir;                   ///< empty: the data set's default folder
  bool normalize = false;                 ///< standardise per channel with train-set statistics
  std::size_t train_limit = 0;            ///< use only the first N training samples (0: all)
  std::size_t test_limit = 0;             ///< use only the first N test samples (0: all)
  std::size_t augment_crop = 0;           ///< random-crop padding in pixels (0: off)
  bool augment_flip = false;              ///< random horizontal flips
  bool drop_last = false;                 ///< drop the last partial batch of an epoch
  // training
  std::size_t batch_size = 32;
  std::size_t eval_batch_size = 500;
  std::size_t epochs = 1;
  std::uint64_t seed = 1;
  std::size_t max_steps = 0;    ///< stop after this many updates (0: no limit)
  std::size_t accumulate = 1;   ///< micro-batches per update (gradient accumulation)
  std::string loss = "cross_entropy";  ///< cross_entropy | mse (one-hot targets)
  double label_smoothing = 0.0;
  // optimizer
  std::string optimizer = "adam";  ///< sgd | adam | adamw
  double lr = 0.001;
  double momentum = 0.0;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0.0;
  double clip_norm = 0.0;           ///< clip gradients to this global norm (0: off)
  std::string schedule = "const";   ///< const | step | cosine
  std::size_t warmup_steps = 0;
  std::size_t step_epochs = 1;      ///< step schedule: decay every this many epochs
  double gamma = 0.1;               ///< step schedule: decay factor
  double min_lr = 0.0;              ///< cosine schedule: final learning rate
  // run
  std::size_t threads = 2;          ///< BLAS threads
  std::string checkpoint;           ///< write a checkpoint here after every epoch
  std::string resume;               ///< continue from this checkpoint
  // precision (keys: see precision_policy.hpp, precision_config_keys())
  precision_config precision;
  // tracing into a run database (keys: see trace_config.hpp)
  trace_config trace;
};

/// One configurable key: its name and a one-line description.
struct config_key {
  std::string name;
  std::string help;
};

/// All keys, in documentation order.
const std::vector<config_key>& config_keys();

/// Sets `key` (snake_case) from its text form; `where` names the source for
/// messages ("configs/x.yml:3" or "--lr"). Throws input_error for an
/// unknown key or a value that does not parse or is out of range.
void set_config_value(train_config& config, const std::string& key, const std::string& value,
                      const std::string& where);

/// Applies every key of a YAML mapping file to `config`.
void apply_config_file(train_config& config, const std::filesystem::path& file);

/// Resolves a config argument: an existing file path, or a name looked up as
/// configs/<name>.yml in the working directory and then as <name>.yml in each
/// of `config_dirs` in turn. Throws input_error listing every place looked at.
std::filesystem::path resolve_config(const std::string& name_or_path,
                                     std::span<const std::filesystem::path> config_dirs);

/// Checks cross-key consistency (e.g. epochs > 0); throws input_error.
void validate(const train_config& config);

/// The configuration as YAML text (for logs and checkpoint fingerprints).
std::string to_yaml(const train_config& config);

}  // namespace lab
