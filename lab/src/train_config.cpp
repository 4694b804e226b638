#include "lab/train_config.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <charconv>
#include <cmath>
#include <functional>
#include <sstream>

#include "config_values.hpp"
#include "lab/errors.hpp"

namespace lab {
namespace {

using setter = std::function<void(train_config&, const std::string& value, const std::string& where)>;
using getter = std::function<std::string(const train_config&)>;

struct key_entry {
  config_key key;
  setter set;
  getter get;
};

// v with the fewest significant digits that read back as v, in printf's %g
// style (0.0001, 1e-08), so a printed configuration loads back to the same
// doubles and values typed with few digits print as typed.
std::string fmt(double v) {
  std::array<char, 32> text{};
  for (int digits = 1;; ++digits) {
    const auto printed = std::to_chars(text.data(), text.data() + text.size(), v, std::chars_format::general, digits);
    double back = 0.0;
    std::from_chars(text.data(), printed.ptr, back);
    if (back == v || digits == 17) return {text.data(), printed.ptr};
  }
}

template <typename Field>
key_entry count_key(const char* name, const char* help, Field field) {
  return {{name, help},
          [=](train_config& c, const std::string& v, const std::string& w) { c.*field = parse_count(w, name, v); },
          [=](const train_config& c) { return std::to_string(c.*field); }};
}

key_entry real_key(const char* name, const char* help, double train_config::*field) {
  return {{name, help},
          [=](train_config& c, const std::string& v, const std::string& w) { c.*field = parse_number(w, name, v); },
          [=](const train_config& c) { return fmt(c.*field); }};
}

key_entry bool_key(const char* name, const char* help, bool train_config::*field) {
  return {{name, help},
          [=](train_config& c, const std::string& v, const std::string& w) { c.*field = parse_bool(w, name, v); },
          [=](const train_config& c) { return std::string(c.*field ? "true" : "false"); }};
}

key_entry choice_key(const char* name, const char* help, std::string train_config::*field,
                     std::initializer_list<const char*> choices) {
  const std::vector<const char*> kept(choices);
  return {{name, help},
          [=](train_config& c, const std::string& v, const std::string& w) {
            std::string list;
            for (const char* k : kept) {
              if (v == k) {
                c.*field = v;
                return;
              }
              list += list.empty() ? "" : ", ";
              list += k;
            }
            bad_value(w, name, v, "one of: " + list);
          },
          [=](const train_config& c) { return c.*field; }};
}

key_entry text_key(const char* name, const char* help, std::string train_config::*field) {
  return {{name, help}, [=](train_config& c, const std::string& v, const std::string&) { c.*field = v; },
          [=](const train_config& c) { return c.*field; }};
}

const std::vector<key_entry>& entries() {
  static const std::vector<key_entry> table = {
      choice_key("model", "mlp | tutorial_conv | lenet5 | resnet", &train_config::model,
                 {"mlp", "tutorial_conv", "lenet5", "resnet"}),
      count_key("depth", "resnet depth, 6N+2", &train_config::depth),
      {{"hidden", "mlp hidden widths, comma separated"},
       [](train_config& c, const std::string& v, const std::string& w) {
         c.hidden.clear();
         std::stringstream in(v);
         std::string item;
         while (std::getline(in, item, ',')) {
           const auto first = item.find_first_not_of(" []");
           const auto last = item.find_last_not_of(" []");
           if (first == std::string::npos) continue;
           const std::size_t width = parse_count(w, "hidden", item.substr(first, last - first + 1));
           if (width == 0) bad_value(w, "hidden", v, "a list of positive widths");
           c.hidden.push_back(width);
         }
       },
       [](const train_config& c) {
         std::string s;
         for (auto h : c.hidden) {
           if (!s.empty()) s += ',';
           s += std::to_string(h);
         }
         return s;
       }},
      real_key("dropout", "mlp dropout probability", &train_config::dropout),
      choice_key("norm_statistics",
                 "resnet batch norm's training statistics: exact (two passes in double) | one_pass (E[x^2] - "
                 "E[x]^2, squares in the norm's format, sums fp32) | stable (mean subtracted first)",
                 &train_config::norm_statistics, {"exact", "one_pass", "stable"}),
      choice_key("dataset", "fashion_mnist | cifar10 | synthetic", &train_config::dataset,
                 {"fashion_mnist", "cifar10", "synthetic"}),
      text_key("data_dir", "folder of the data set files", &train_config::data_dir),
      bool_key("normalize", "standardise each channel with training-set statistics", &train_config::normalize),
      count_key("train_limit", "use only the first N training samples (0: all)", &train_config::train_limit),
      count_key("test_limit", "use only the first N test samples (0: all)", &train_config::test_limit),
      count_key("augment_crop", "random-crop padding in pixels (0: off)", &train_config::augment_crop),
      bool_key("augment_flip", "random horizontal flips", &train_config::augment_flip),
      bool_key("drop_last", "drop the last partial batch of each epoch", &train_config::drop_last),
      count_key("batch_size", "training batch size", &train_config::batch_size),
      count_key("eval_batch_size", "evaluation batch size", &train_config::eval_batch_size),
      count_key("epochs", "number of epochs", &train_config::epochs),
      count_key("seed", "random seed (initialisation, shuffling, dropout, augmentation)", &train_config::seed),
      count_key("max_steps", "stop after this many updates (0: no limit)", &train_config::max_steps),
      count_key("accumulate", "micro-batches per optimizer update", &train_config::accumulate),
      choice_key("loss", "cross_entropy | mse", &train_config::loss, {"cross_entropy", "mse"}),
      real_key("label_smoothing", "label smoothing for cross-entropy", &train_config::label_smoothing),
      choice_key("optimizer", "sgd | adam | adamw", &train_config::optimizer, {"sgd", "adam", "adamw"}),
      real_key("lr", "base learning rate", &train_config::lr),
      real_key("momentum", "sgd momentum", &train_config::momentum),
      bool_key("nesterov", "sgd Nesterov momentum", &train_config::nesterov),
      real_key("beta1", "adam beta1", &train_config::beta1),
      real_key("beta2", "adam beta2", &train_config::beta2),
      real_key("eps", "adam epsilon", &train_config::eps),
      real_key("weight_decay", "L2 (sgd, adam) or decoupled (adamw) weight decay", &train_config::weight_decay),
      real_key("clip_norm", "clip gradients to this global norm (0: off)", &train_config::clip_norm),
      choice_key("schedule", "const | step | cosine", &train_config::schedule, {"const", "step", "cosine"}),
      count_key("warmup_steps", "linear warm-up updates", &train_config::warmup_steps),
      count_key("step_epochs", "step schedule: decay every N epochs", &train_config::step_epochs),
      real_key("gamma", "step schedule: decay factor", &train_config::gamma),
      real_key("min_lr", "cosine schedule: final learning rate", &train_config::min_lr),
      count_key("threads", "BLAS threads", &train_config::threads),
      text_key("checkpoint", "write a checkpoint here after every epoch", &train_config::checkpoint),
      text_key("resume", "continue from this checkpoint", &train_config::resume),
  };
  return table;
}

const key_entry* find_entry(const std::string& key) {
  for (const auto& e : entries())
    if (e.key.name == key) return &e;
  return nullptr;
}

}  // namespace

const std::vector<config_key>& config_keys() {
  static const std::vector<config_key> keys = [] {
    std::vector<config_key> out;
    for (const auto& e : entries()) out.push_back(e.key);
    for (auto& [name, help] : precision_config_keys()) out.push_back({name, help});
    for (auto& [name, help] : trace_config_keys()) out.push_back({name, help});
    return out;
  }();
  return keys;
}

void set_config_value(train_config& config, const std::string& key, const std::string& value,
                      const std::string& where) {
  if (is_precision_key(key)) {
    set_precision_value(config.precision, key, value, where);
    return;
  }
  if (is_trace_key(key)) {
    set_trace_value(config.trace, key, value, where);
    return;
  }
  const key_entry* e = find_entry(key);
  if (e == nullptr) throw input_error(where + ": unknown config key '" + key + "'");
  e->set(config, value, where);
}

void apply_config_file(train_config& config, const std::filesystem::path& file) {
  const std::string name = file.string();
  if (!std::filesystem::exists(file)) throw input_error(name + ": config file not found");
  YAML::Node root;
  try {
    root = YAML::LoadFile(name);
  } catch (const YAML::Exception& e) {
    throw input_error(name + ":" + std::to_string(e.mark.line + 1) + ": malformed YAML (" + e.msg + ")");
  }
  if (root.IsNull()) return;
  if (!root.IsMap()) throw input_error(name + ": expected a mapping of config keys to values");
  for (const auto& item : root) {
    const std::string where = name + ":" + std::to_string(item.first.Mark().line + 1);
    const auto key = item.first.as<std::string>();
    std::string value;
    if (item.second.IsSequence()) {
      for (const auto& v : item.second) {
        if (!value.empty()) value += ',';
        value += v.as<std::string>();
      }
    } else if (item.second.IsScalar()) {
      value = item.second.as<std::string>();
    } else if (item.second.IsNull()) {
      value = "";
    } else {
      throw input_error(where + ": key '" + key + "' must be a scalar or a list");
    }
    set_config_value(config, key, value, where);
  }
}

std::filesystem::path resolve_config(const std::string& name_or_path,
                                     std::span<const std::filesystem::path> config_dirs) {
  const std::filesystem::path direct(name_or_path);
  if (std::filesystem::is_regular_file(direct)) return direct;
  const std::string file = name_or_path + ".yml";
  const auto local = std::filesystem::path("configs") / file;
  if (std::filesystem::is_regular_file(local)) return local;
  std::string looked = name_or_path + ", " + local.string();
  for (const auto& dir : config_dirs) {
    if (dir.empty()) continue;
    const auto candidate = dir / file;
    if (std::filesystem::is_regular_file(candidate)) return candidate;
    looked += ", " + candidate.string();
  }
  throw input_error("config '" + name_or_path + "' not found (looked for " + looked + ")");
}

void validate(const train_config& c) {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw input_error("config: " + what);
  };
  need(c.batch_size > 0, "batch_size must be positive");
  need(c.eval_batch_size > 0, "eval_batch_size must be positive");
  need(c.epochs > 0, "epochs must be positive");
  need(c.accumulate > 0, "accumulate must be positive");
  need(c.lr > 0.0, "lr must be positive");
  need(c.beta1 >= 0.0 && c.beta1 < 1.0, "beta1 must be in [0, 1)");
  need(c.beta2 >= 0.0 && c.beta2 < 1.0, "beta2 must be in [0, 1)");
  need(c.eps > 0.0, "eps must be positive");
  need(c.momentum >= 0.0, "momentum must be non-negative");
  need(!c.nesterov || c.momentum > 0.0, "nesterov needs momentum > 0");
  // The loss and dropout compute with these in fp32: checked as they will be used.
  const auto label_smoothing = static_cast<float>(c.label_smoothing);
  const auto dropout = static_cast<float>(c.dropout);
  need(label_smoothing >= 0.0f && label_smoothing < 1.0f, "label_smoothing must be in [0, 1)");
  need(dropout >= 0.0f && dropout < 1.0f, "dropout must be in [0, 1)");
  need(c.weight_decay >= 0.0, "weight_decay must be non-negative");
  need(c.clip_norm >= 0.0, "clip_norm must be non-negative");
  need(c.step_epochs > 0, "step_epochs must be positive");
  need(!c.hidden.empty() || c.model != "mlp", "mlp needs at least one hidden width");
}

std::string to_yaml(const train_config& config) {
  std::string out;
  for (const auto& e : entries()) out += e.key.name + ": " + e.get(config) + "\n";
  out += precision_yaml(config.precision);
  out += trace_yaml(config.trace);
  return out;
}

}  // namespace lab
