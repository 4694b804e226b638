#include "lab/precision_policy.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "lab/errors.hpp"

namespace lab {
namespace {

constexpr std::array<std::string_view, op_class_count> class_names = {"matmul", "conv",        "norm",
                                                                       "loss",   "elementwise", "optimizer"};
constexpr std::array<std::string_view, 7> role_names = {"activation",    "grad_input", "grad_weight",
                                                         "weight",        "master_weight", "update",
                                                         "optimizer_state"};

[[noreturn]] void bad(const std::string& where, const std::string& key, const std::string& value,
                      const std::string& expected) {
  throw input_error(where + ": key '" + key + "': '" + value + "' is not " + expected);
}

double to_number(const std::string& where, const std::string& key, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(v)) bad(where, key, value, "a number");
  return v;
}

std::size_t to_count(const std::string& where, const std::string& key, const std::string& value) {
  std::size_t v = 0;
  const auto* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (ec != std::errc() || ptr != end) bad(where, key, value, "a non-negative integer");
  return v;
}

bool to_bool(const std::string& where, const std::string& key, const std::string& value) {
  if (value == "true" || value == "yes" || value == "on" || value == "1") return true;
  if (value == "false" || value == "no" || value == "off" || value == "0") return false;
  bad(where, key, value, "true or false");
}

num::format to_format(const std::string& where, const std::string& key, const std::string& value) {
  try {
    return num::parse_format(value);
  } catch (const std::invalid_argument&) {
    bad(where, key, value, "a format (fp16, bf16, e5m2, e4m3, tf32, fp32, eXmY, p=..,emin=..,emax=..)");
  }
}

num::rounding to_rounding(const std::string& where, const std::string& key, const std::string& value) {
  try {
    return num::parse_rounding(value);
  } catch (const std::invalid_argument&) {
    bad(where, key, value, "a rounding mode (ne, na, rz, ru, rd, ro, sr or their long names)");
  }
}

std::optional<std::size_t> role_index(std::string_view name) {
  for (std::size_t i = 0; i < role_names.size(); ++i)
    if (role_names[i] == name) return i;
  return std::nullopt;
}

std::optional<std::size_t> class_index(std::string_view name) {
  for (std::size_t i = 0; i < class_names.size(); ++i)
    if (class_names[i] == name) return i;
  return std::nullopt;
}

class_precision to_class_precision(const std::string& where, const std::string& key, const std::string& value) {
  if (value == "fp32") return class_precision::fp32;
  if (value == "low" || value == "half") return class_precision::low;
  if (value == "follow") return class_precision::follow;
  bad(where, key, value, "fp32, low or follow");
}

num::flags to_traps(const std::string& where, const std::string& key, const std::string& value) {
  if (value == "none" || value.empty()) return num::flags::none;
  if (value == "all") return num::flags::overflow | num::flags::divide_by_zero | num::flags::invalid;
  num::flags out = num::flags::none;
  std::stringstream in(value);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" []"));
    item.erase(item.find_last_not_of(" []") + 1);
    if (item == "overflow" || item == "oflo")
      out |= num::flags::overflow;
    else if (item == "divide_by_zero" || item == "div0")
      out |= num::flags::divide_by_zero;
    else if (item == "invalid" || item == "inv")
      out |= num::flags::invalid;
    else
      bad(where, key, value, "none, all, or a list of overflow, divide_by_zero, invalid");
  }
  return out;
}

// Ranks keys so general ones apply before the per-role, per-class and
// per-layer ones that refine them.
int specificity(const std::string& key) { return key.find('.') == std::string::npos ? 0 : 1; }

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

void apply(precision_policy& p, const std::string& key, const std::string& value, const std::string& where) {
  if (key == "precision_format") {
    p.low = to_format(where, key, value);
  } else if (key == "master_weights") {
    p.master_weights = to_bool(where, key, value);
  } else if (key == "partials") {
    if (value == "fp32")
      p.partials = accumulation::fp32;
    else if (value == "low" || value == "half")
      p.partials = accumulation::low;
    else
      bad(where, key, value, "fp32 or low");
  } else if (key == "partials_block") {
    p.partials_block = to_count(where, key, value);
  } else if (key == "rounding") {
    const auto mode = to_rounding(where, key, value);
    for (auto& s : p.rounding) s.mode = mode;
  } else if (key == "rounding_bits") {
    const std::size_t r = to_count(where, key, value);
    if (r < 1 || r > 32) bad(where, key, value, "an integer in [1, 32]");
    for (auto& s : p.rounding) s.random_bits = static_cast<int>(r);
  } else if (starts_with(key, "rounding.")) {
    const auto role = role_index(std::string_view(key).substr(9));
    if (!role) throw input_error(where + ": unknown config key '" + key + "' (roles: activation, grad_input, "
                                 "grad_weight, weight, master_weight, update, optimizer_state)");
    p.rounding[*role].mode = to_rounding(where, key, value);
  } else if (key == "overflow") {
    num::overflow_mode mode{};
    if (value == "ieee")
      mode = num::overflow_mode::ieee;
    else if (value == "saturate")
      mode = num::overflow_mode::saturate;
    else if (value == "nan")
      mode = num::overflow_mode::nan;
    else
      bad(where, key, value, "ieee, saturate or nan");
    for (auto& s : p.rounding) s.overflow = mode;
  } else if (key == "traps") {
    p.traps = to_traps(where, key, value);
  } else if (starts_with(key, "autocast.")) {
    const auto c = class_index(std::string_view(key).substr(9));
    if (!c) throw input_error(where + ": unknown config key '" + key +
                              "' (classes: matmul, conv, norm, loss, elementwise, optimizer)");
    p.classes[*c] = to_class_precision(where, key, value);
  } else if (starts_with(key, "layers.") && key.size() > 17 && key.ends_with(".precision")) {
    const std::string layer = key.substr(7, key.size() - 7 - 10);
    if (value == "fp32")
      p.layers[layer] = std::nullopt;
    else if (value == "low")
      p.layers[layer] = p.low;
    else
      p.layers[layer] = to_format(where, key, value);
  } else if (key == "loss_scaling") {
    const double keep_scale = p.scaling.scale;
    p.scaling = loss_scaling{};
    if (value == "none") {
      p.scaling.mode = loss_scaling::kind::none;
    } else if (value == "static") {
      p.scaling.mode = loss_scaling::kind::fixed;
      p.scaling.scale = keep_scale;
    } else if (value == "dynamic") {  // torch.cuda.amp.GradScaler defaults
      p.scaling.mode = loss_scaling::kind::dynamic;
      p.scaling.scale = 65536.0;
    } else if (value == "mindspore") {
      // DynamicLossScaleManager's defaults, the same from r1.5 to r2.x
      // (init_loss_scale=2**24, scale_factor=2, scale_window=2000:
      // mindspore.cn/docs/en/r1.7/api_python/mindspore/mindspore.DynamicLossScaleManager.html).
      p.scaling.mode = loss_scaling::kind::dynamic;
      p.scaling.scale = 16777216.0;
      p.scaling.growth_interval = 2000;
      p.scaling.min_scale = 1.0;
      p.scaling.mindspore_window = true;
    } else {
      bad(where, key, value, "none, static, dynamic or mindspore");
    }
  } else if (key == "loss_scale") {
    const double v = to_number(where, key, value);
    if (!(v > 0.0)) bad(where, key, value, "a positive number");
    p.scaling.scale = v;
  } else if (key == "loss_scale_growth") {
    const double v = to_number(where, key, value);
    if (!(v > 1.0)) bad(where, key, value, "a number above 1");
    p.scaling.growth_factor = v;
  } else if (key == "loss_scale_backoff") {
    const double v = to_number(where, key, value);
    if (!(v > 0.0 && v < 1.0)) bad(where, key, value, "a number in (0, 1)");
    p.scaling.backoff_factor = v;
  } else if (key == "loss_scale_interval") {
    const std::size_t v = to_count(where, key, value);
    if (v == 0) bad(where, key, value, "a positive integer");
    p.scaling.growth_interval = v;
  } else if (key == "loss_scale_min") {
    const double v = to_number(where, key, value);
    if (v < 0.0) bad(where, key, value, "a non-negative number");
    p.scaling.min_scale = v;
  } else if (key == "loss_scale_method") {
    if (value == "unscale")
      p.scaling.divide_lr = false;
    else if (value == "divide_lr")
      p.scaling.divide_lr = true;
    else
      bad(where, key, value, "unscale or divide_lr");
  } else if (key == "shadow") {
    p.shadow = to_bool(where, key, value);
  } else if (key == "precision_seed") {
    p.seed = to_count(where, key, value);
  } else {
    throw input_error(where + ": unknown config key '" + key + "'");
  }
}

precision_policy uniform(std::string name, num::format low, class_precision all, bool master) {
  precision_policy p;
  p.name = std::move(name);
  p.low = low;
  p.master_weights = master;
  p.classes.fill(all);
  return p;
}

}  // namespace

op_class class_of(std::string_view op) {
  if (op == "dense") return op_class::matmul;
  if (op == "conv2d") return op_class::conv;
  if (op == "batch_norm") return op_class::norm;
  if (op == "softmax_cross_entropy" || op == "mse") return op_class::loss;
  if (op == "adam" || op == "sgd" || op == "optimizer") return op_class::optimizer;
  return op_class::elementwise;
}

std::string_view op_class_name(op_class c) { return class_names[static_cast<std::size_t>(c)]; }

bool precision_policy::is_fp32() const {
  for (auto c : classes)
    if (c == class_precision::low) return false;
  for (const auto& [name, f] : layers)
    if (f) return false;
  return true;
}

precision_policy precision_preset(std::string_view name) {
  if (name == "fp32" || name == "32.32") return uniform(std::string(name), num::binary16, class_precision::fp32, true);
  if (name == "fp16" || name == "16.16") return uniform(std::string(name), num::binary16, class_precision::low, false);
  if (name == "bf16") return uniform(std::string(name), num::bfloat16_format, class_precision::low, false);
  if (name == "fp16-mixed" || name == "16.32" || name == "bf16-mixed") {
    auto p = uniform(std::string(name), name == "bf16-mixed" ? num::bfloat16_format : num::binary16,
                     class_precision::fp32, true);
    p.classes[static_cast<std::size_t>(op_class::matmul)] = class_precision::low;
    p.classes[static_cast<std::size_t>(op_class::conv)] = class_precision::low;
    p.classes[static_cast<std::size_t>(op_class::elementwise)] = class_precision::follow;
    return p;
  }
  throw input_error("unknown precision '" + std::string(name) +
                    "' (known: fp32, fp16, bf16, fp16-mixed, bf16-mixed, 32.32, 16.16, 16.32)");
}

precision_policy precision_config::resolve() const {
  precision_policy p = precision_preset(preset);
  auto ordered = refinements;
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return specificity(a.first) < specificity(b.first); });
  for (const auto& [key, value] : ordered) apply(p, key, value, "config");
  return p;
}

bool is_precision_key(std::string_view key) {
  static constexpr std::string_view exact[] = {
      "precision",          "precision_format",  "master_weights",      "partials",      "partials_block",
      "rounding",           "rounding_bits",     "overflow",            "traps",         "loss_scaling",
      "loss_scale",         "loss_scale_growth", "loss_scale_backoff",  "loss_scale_interval",
      "loss_scale_min",     "loss_scale_method", "shadow",              "precision_seed"};
  for (auto k : exact)
    if (key == k) return true;
  return starts_with(key, "rounding.") || starts_with(key, "autocast.") ||
         (starts_with(key, "layers.") && key.ends_with(".precision"));
}

void set_precision_value(precision_config& config, const std::string& key, const std::string& value,
                         const std::string& where) {
  if (key == "precision") {
    try {
      (void)precision_preset(value);
    } catch (const input_error&) {
      bad(where, key, value, "a precision preset (fp32, fp16, bf16, fp16-mixed, bf16-mixed, 32.32, 16.16, 16.32)");
    }
    config.preset = value;
    return;
  }
  // Checked now against a scratch policy, so the message names the source.
  precision_policy scratch = precision_preset(config.preset);
  apply(scratch, key, value, where);
  config.refinements.emplace_back(key, value);
}

std::vector<std::pair<std::string, std::string>> precision_config_keys() {
  std::vector<std::pair<std::string, std::string>> keys = {
      {"precision", "fp32 | fp16 | bf16 (pure, 16.16) | fp16-mixed | bf16-mixed (fp32 master weights, 16.32)"},
      {"precision_format", "the low-precision format (fp16, bf16, e5m2, e4m3, ...)"},
      {"master_weights", "keep fp32 master weights (true for *-mixed)"},
      {"partials", "matmul/conv accumulation: fp32 | low (round after every addition)"},
      {"partials_block", "low partials: 0 sequential, N chunk-based accumulation in blocks of N"},
      {"rounding", "rounding mode of every tensor role: ne | na | rz | ru | rd | ro | sr"},
      {"rounding_bits", "random bits r of stochastic rounding (1..32)"},
      {"overflow", "ieee | saturate | nan"},
      {"traps", "none | all | list of overflow, divide_by_zero, invalid: stop the run on the first one"},
      {"loss_scaling", "none | static | dynamic (GradScaler) | mindspore (DynamicLossScaleManager)"},
      {"loss_scale", "static factor, or the initial dynamic scale"},
      {"loss_scale_growth", "dynamic: growth factor"},
      {"loss_scale_backoff", "dynamic: backoff factor"},
      {"loss_scale_interval", "dynamic: clean updates before growing"},
      {"loss_scale_min", "dynamic: lower bound of the scale"},
      {"loss_scale_method", "static: unscale (gradients) | divide_lr (learning rate, linear optimizers)"},
      {"shadow", "run an fp32 shadow model and report per-layer relative errors"},
      {"precision_seed", "seed of the stochastic-rounding streams (0: the run's seed)"},
  };
  for (auto r : role_names)
    keys.emplace_back("rounding." + std::string(r), "rounding mode of role " + std::string(r));
  for (auto c : class_names)
    keys.emplace_back("autocast." + std::string(c), "fp32 | low | follow for op class " + std::string(c));
  return keys;
}

std::string precision_yaml(const precision_config& config) {
  std::string out = "precision: " + config.preset + "\n";
  for (const auto& [key, value] : config.refinements) out += key + ": " + value + "\n";
  return out;
}

std::string describe(const precision_policy& p) {
  std::string out = p.name + " (" + num::format_name(p.low) + "):";
  for (std::size_t i = 0; i < op_class_count; ++i) {
    const auto c = p.classes[i];
    // Appended piecewise: GCC 12's -Wrestrict misfires on `"lit" + std::string&&` at -O3.
    out += ' ';
    out += class_names[i];
    out += '=';
    out += c == class_precision::fp32 ? "fp32" : c == class_precision::low ? "low" : "follow";
  }
  for (const auto& [layer, f] : p.layers) {
    out += ' ';
    out += layer;
    out += '=';
    out += f ? num::format_name(*f) : "fp32";
  }
  out += p.master_weights ? "; fp32 master weights" : "; weights stored in the format";
  out += p.partials == accumulation::fp32 ? "; fp32 partials" : "; low partials";
  if (p.partials == accumulation::low && p.partials_block) {
    out += " in blocks of ";
    out += std::to_string(p.partials_block);
  }
  out += "; update rounding " + std::string(num::rounding_name(p.spec(tensor_role::update).mode));
  return out;
}

}  // namespace lab
