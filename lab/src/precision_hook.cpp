#include "lab/precision_hook.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>

#include <libnum/codec.hpp>
#include <libnum/convert.hpp>

#include "fused_loops.hpp"
#include "mixing.hpp"
#include "site_stream.hpp"
#include "precision_sum.hpp"
#include "scratch.hpp"

namespace lab {
namespace {

std::string trap_message(num::flags kind, const site& where, tensor_role role, std::uint64_t step,
                         const std::vector<precision_trap::offending>& values) {
  std::ostringstream out;
  out << "floating-point trap: " << num::flags_to_string(kind) << " in layer " << where.layer << " (" << where.op
      << ") tensor " << where.tensor << " [" << role_name(role) << "] at step " << step;
  for (const auto& v : values) out << "; [" << v.index << "] " << v.before << " -> " << v.after;
  return out.str();
}

bool is_follow(const precision_policy& p, const site& where) {
  return !p.layers.contains(where.layer) && p.of(where.op_class) == class_precision::follow;
}

// Whether every value of `narrow` is also a value of `wide` (conservatively:
// no wider range or precision and no feature `wide` lacks).
bool holds_all_of(const num::format& wide, const num::format& narrow) {
  return wide.precision >= narrow.precision && wide.emax >= narrow.emax && wide.emin <= narrow.emin &&
         (wide.subnormals || !narrow.subnormals) && (wide.infinities || !narrow.infinities);
}

}  // namespace

std::string non_finite_origin::describe() const {
  return "layer " + layer + " (" + op + ") tensor " + tensor + " [" + std::string(role_name(role)) + "] at step " +
         std::to_string(step) + ": " + std::to_string(count) + " of " + std::to_string(size) + " values, first [" +
         std::to_string(index) + "]";
}

void precision_hook::locate_non_finite(const site& where, tensor_role role, std::span<const float> values,
                                       bool has_non_finite) {
  // The pass that wrote `values` has said whether it holds a NaN or an
  // infinity; the element loop runs only on a tensor that does.
  if ((first_nan_ && first_infinity_) || !has_non_finite) return;
  const auto origin = [&](bool nan) {
    non_finite_origin o{std::string(where.layer), std::string(where.op), std::string(where.tensor), role, step_, 0, 0,
                        values.size()};
    bool first = true;
    for (std::size_t i = 0; i < values.size(); ++i)
      if (nan ? std::isnan(values[i]) : std::isinf(values[i])) {
        if (first) o.index = i;
        first = false;
        ++o.count;
      }
    return first ? std::nullopt : std::optional<non_finite_origin>(std::move(o));
  };
  if (!first_nan_) first_nan_ = origin(true);
  if (!first_infinity_) first_infinity_ = origin(false);
}

precision_trap::precision_trap(num::flags k, const site& where, tensor_role r, std::uint64_t s,
                               std::vector<offending> v)
    : std::runtime_error(trap_message(k, where, r, s, v)), kind(k), layer(where.layer), op(where.op),
      tensor(where.tensor), role(r), step(s), values(std::move(v)) {}

precision_hook::precision_hook(precision_policy policy, std::uint64_t run_seed, tensor_hook* next, unsigned threads)
    : policy_(std::move(policy)), seed_(policy_.seed != 0 ? policy_.seed : run_seed), next_(next), threads_(threads),
      engine_(*this), hadamard_signs_(hadamard_signs(seed_)) {}

op_context precision_hook::context() { return op_context(this, &engine_); }


std::optional<num::format> precision_hook::site_format(const site& where) const {
  if (const auto it = policy_.layers.find(where.layer); it != policy_.layers.end()) return it->second;
  if (policy_.of(where.op_class) == class_precision::low) return policy_.low;
  return std::nullopt;
}

bool precision_hook::stored_in_format(const site& where) const {
  return !policy_.master_weights && site_format(where).has_value();
}

std::optional<num::format> precision_hook::format_of(const site& where, tensor_role role) const {
  switch (role) {
    case tensor_role::optimizer_state: {
      if (const auto it = policy_.layers.find(where.layer); it != policy_.layers.end()) return it->second;
      if (policy_.of(op_class::optimizer) == class_precision::low) return policy_.low;
      return std::nullopt;
    }
    case tensor_role::activation:
    case tensor_role::grad_input:
    case tensor_role::grad_weight:
      if (is_follow(policy_, where)) {
        const auto it = follow_decisions_.find(where.layer);
        return it != follow_decisions_.end() ? it->second : std::nullopt;
      }
      return site_format(where);
    case tensor_role::weight:
    case tensor_role::master_weight:
    case tensor_role::update:
      return site_format(where);
  }
  return std::nullopt;
}

num::array_options precision_hook::options(const site& where, tensor_role role, const num::format& f) const {
  num::array_options o;
  o.target = f;
  o.spec = policy_.spec(role);
  o.seed = seed_;
  o.stream = stream_of(where, role, step_);
  o.draws = policy_.draws;
  o.threads = threads_;
  o.want_counts = counting_ || policy_.traps != num::flags::none;
  o.want_non_finite = !(first_nan_ && first_infinity_);
  return o;
}

std::optional<precision_trap> precision_hook::finite_trap(const site& where, tensor_role role,
                                                          std::span<const float> values) const {
  if (policy_.traps == num::flags::none) return std::nullopt;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float v = values[i];
    if (std::isnan(v) && num::any(policy_.traps, num::flags::invalid))
      return precision_trap(num::flags::invalid, where, role, step_, {{i, v, v}});
    if (std::isinf(v) && num::any(policy_.traps, num::flags::overflow))
      return precision_trap(num::flags::overflow, where, role, step_, {{i, v, v}});
  }
  return std::nullopt;
}

void precision_hook::note_rounding(const site& where, tensor_role role, std::span<const float> out,
                                   const num::conversion_result& result) {
  locate_non_finite(where, role, out, result.non_finite);
  const auto r = static_cast<std::size_t>(role);
  tally_.by_role[r] += result.counts;
  tally_.elements[r] += out.size();
}

std::optional<precision_trap> precision_hook::round(const site& where, tensor_role role, const num::format& f,
                                                    std::span<const float> in, std::span<float> out,
                                                    num::conversion_result* kept_result) {
  const bool trapping = policy_.traps != num::flags::none;
  if (trapping)
    if (auto trap = finite_trap(where, role, in)) return trap;
  const auto result = num::round_array(in, out, options(where, role, f));
  note_rounding(where, role, out, result);
  if (kept_result != nullptr) *kept_result = result;
  if (trapping && num::any(policy_.traps, num::flags::overflow) && result.counts.overflowed > 0) {
    std::vector<precision_trap::offending> bad;
    for (std::size_t i = 0; i < in.size() && bad.size() < 8; ++i)
      if (std::isfinite(in[i]) && std::fabs(static_cast<double>(in[i])) > f.max()) bad.push_back({i, in[i], out[i]});
    return precision_trap(num::flags::overflow, where, role, step_, std::move(bad));
  }
  return std::nullopt;
}

precision_hook::kept_rounding& precision_hook::kept(const site& where, tensor_role role) {
  std::string key;
  key.reserve(where.layer.size() + where.tensor.size() + 4);
  key.append(where.layer).append("/").append(where.tensor).append("#").push_back(static_cast<char>('0' + static_cast<int>(role)));
  auto it = kept_.find(key);
  if (it == kept_.end()) it = kept_.emplace(std::move(key), kept_rounding{}).first;
  return it->second;
}

std::span<const float> precision_hook::rounded_copy(const site& where, tensor_role role, const num::format& f,
                                                    std::span<const float> values, bool again,
                                                    std::optional<precision_trap>& trap) {
  kept_rounding& k = kept(where, role);
  if (again && k.reusable && k.source == values.data() && k.size == values.size() && k.step == step_ &&
      k.weight_writes == weight_writes_) {
    // What rounding the same values with the same stream gives: the copy
    // (or the values, where they were in the format already), its counts and
    // its non-finite check (no trap: the first had none).
    const std::span<const float> copy = k.in_format ? values : std::span<const float>(k.values.data(), k.size);
    note_rounding(where, role, copy, k.result);
    return copy;
  }
  k.reusable = false;  // until this rounding has finished without a trap
  k.in_format = held_in(values, f);
  std::span<const float> copy = values;
  if (k.in_format) {
    k.result = {};  // what rounding gives without counts: nothing raised
    note_rounding(where, role, values, k.result);
  } else {
    const std::span<float> out = detail::scratch_prefix(k.values, values.size());
    trap = round(where, role, f, values, out, &k.result);
    copy = out;
  }
  k.source = values.data();
  k.size = values.size();
  k.step = step_;
  k.weight_writes = weight_writes_;
  k.reusable = !trap;
  return copy;
}

bool precision_hook::held_in(std::span<const float> values, const num::format& f) const {
  // An identity rounding still counts subnormal results, and a NaN or an
  // infinity still traps: only without either.
  if (counting_ || policy_.traps != num::flags::none) return false;
  const auto it = activation_formats_.find(values.data());
  return it != activation_formats_.end() && it->second && holds_all_of(f, *it->second);
}

std::optional<num::format> precision_hook::widest_format_of(std::span<const std::span<const float>> inputs) const {
  // Autocast's promotion: fp32 if any input is fp32 (or was not produced by
  // an op of this pass, like the batch's images), else the input format that
  // holds all the others, else fp32 (as promote_types(half, bfloat16) is
  // float; every format is a subset of binary32). No inputs: fp32.
  std::optional<num::format> widest;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto it = activation_formats_.find(inputs[i].data());
    if (it == activation_formats_.end() || !it->second) return std::nullopt;
    const num::format& f = *it->second;
    if (i == 0 || holds_all_of(f, *widest))
      widest = f;
    else if (!holds_all_of(*widest, f))
      return std::nullopt;
  }
  return widest;
}

void precision_hook::produce_from(const site& where, std::span<float> values,
                                  std::span<const std::span<const float>> inputs) {
  if (!is_follow(policy_, where)) {
    produce(where, tensor_role::activation, values, std::nullopt);
    return;
  }
  const std::optional<num::format> f = widest_format_of(inputs);
  follow_decisions_[std::string(where.layer)] = f;
  hand_on(where, tensor_role::activation, values, f);
}

void precision_hook::produce(const site& where, tensor_role role, std::span<float> values,
                             unrounded_values /*unrounded*/) {
  if (role == tensor_role::activation && is_follow(policy_, where)) {
    produce_from(where, values, {});  // inputs unnamed: fp32
    return;
  }
  std::optional<num::format> f;
  if (role == tensor_role::master_weight) {
    ++weight_writes_;  // a parameter's new values: no kept weight copy outlives them
    if (stored_in_format(where)) f = site_format(where);
  } else if (role != tensor_role::update && role != tensor_role::weight) {
    f = format_of(where, role);
  }
  hand_on(where, role, values, f);
}

void precision_hook::hand_on(const site& where, tensor_role role, std::span<float> values,
                             const std::optional<num::format>& f) {
  if (role == tensor_role::activation) {
    // The format each forward output is held in, for the follow ops that
    // read it. The loss ends a forward pass: the next starts from fp32 data.
    if (where.op_class == op_class::loss)
      activation_formats_.clear();
    else
      activation_formats_[values.data()] = f;
  }
  if (!f) {
    if (auto trap = finite_trap(where, role, values)) throw std::move(*trap);
    // Held in fp32, so no rounding pass has looked at these values.
    if (!(first_nan_ && first_infinity_)) locate_non_finite(where, role, values, num::any_non_finite(values));
    if (next_ != nullptr) next_->produce(where, role, values, std::nullopt);
    return;
  }
  if (next_ == nullptr && policy_.traps == num::flags::none) {
    (void)round(where, role, *f, values, values);  // in place: nothing can trap, nobody sees the input
    return;
  }
  // The values before rounding stay readable: for the next hook, and for
  // naming the elements that overflowed.
  unrounded_.assign(values.begin(), values.end());
  auto trap = round(where, role, *f, unrounded_, values);
  if (next_ != nullptr) next_->produce(where, role, values, std::span<const float>(unrounded_));
  if (trap) throw std::move(*trap);
}

std::span<const float> precision_hook::weight(const site& where, std::span<const float> master,
                                              unrounded_values /*unrounded*/) {
  return weight_of(where, master, false);
}

std::span<const float> precision_hook::weight_again(const site& where, std::span<const float> master) {
  return weight_of(where, master, true);
}

std::span<const float> precision_hook::weight_of(const site& where, std::span<const float> master, bool again) {
  std::span<const float> result = master;
  unrounded_values unrounded;
  std::optional<precision_trap> trap;
  if (policy_.master_weights) {
    if (const auto f = site_format(where)) {
      result = rounded_copy(where, tensor_role::weight, *f, master, again, trap);
      unrounded = master;
    }
  }
  if (next_ != nullptr) result = next_->weight(where, result, unrounded);
  if (trap) throw std::move(*trap);
  return result;
}

std::span<const float> precision_hook::operand(const site& where, tensor_role role, std::span<const float> values,
                                               unrounded_values /*unrounded*/) {
  return operand_of(where, role, values, false);
}

std::span<const float> precision_hook::operand_again(const site& where, tensor_role role,
                                                     std::span<const float> values) {
  return operand_of(where, role, values, true);
}

std::span<const float> precision_hook::operand_of(const site& where, tensor_role role, std::span<const float> values,
                                                  bool again) {
  std::span<const float> result = values;
  unrounded_values unrounded;
  std::optional<precision_trap> trap;
  if (scaled_site(where)) {
    note_scaled_amax(where, role, values);
  } else if (const auto f = site_format(where)) {
    result = rounded_copy(where, role, *f, values, again, trap);
    unrounded = values;
  }
  if (next_ != nullptr) result = next_->operand(where, role, result, unrounded);
  if (trap) throw std::move(*trap);
  return result;
}

void precision_hook::update(const site& where, std::span<float> weight, const weight_step& step) {
  ++weight_writes_;  // no weight rounded before this is reused after it
  const std::span<const float> d = step.direction;
  const float scale = step.scale;
  if (policy_.traps != num::flags::none)
    for (std::size_t i = 0; i < d.size(); ++i) {
      // The optimizer's step is a quotient (Adam) or a product (SGD): an
      // infinity there is a division by zero, a NaN an invalid operation.
      const float delta = scale * d[i];
      if (std::isinf(delta) && num::any(policy_.traps, num::flags::divide_by_zero))
        throw precision_trap(num::flags::divide_by_zero, where, tensor_role::update, step_, {{i, delta, delta}});
      if (std::isnan(delta) && num::any(policy_.traps, num::flags::invalid))
        throw precision_trap(num::flags::invalid, where, tensor_role::update, step_, {{i, delta, delta}});
    }
  const std::size_t n = weight.size();
  const bool stored = stored_in_format(where);
  // AdamW's decay first: w * keep rounded into the weight's format (a
  // rounding of the stored weight, tallied as one). The step then applies
  // to the decayed weight, which is also what observers see as "before".
  std::span<const float> base = weight;
  if (step.keep != 1.0f) {
    const std::span<float> decayed = detail::scratch_prefix(decayed_, n);
    if (stored) {
      const std::span<double> exact = detail::scratch_prefix(exact_, n);
      for (std::size_t i = 0; i < n; ++i) exact[i] = static_cast<double>(weight[i]) * step.keep;  // exact in double
      const auto result = num::round_array(std::span<const double>(exact), decayed,
                                           options(where, tensor_role::master_weight, *site_format(where)));
      tally_.by_role[static_cast<std::size_t>(tensor_role::master_weight)] += result.counts;
      tally_.elements[static_cast<std::size_t>(tensor_role::master_weight)] += n;
    } else {
      for (std::size_t i = 0; i < n; ++i) decayed[i] = weight[i] * step.keep;
    }
    base = decayed;
  }
  // The old weights, for observe_update, only where the next hook observes
  // this update (a tracer: at its traced steps); taken before the write,
  // since `base` may be `weight` itself.
  const bool observed = next_ != nullptr && next_->observes_update(where);
  if (observed) trap_scratch_.assign(base.begin(), base.end());
  // Pure formats, into scratch, then written and tallied in one pass.
  // Round to nearest even: PyTorch's CPU kernels for bf16/fp16 tensors
  // compute w + s * d in float (one fused rounding) and round that once into
  // the tensor's dtype, so the same double rounding happens here. Every
  // other mode (stochastic included) rounds the exact w + s * d once (s * d
  // is exact in double; the sum is rounded to odd). fp32 masters:
  // apply_step_fp32's fused multiply-add, computed, written and tallied in
  // one pass. Each new value is tallied against the old one it replaces
  // (detail::update_pass: exact counts, double sums in eight lanes).
  bool non_finite = false;  // found by the rounding pass, or by the tally pass
  detail::update_pass pass;
  if (stored) {
    const std::span<float> rounded = detail::scratch_prefix(rounded_, n);
    const std::span<double> exact = detail::scratch_prefix(exact_, n);
    if (policy_.spec(tensor_role::update).mode == num::rounding::nearest_even) {
      if (step.kernel == step_kernel::add && emulates_torch_bf16(*site_format(where), tensor_role::update))
        // PyTorch's scalar loop rounds s * d to bf16 first (torch_cpu_kernels.hpp).
        torch_bf16_add(*policy_.torch_bf16, base, scale, d, rounded);
      else
        detail::fused_add_scaled(base, scale, d, rounded);
      std::copy(rounded.begin(), rounded.end(), exact.begin());
    } else {
      for (std::size_t i = 0; i < n; ++i)
        exact[i] = detail::sum_to_odd(base[i], static_cast<double>(scale) * static_cast<double>(d[i]));
    }
    auto o = options(where, tensor_role::update, *site_format(where));
    const auto result = num::round_array(std::span<const double>(exact), rounded, o);
    non_finite = result.non_finite;
    tally_.by_role[static_cast<std::size_t>(tensor_role::update)] += result.counts;
    tally_.elements[static_cast<std::size_t>(tensor_role::update)] += n;
    if (num::any(policy_.traps, num::flags::overflow) && result.counts.overflowed > 0) {
      std::vector<precision_trap::offending> bad;
      for (std::size_t i = 0; i < n && bad.size() < 8; ++i)
        if (std::isfinite(exact[i]) && !std::isfinite(rounded[i])) bad.push_back({i, base[i], rounded[i]});
      throw precision_trap(num::flags::overflow, where, tensor_role::update, step_, std::move(bad));
    }
    pass = detail::write_rounded_update(base, rounded, d, scale, weight);
  } else {
    pass = detail::write_fused_update(base, d, scale, weight);
  }
  non_finite = non_finite || pass.non_finite;
  auto& t = tally_.updates;
  t.elements += n;
  t.nonzero_delta += pass.nonzero_delta;
  t.unchanged += pass.unchanged;
  t.swamped += pass.swamped;
  t.requested += pass.requested;
  t.applied += pass.applied;
  locate_non_finite(where, tensor_role::update, weight, non_finite);
  if (observed) {
    const std::span<float> delta = detail::scratch_prefix(delta_, n);
    requested_delta(step, delta);
    next_->observe_update(where, trap_scratch_, delta, weight);
  }
}

bool precision_hook::emulates_torch_bf16(const num::format& f, tensor_role role) const {
  return policy_.torch_bf16.has_value() && f == num::bfloat16_format &&
         policy_.spec(role).mode == num::rounding::nearest_even;
}

void precision_hook::add_scaled(const site& where, tensor_role role, std::span<const float> a, float s,
                                std::span<const float> b, std::span<float> out) {
  if (const auto f = format_of(where, role); f && emulates_torch_bf16(*f, role))
    torch_bf16_add(*policy_.torch_bf16, a, s, b, out);
  else
    add_scaled_fp32(a, s, b, out);
}

float precision_hook::scalar(const site& where, tensor_role role, double value) {
  const auto f = role == tensor_role::master_weight || role == tensor_role::update
                     ? (stored_in_format(where) ? site_format(where) : std::nullopt)
                     : format_of(where, role);
  if (!f) return static_cast<float>(value);
  return num::to_float(*f, num::from_double(*f, value, num::round_spec{}).bits);
}

void precision_hook::store_parameters(const std::vector<parameter*>& params) {
  for (auto* p : params) produce(p->site(), tensor_role::master_weight, p->value.values(), std::nullopt);
}

void precision_hook::policy_engine::gemm(const site& where, tensor_role role, const gemm_args& g) const {
  if (owner_.scaled_site(where)) {
    owner_.gemm_scaled(where, role, g);
    return;
  }
  const auto f = owner_.site_format(where);
  if (!f || owner_.policy_.partials == accumulation::fp32) {
    sgemm(g);
    return;
  }
  low_accumulation acc;
  acc.format = *f;
  acc.spec = owner_.policy_.spec(role);
  acc.block = owner_.policy_.partials_block;
  acc.seed = owner_.seed_;
  acc.stream = stream_of(where, role, owner_.step_) ^ 0x5A5A5A5A5A5A5A5Aull;
  gemm_low_accumulation(g, acc);
}

}  // namespace lab
