#include "lab/precision_policy.hpp"

#include <algorithm>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "config_values.hpp"
#include "lab/errors.hpp"
#include "lab/low_precision_gemm.hpp"

namespace lab {
namespace {

constexpr std::string_view known_presets =
    "fp32, fp16, bf16, fp16-mixed, bf16-mixed, 32.32, 16.16, 16.32, fp8-current, fp8-delayed, fp8-blockwise, mxfp8, "
    "mxfp4, nvfp4";

constexpr std::array<std::string_view, op_class_count> class_names = {"matmul", "conv",        "norm",
                                                                       "loss",   "elementwise", "optimizer"};

num::format to_format(const std::string& where, const std::string& key, const std::string& value) {
  try {
    return num::parse_format(value);
  } catch (const std::invalid_argument&) {
    bad_value(where, key, value, "a format (fp16, bf16, e5m2, e4m3, tf32, fp32, eXmY, p=..,emin=..,emax=..)");
  }
}

num::rounding to_rounding(const std::string& where, const std::string& key, const std::string& value) {
  try {
    return num::parse_rounding(value);
  } catch (const std::invalid_argument&) {
    bad_value(where, key, value, "a rounding mode (ne, na, rz, ru, rd, ro, sr or their long names)");
  }
}

class_precision to_class_precision(const std::string& where, const std::string& key, const std::string& value,
                                   op_class c) {
  const bool gemm = c == op_class::matmul || c == op_class::conv;
  if (value == "fp32") return class_precision::fp32;
  if (value == "low" || value == "half") return class_precision::low;
  if (value == "follow") return class_precision::follow;
  if (value == "scaled" && gemm) return class_precision::scaled;
  bad_value(where, key, value, gemm ? "fp32, low, follow or scaled" : "fp32, low or follow");
}

// A GEMM operand's scaled format. The parser offers no caller-given scale
// rule: per-tensor scales from a history are scaled.scaling: delayed.
num::scaled_format to_scaled_format(const std::string& where, const std::string& key, const std::string& value) {
  num::scaled_format f;
  try {
    f = num::parse_scaled_format(value);
  } catch (const std::invalid_argument& e) {
    bad_value(where, key, value, std::string("a scaled format (mxfp8, nvfp4, fp8-tensor, e4m3/fp32-amax/1x128, ...): ") +
                                     e.what());
  }
  if (const auto problem = num::scaled_format_problem(f)) bad_value(where, key, value, *problem);
  return f;
}

std::size_t positive_count(const std::string& where, const std::string& key, const std::string& value) {
  const std::size_t n = parse_count(where, key, value, "a positive integer");
  if (n == 0) bad_value(where, key, value, "a positive integer");
  return n;
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
      bad_value(where, key, value, "none, all, or a list of overflow, divide_by_zero, invalid");
  }
  return out;
}

// Ranks keys so every key applies after the keys whose defaults it
// refines: loss_scaling (which sets the scale, interval and minimum of its
// kind) first, then the other general keys, then the per-role, per-class and
// per-layer ones. Keys of one rank set disjoint fields, so with each key
// held once the resolved policy does not depend on the order they came in.
int specificity(const std::string& key) {
  if (key == "loss_scaling") return 0;
  return key.find('.') == std::string::npos ? 1 : 2;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// One precision key: its name, its help line and how it sets a policy (null
// for `precision`, which picks the preset instead; see set_precision_value).
using policy_setter =
    std::function<void(precision_policy&, const std::string& key, const std::string& value, const std::string& where)>;
struct policy_key {
  std::string name;
  std::string help;
  policy_setter set;
};

void set_loss_scaling(precision_policy& p, const std::string& key, const std::string& value,
                      const std::string& where) {
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
    bad_value(where, key, value, "none, static, dynamic or mindspore");
  }
}

// The table of precision keys (the model: train_config.cpp's key table), in
// the order `numlab train` lists them; rounding.<role> and autocast.<class>
// follow, one per role and class.
const std::vector<policy_key>& policy_keys() {
  using P = precision_policy&;
  using S = const std::string&;
  static const std::vector<policy_key> table = [] {
    std::vector<policy_key> t = {
        {"precision",
         "fp32 | fp16 | bf16 (pure, 16.16) | fp16-mixed | bf16-mixed (fp32 master weights, 16.32) | fp8-current | "
         "fp8-delayed | fp8-blockwise | mxfp8 | mxfp4 | nvfp4 (scaled-format recipes)",
         nullptr},
        {"precision_format", "the low-precision format (fp16, bf16, e5m2, e4m3, ...)",
         [](P p, S k, S v, S w) { p.low = to_format(w, k, v); }},
        {"master_weights", "keep fp32 master weights (true for *-mixed)",
         [](P p, S k, S v, S w) { p.master_weights = parse_bool(w, k, v); }},
        {"partials", "matmul/conv accumulation: fp32 | low (round after every addition)",
         [](P p, S k, S v, S w) {
           if (v == "fp32")
             p.partials = accumulation::fp32;
           else if (v == "low" || v == "half")
             p.partials = accumulation::low;
           else
             bad_value(w, k, v, "fp32 or low");
         }},
        {"partials_block", "low partials: 0 sequential, N chunk-based accumulation in blocks of N",
         [](P p, S k, S v, S w) { p.partials_block = parse_count(w, k, v); }},
        {"rounding", "rounding mode of every tensor role: ne | na | rz | ru | rd | ro | sr",
         [](P p, S k, S v, S w) {
           const auto mode = to_rounding(w, k, v);
           for (auto& s : p.rounding) s.mode = mode;
         }},
        {"rounding_bits", "random bits r of stochastic rounding (1..32)",
         [](P p, S k, S v, S w) {
           const std::size_t r = parse_count(w, k, v);
           if (r < 1 || r > 32) bad_value(w, k, v, "an integer in [1, 32]");
           for (auto& s : p.rounding) s.random_bits = static_cast<int>(r);
         }},
        {"overflow", "ieee | saturate | nan",
         [](P p, S k, S v, S w) {
           num::overflow_mode mode{};
           if (v == "ieee")
             mode = num::overflow_mode::ieee;
           else if (v == "saturate")
             mode = num::overflow_mode::saturate;
           else if (v == "nan")
             mode = num::overflow_mode::nan;
           else
             bad_value(w, k, v, "ieee, saturate or nan");
           for (auto& s : p.rounding) s.overflow = mode;
         }},
        {"traps", "none | all | list of overflow, divide_by_zero, invalid: stop the run on the first one",
         [](P p, S k, S v, S w) { p.traps = to_traps(w, k, v); }},
        {"loss_scaling", "none | static | dynamic (GradScaler) | mindspore (DynamicLossScaleManager)",
         set_loss_scaling},
        {"loss_scale", "static factor, or the initial dynamic scale",
         [](P p, S k, S v, S w) {
           const double x = parse_number(w, k, v);
           if (!(x > 0.0)) bad_value(w, k, v, "a positive number");
           p.scaling.scale = x;
         }},
        {"loss_scale_growth", "dynamic: growth factor",
         [](P p, S k, S v, S w) {
           const double x = parse_number(w, k, v);
           if (!(x > 1.0)) bad_value(w, k, v, "a number above 1");
           p.scaling.growth_factor = x;
         }},
        {"loss_scale_backoff", "dynamic: backoff factor",
         [](P p, S k, S v, S w) {
           const double x = parse_number(w, k, v);
           if (!(x > 0.0 && x < 1.0)) bad_value(w, k, v, "a number in (0, 1)");
           p.scaling.backoff_factor = x;
         }},
        {"loss_scale_interval", "dynamic: clean updates before growing",
         [](P p, S k, S v, S w) {
           p.scaling.growth_interval = positive_count(w, k, v);
         }},
        {"loss_scale_min", "dynamic: lower bound of the scale",
         [](P p, S k, S v, S w) {
           const double x = parse_number(w, k, v);
           if (x < 0.0) bad_value(w, k, v, "a non-negative number");
           p.scaling.min_scale = x;
         }},
        {"loss_scale_method", "static: unscale (gradients) | divide_lr (learning rate, linear optimizers)",
         [](P p, S k, S v, S w) {
           if (v == "unscale")
             p.scaling.divide_lr = false;
           else if (v == "divide_lr")
             p.scaling.divide_lr = true;
           else
             bad_value(w, k, v, "unscale or divide_lr");
         }},
        {"shadow", "run an fp32 shadow model and report per-layer relative errors",
         [](P p, S k, S v, S w) { p.shadow = parse_bool(w, k, v); }},
        {"precision_seed", "seed of the stochastic-rounding streams (0: the run's seed)",
         [](P p, S k, S v, S w) { p.seed = parse_count(w, k, v); }},
        {"rounding_draws",
         "random bits of stochastic rounding per element: full-word (one Philox word, default) | half-word "
         "(16 bits, half the generator's work; rounding_bits <= 16)",
         [](P p, S k, S v, S w) {
           try {
             p.draws = num::parse_random_draws(v);
           } catch (const std::invalid_argument&) {
             bad_value(w, k, v, "full-word or half-word");
           }
         }},
        {"torch_bf16_kernels",
         "match PyTorch 1.13's CPU bf16 optimizer steps in their scalar tails: off (default) | avx2 | avx512, "
         "optionally :THREADS (torch.get_num_threads() of the run to match, default 1)",
         [](P p, S k, S v, S w) {
           const std::size_t colon = v.find(':');
           const std::string capability = v.substr(0, colon);
           if (v == "off") {
             p.torch_bf16.reset();
             return;
           }
           torch_cpu_kernels kernels;
           if (capability == "avx2")
             kernels.capability = torch_cpu_capability::avx2;
           else if (capability == "avx512")
             kernels.capability = torch_cpu_capability::avx512;
           else
             bad_value(w, k, v, "off, avx2 or avx512, optionally followed by :THREADS");
           if (colon != std::string::npos) kernels.threads = positive_count(w, k, v.substr(colon + 1));
           p.torch_bf16 = kernels;
         }},
    };
    for (std::size_t i = 0; i < tensor_role_count; ++i) {
      const std::string r(role_name(static_cast<tensor_role>(i)));
      t.push_back({"rounding." + r, "rounding mode of role " + r,
                   [i](P p, S k, S v, S w) { p.rounding[i].mode = to_rounding(w, k, v); }});
    }
    for (std::size_t i = 0; i < op_class_count; ++i) {
      const std::string c(class_names[i]);
      const auto cls = static_cast<op_class>(i);
      const bool gemm = cls == op_class::matmul || cls == op_class::conv;
      const std::string choices = gemm ? "fp32 | low | follow | scaled" : "fp32 | low | follow";
      t.push_back({"autocast." + c, choices + " for op class " + c,
                   [i, cls](P p, S k, S v, S w) { p.classes[i] = to_class_precision(w, k, v, cls); }});
    }
    // The scaled recipe's keys (scaled_recipe.hpp) come last.
    const std::vector<policy_key> scaled_keys = {
        {"scaled.scaling", "per-tensor fp32 scales: current (this amax) | delayed (amax history, TE DelayedScaling)",
         [](P p, S k, S v, S w) {
           if (v == "current")
             p.scaled.scaling = tensor_scaling::current;
           else if (v == "delayed")
             p.scaled.scaling = tensor_scaling::delayed;
           else
             bad_value(w, k, v, "current or delayed");
         }},
        {"scaled.amax_history_len", "delayed scaling: steps of amax history (TE default 1024)",
         [](P p, S k, S v, S w) {
           p.scaled.amax_history_len = positive_count(w, k, v);
         }},
        {"scaled.amax_compute_algo", "delayed scaling: max | most_recent (TE default max)",
         [](P p, S k, S v, S w) {
           if (v == "max")
             p.scaled.amax_compute_algo = num::amax_reduction::max;
           else if (v == "most_recent")
             p.scaled.amax_compute_algo = num::amax_reduction::most_recent;
           else
             bad_value(w, k, v, "max or most_recent");
         }},
        {"scaled.margin", "fp32-amax scales: decode scale amax * 2^margin / max_elem (TE margin, default 0)",
         [](P p, S k, S v, S w) {
           const std::size_t m = parse_count(w, k, v);
           if (m > 64) bad_value(w, k, v, "an integer in [0, 64]");
           p.scaled.margin = static_cast<int>(m);
         }},
        {"scaled.hadamard", "16x16 random Hadamard transform on the wgrad GEMM's inputs (true for mxfp4, nvfp4)",
         [](P p, S k, S v, S w) { p.scaled.hadamard = parse_bool(w, k, v); }},
    };
    t.insert(t.end(), scaled_keys.begin(), scaled_keys.end());
    for (std::size_t i = 0; i < gemm_operand_count; ++i) {
      const std::string o(gemm_operand_name(static_cast<gemm_operand>(i)));
      t.push_back({"scaled." + o, "scaled format of every GEMM's " + o + " operand (mxfp8, nvfp4, fp8-tensor, " +
                                      "e4m3/fp32-amax/1x128, ...)",
                   [i](P p, S k, S v, S w) { p.scaled.formats[i] = to_scaled_format(w, k, v); }});
    }
    return t;
  }();
  return table;
}

const policy_key* find_policy_key(std::string_view key) {
  for (const auto& e : policy_keys())
    if (e.name == key) return &e;
  return nullptr;
}

// "a, b, c" of name_of(i) for every i < count.
template <typename Name>
std::string joined_names(std::size_t count, Name name_of) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (i) out += ", ";
    out += name_of(i);
  }
  return out;
}

// "layers.<name>.precision": fp32, low (the policy's format) or a format.
bool is_layer_key(std::string_view key) {
  return starts_with(key, "layers.") && key.size() > 17 && key.ends_with(".precision");
}

void apply(precision_policy& p, const std::string& key, const std::string& value, const std::string& where) {
  if (const policy_key* e = find_policy_key(key); e != nullptr && e->set) {
    e->set(p, key, value, where);
  } else if (starts_with(key, "rounding.")) {
    const auto role = [](std::size_t i) { return std::string(role_name(static_cast<tensor_role>(i))); };
    throw input_error(where + ": unknown config key '" + key + "' (roles: " +
                      joined_names(tensor_role_count, role) + ")");
  } else if (starts_with(key, "autocast.")) {
    const auto class_name = [](std::size_t i) { return std::string(class_names[i]); };
    throw input_error(where + ": unknown config key '" + key + "' (classes: " +
                      joined_names(op_class_count, class_name) + ")");
  } else if (is_layer_key(key)) {
    const std::string layer = key.substr(7, key.size() - 7 - 10);
    if (value == "fp32")
      p.layers[layer] = std::nullopt;
    else if (value == "low")
      p.layers[layer] = p.low;
    else
      p.layers[layer] = to_format(where, key, value);
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

// Low partials and pure-format updates are sums emulated in double (see
// low_precision_gemm.hpp); a stochastic draw wider than double keeps cannot
// be emulated exactly, so the policy is refused before a run starts.
void reject_inexact_sums(const precision_policy& p) {
  std::vector<num::format> formats{p.low};
  for (const auto& [layer, f] : p.layers)
    if (f) formats.push_back(*f);
  std::vector<std::pair<tensor_role, const char*>> sums;
  if (p.partials == accumulation::low)
    for (const auto role : {tensor_role::activation, tensor_role::grad_input, tensor_role::grad_weight})
      sums.emplace_back(role, "low partials");
  if (!p.master_weights) sums.emplace_back(tensor_role::update, "weight updates stored in the format");
  for (const auto& f : formats)
    for (const auto& [role, what] : sums)
      if (!low_accumulation_is_exact(f, p.spec(role)))
        throw input_error("config: stochastic rounding with rounding_bits " +
                          std::to_string(p.spec(role).random_bits) + " into " + num::format_name(f) + " (p = " +
                          std::to_string(f.precision) + ") cannot be emulated exactly for " + what +
                          ": the sums are held in double, which needs p + rounding_bits + 1 <= 53 (use "
                          "rounding_bits <= " + std::to_string(52 - f.precision) + ")");
}

// Half-word draws hold 16 random bits; a stochastic role asking for more is
// refused before a run starts rather than by the first rounding call.
void reject_short_draws(const precision_policy& p) {
  const int available = num::random_draws_max_bits(p.draws);
  for (std::size_t i = 0; i < tensor_role_count; ++i) {
    const num::round_spec& s = p.rounding[i];
    if (s.mode == num::rounding::stochastic && s.random_bits > available)
      throw input_error("config: rounding_draws " + std::string(num::random_draws_name(p.draws)) + " holds " +
                        std::to_string(available) + " random bits but rounding." +
                        std::string(role_name(static_cast<tensor_role>(i))) + " is stochastic with rounding_bits " +
                        std::to_string(s.random_bits) + " (set rounding_bits <= " + std::to_string(available) + ")");
  }
}

// The refinements in the order resolve() applies them (by specificity, then by name).
std::vector<std::pair<std::string, std::string>> ordered_refinements(const precision_config& config) {
  std::vector<std::pair<std::string, std::string>> out(config.refinements.begin(), config.refinements.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return specificity(a.first) < specificity(b.first); });
  return out;
}

}  // namespace

std::string_view op_class_name(op_class c) { return class_names[static_cast<std::size_t>(c)]; }

bool precision_policy::is_fp32() const {
  for (auto c : classes)
    if (c == class_precision::low || c == class_precision::scaled) return false;
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
  if (const auto recipe = scaled_recipe_preset(name)) {
    // bf16 is the format a layer kept out of the recipe falls back to
    // (`layers.<name>.precision: low`).
    auto p = uniform(std::string(name), num::bfloat16_format, class_precision::fp32, true);
    p.classes[static_cast<std::size_t>(op_class::matmul)] = class_precision::scaled;
    p.classes[static_cast<std::size_t>(op_class::conv)] = class_precision::scaled;
    p.scaled = *recipe;
    if (scaled_preset_rounds_gradients_stochastically(name))
      p.rounding[static_cast<std::size_t>(tensor_role::grad_input)].mode = num::rounding::stochastic;
    return p;
  }
  throw input_error("unknown precision '" + std::string(name) + "' (known: " + std::string(known_presets) + ")");
}

precision_policy precision_config::resolve() const {
  precision_policy p = precision_preset(preset);
  for (const auto& [key, value] : ordered_refinements(*this)) apply(p, key, value, "config");
  reject_inexact_sums(p);
  reject_short_draws(p);
  return p;
}

bool is_precision_key(std::string_view key) {
  return find_policy_key(key) != nullptr || starts_with(key, "rounding.") || starts_with(key, "autocast.") ||
         is_layer_key(key);
}

void set_precision_value(precision_config& config, const std::string& key, const std::string& value,
                         const std::string& where) {
  if (key == "precision") {
    try {
      (void)precision_preset(value);
    } catch (const input_error&) {
      bad_value(where, key, value, "a precision preset (" + std::string(known_presets) + ")");
    }
    config.preset = value;
    return;
  }
  // Checked now against a scratch policy, so the message names the source.
  precision_policy scratch = precision_preset(config.preset);
  apply(scratch, key, value, where);
  config.refinements.insert_or_assign(key, value);
}

std::vector<std::pair<std::string, std::string>> precision_config_keys() {
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto& e : policy_keys()) keys.emplace_back(e.name, e.help);
  return keys;
}

std::string precision_yaml(const precision_config& config) {
  std::string out = "precision: " + config.preset + "\n";
  for (const auto& [key, value] : ordered_refinements(config)) out += key + ": " + value + "\n";
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
    out += c == class_precision::fp32     ? "fp32"
           : c == class_precision::low    ? "low"
           : c == class_precision::scaled ? "scaled"
                                          : "follow";
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
  if (std::find(p.classes.begin(), p.classes.end(), class_precision::scaled) != p.classes.end()) {
    out += "; scaled: ";
    out += describe(p.scaled);
    out += "; gradient rounding ";
    out += num::rounding_name(p.spec(tensor_role::grad_input).mode);
  }
  return out;
}

}  // namespace lab
