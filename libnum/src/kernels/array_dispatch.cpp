// Array kernels: option checking, the plan of constants, path selection.
#include "libnum/cpu_features.hpp"
#include <bit>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_plan.hpp"
#include "libnum/array.hpp"
#include "libnum/codec.hpp"
#include "libnum/philox.hpp"

namespace num {
namespace {

using kernels::domain_constants;
using kernels::kernel_plan;
using kernels::operation;

// Whether an overflow in `mode` goes to infinity (else to the largest finite value).
bool overflows_to_infinity(rounding mode, bool negative) {
  switch (mode) {
    case rounding::toward_zero:
    case rounding::to_odd: return false;
    case rounding::toward_positive: return !negative;
    case rounding::toward_negative: return negative;
    default: return true;
  }
}

// The constants of `f` in an input domain with M fraction bits and exponent
// bias `bias`; `pattern` maps an exact double to that domain's bit pattern.
template <class Pattern>
domain_constants make_domain(const format& f, const round_spec& spec, int M, int bias, Pattern pattern,
                             std::uint64_t infinity, std::uint64_t quiet_nan) {
  const int fb = f.fraction_bits();
  domain_constants c;
  c.min_normal = pattern(f.min_normal());
  c.half_min_normal = pattern(pow2(f.emin - 1));
  c.max_finite = pattern(f.max());
  c.low_quantum = pattern(f.min_subnormal());
  const std::uint64_t infinity_like = f.infinities ? infinity : quiet_nan;
  auto overflow_value = [&](bool negative) {
    switch (spec.overflow) {
      case overflow_mode::saturate: return c.max_finite;
      case overflow_mode::nan: return quiet_nan;
      case overflow_mode::ieee: break;
    }
    return overflows_to_infinity(spec.mode, negative) ? infinity_like : c.max_finite;
  };
  c.overflow_positive = overflow_value(false);
  c.overflow_negative = overflow_value(true);
  // Saturation clamps infinite inputs too (the core, like CUDA's satfinite).
  c.infinity_result = spec.overflow == overflow_mode::saturate ? c.max_finite : f.infinities ? infinity : quiet_nan;
  const std::uint64_t mantissa = (std::uint64_t{1} << M) - 1;
  c.nan_payload = f.infinities ? mantissa & ~((std::uint64_t{1} << (M - fb)) - 1) : 0;
  c.normal_shift = M - fb;
  const int low_quantum_exponent = f.subnormals ? f.emin - fb : f.emin;
  c.low_shift_base = low_quantum_exponent + bias + M;
  c.tiny_shift_base = (f.emin - 1 - fb) + bias + M;
  c.subnormal_shift_base = (f.emin - fb) + bias + M;
  c.normal_rebias = static_cast<std::uint64_t>(bias - 1 + f.emin) << M;
  return c;
}

kernels::encoding_constants make_encoding(const format& f, const round_spec& spec) {
  kernels::encoding_constants e;
  const int fb = f.fraction_bits();
  e.fraction_bits = fb;
  e.sign_mask = f.sign_mask();
  e.width_mask = f.total_bits() == 32 ? 0xFFFFFFFFu : (std::uint32_t{1} << f.total_bits()) - 1;
  e.fraction_mask = f.fraction_mask();
  e.exponent_all_ones = f.exponent_field_max() << fb;
  e.nan_all_ones = f.sign_mask() - 1;
  e.ieee_nans = f.nans() == nan_encoding::ieee;
  e.subnormals = f.subnormals;
  e.fp32_prefix = f.emin == -126 && f.emax == 127 && f.subnormals && f.infinities;
  e.is_binary16 = f == binary16;
  e.decode_rebias = static_cast<std::uint32_t>(126 + f.emin) << 23;
  e.decode_linear_shift = f.emin - fb + 149;
  e.decode_scale_down = static_cast<std::uint32_t>(fb - f.emin) << 23;
  e.infinity_flags = spec.overflow == overflow_mode::saturate ? flags::overflow | flags::inexact
                     : f.infinities                            ? flags::none
                                                               : flags::invalid;
  return e;
}

void check_format(const format& f, int width, const char* what) {
  if (auto why = f.problem()) throw std::invalid_argument(std::string(what) + ": invalid format: " + *why);
  if (f.total_bits() > 8 * width) {
    throw std::invalid_argument(std::string(what) + ": format " + format_name(f) + " needs " +
                                std::to_string(f.total_bits()) + " bits but the encodings hold " +
                                std::to_string(8 * width));
  }
}

// The constants of the input domain `op` reads (decoding reads neither).
domain_constants make_input_domain(const format& f, const round_spec& spec, operation op) {
  if (op == operation::encode_f32 || op == operation::round_f32) {
    return make_domain(
        f, spec, 23, 127, [](double v) { return std::uint64_t{std::bit_cast<std::uint32_t>(static_cast<float>(v))}; },
        0x7F800000u, 0x7FC00000u);
  }
  if (op == operation::encode_f64 || op == operation::round_f64) {
    return make_domain(
        f, spec, 52, 1023, [](double v) { return std::bit_cast<std::uint64_t>(v); }, 0x7FF0000000000000u,
        0x7FF8000000000000u);
  }
  return {};
}

// Built member by member, not default-constructed and then assigned: the
// latter zero-filled the whole plan first (a 224-byte rep stos, 15% of a
// 16-element call on an AMD EPYC).
kernel_plan make_plan(const format& f, const round_spec& spec, operation op, int width) {
  return kernel_plan{.op = op,
                     .width = width,
                     .target = f,
                     .spec = spec,
                     .domain = make_input_domain(f, spec, op),
                     .encoding = make_encoding(f, spec)};
}

kernel_plan make_rounding_plan(const array_options& o, operation op, int width, const char* what) {
  check_format(o.target, width, what);
  if (o.spec.random_bits < 1 || o.spec.random_bits > 32) {
    throw std::invalid_argument(std::string(what) + ": stochastic random bits must be in [1, 32] (got " +
                                std::to_string(o.spec.random_bits) + ")");
  }
  const int draw_bits = random_draws_max_bits(o.draws);
  if (o.spec.mode == rounding::stochastic && o.spec.random_bits > draw_bits) {
    throw std::invalid_argument(std::string(what) + ": " + std::string(random_draws_name(o.draws)) +
                                " random draws hold " + std::to_string(draw_bits) + " bits but r = " +
                                std::to_string(o.spec.random_bits));
  }
  kernel_plan plan = make_plan(o.target, o.spec, op, width);
  plan.seed = o.seed;
  plan.stream = o.stream;
  plan.draws = o.draws;
  plan.want_counts = o.want_counts;
  plan.want_non_finite = o.want_non_finite;
  plan.flush_inputs = o.flush_subnormal_inputs;
  plan.flush_outputs = o.flush_subnormal_outputs;
  const bool plain_f32_to_16 = !o.want_counts && !o.flush_subnormal_inputs && !o.flush_subnormal_outputs &&
                               (op == operation::round_f32 || (op == operation::encode_f32 && width == 2));
  if (plain_f32_to_16 && o.spec.mode == rounding::stochastic &&
      (o.target == binary16 || o.target == bfloat16_format)) {
    plan.shortcut = kernels::hardware_shortcut::stochastic_16bit;
    return plan;
  }
  const bool plain_f64_to_16 = !o.want_counts && !o.flush_subnormal_inputs && !o.flush_subnormal_outputs &&
                               (op == operation::round_f64 || (op == operation::encode_f64 && width == 2));
  if (plain_f64_to_16 && o.spec.mode == rounding::stochastic &&
      (o.target == binary16 || o.target == bfloat16_format)) {
    plan.shortcut = kernels::hardware_shortcut::stochastic_16bit;
    return plan;
  }
  // Two shortcuts run the CPU's conversions, which read the MXCSR. Under
  // DAZ, vcvtps2ph reads an fp32 subnormal as zero, which the directed
  // roundings then leave at zero instead of fp16's least subnormal; under FTZ
  // or DAZ the AVX-512 fp64 rounding to odd loses the fp32 subnormal range,
  // which bf16 keeps. Nearest-even and toward zero into fp16 make zero of
  // every fp32 subnormal either way (all lie below 2^-25), so they stay.
  // The MXCSR is read only where it decides (stmxcsr and the load after it
  // were 6% of a 16-element call on an AMD EPYC).
  if (plain_f64_to_16 && o.spec.mode == rounding::nearest_even && o.spec.overflow == overflow_mode::ieee &&
      (o.target == binary16 || (o.target == bfloat16_format && !mxcsr_flushes_subnormals()))) {
    plan.shortcut = kernels::hardware_shortcut::f64_nearest_16bit;
    return plan;
  }
  const bool plain = plain_f32_to_16 && o.spec.overflow == overflow_mode::ieee;
  if (plain && o.target == binary16) {
    switch (o.spec.mode) {
      case rounding::nearest_even: plan.hardware_rounding_immediate = 0; break;
      case rounding::toward_negative:
        if (mxcsr_flushes_subnormals()) return plan;
        plan.hardware_rounding_immediate = 1;
        break;
      case rounding::toward_positive:
        if (mxcsr_flushes_subnormals()) return plan;
        plan.hardware_rounding_immediate = 2;
        break;
      case rounding::toward_zero: plan.hardware_rounding_immediate = 3; break;
      default: return plan;
    }
    plan.shortcut = kernels::hardware_shortcut::fp16_convert;
  } else if (plain && o.target == bfloat16_format && o.spec.mode == rounding::nearest_even) {
    plan.shortcut = kernels::hardware_shortcut::bf16_nearest;
  }
  return plan;
}

void check_sizes(std::size_t in, std::size_t out, const char* what) {
  if (in != out) {
    throw std::invalid_argument(std::string(what) + ": input has " + std::to_string(in) +
                                " elements but output has " + std::to_string(out));
  }
}

// Under a NaN convention that delivers one fixed NaN (arm_default_nan,
// cuda_canonical), every NaN the kernels wrote (keeping the input's sign and
// payload, as first_operand does) becomes that NaN: one extra pass, taken
// only under those conventions, so the kernels keep a single NaN path.
// Under cuda_canonical the NaN an overflow makes keeps its sign
// (delivered_result_bits), so only the NaNs of NaN inputs change; their
// places are taken before the kernels run, which may overwrite the input
// (round_array_in_place).
template <class In>
std::vector<std::size_t> nan_input_places(std::span<const In> in, const array_options& o) {
  std::vector<std::size_t> places;
  if (o.spec.nans != nan_convention::cuda_canonical) return places;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (std::isnan(in[i])) places.push_back(i);
  return places;
}

template <class Out>
void deliver_nans(std::span<Out> out, const array_options& o, std::span<const std::size_t> nan_inputs) {
  const nan_convention c = o.spec.nans;
  if (c == nan_convention::first_operand || c == nan_convention::x86_sse) return;
  const format& f = o.target;
  const std::uint32_t code = nan_result_bits(f, default_nan_bits(f), c);
  const auto delivered = [&] {
    if constexpr (std::is_same_v<Out, float>) return to_float(f, code);
    else return static_cast<Out>(code);
  }();
  const auto is_nan_result = [&](Out x) {
    if constexpr (std::is_same_v<Out, float>) return std::isnan(x);
    else return is_nan(f, x);
  };
  if (c == nan_convention::cuda_canonical) {
    for (const std::size_t i : nan_inputs) out[i] = delivered;
    return;
  }
  for (Out& x : out)
    if (is_nan_result(x)) x = delivered;
}

template <class In, class Out>
conversion_result run_rounding(std::span<const In> in, std::span<Out> out, const array_options& o, operation op,
                               const char* what) {
  check_sizes(in.size(), out.size(), what);
  const kernel_plan plan = make_rounding_plan(o, op, static_cast<int>(sizeof(Out)), what);
  const simd_path path = resolve_simd_path(o.path);
  const std::vector<std::size_t> nan_inputs = nan_input_places(in, o);
  const kernels::parallel_tally t = kernels::run_parallel(plan, path, in.data(), out.data(), in.size(), sizeof(In),
                                                          sizeof(Out), o.first_index, o.threads, o.parallel_threshold);
  deliver_nans(out, o, nan_inputs);
  return {t.sum.raised, t.sum.counts, o.want_non_finite && t.sum.non_finite, path, t.threads};
}

template <class Code>
simd_path run_decode(std::span<const Code> in, std::span<float> out, const decode_options& o) {
  check_sizes(in.size(), out.size(), "decode_array");
  check_format(o.source, static_cast<int>(sizeof(Code)), "decode_array");
  kernel_plan plan = make_plan(o.source, round_spec{}, operation::decode, static_cast<int>(sizeof(Code)));
  plan.flush_inputs = o.flush_subnormal_inputs;
  const simd_path path = resolve_simd_path(o.path);
  kernels::run_parallel(plan, path, in.data(), out.data(), in.size(), sizeof(Code), sizeof(float), 0, o.threads,
                        o.parallel_threshold);
  return path;
}

bool cpu_supports(simd_path p) {
  const cpu_features& cpu = host_cpu();
  switch (p) {
    case simd_path::automatic:
    case simd_path::scalar: return true;
    case simd_path::avx2: return cpu.avx2 && cpu.f16c && cpu.fma && cpu.bmi2;
    case simd_path::avx512:
      return cpu_supports(simd_path::avx2) && cpu.avx512f && cpu.avx512bw && cpu.avx512dq && cpu.avx512vl;
  }
  return false;
}

// What NUMLAB_SIMD asks for: a path (automatic when unset or empty), or why
// its value is not one.
struct environment_request {
  simd_path path = simd_path::automatic;
  std::string problem;
};

environment_request read_environment() {
  environment_request r;
  const char* env = std::getenv("NUMLAB_SIMD");
  if (env == nullptr || *env == '\0') return r;
  try {
    r.path = parse_simd_path(env);
  } catch (const std::invalid_argument& e) {
    r.problem = std::string("NUMLAB_SIMD: ") + e.what();
  }
  return r;
}

// Read once per process: the environment is the process's configuration,
// and getenv on every array call would cost more than a short array.
const environment_request& environment_simd_request() {
  static const environment_request request = read_environment();
  return request;
}

}  // namespace

std::string_view simd_path_name(simd_path p) {
  switch (p) {
    case simd_path::automatic: return "auto";
    case simd_path::scalar: return "scalar";
    case simd_path::avx2: return "avx2";
    case simd_path::avx512: return "avx512";
  }
  return "?";
}

simd_path parse_simd_path(std::string_view text) {
  for (simd_path p : {simd_path::automatic, simd_path::scalar, simd_path::avx2, simd_path::avx512}) {
    if (text == simd_path_name(p)) return p;
  }
  throw std::invalid_argument("SIMD path '" + std::string(text) + "' is not one of auto, scalar, avx2, avx512");
}

bool simd_path_supported(simd_path p) { return cpu_supports(p); }

simd_path resolve_simd_path(simd_path requested) {
  simd_path p = requested;
  if (p == simd_path::automatic) {
    const environment_request& env = environment_simd_request();
    if (!env.problem.empty()) throw std::invalid_argument(env.problem);
    p = env.path;
  }
  if (p == simd_path::automatic) {
    return cpu_supports(simd_path::avx512) ? simd_path::avx512
           : cpu_supports(simd_path::avx2) ? simd_path::avx2
                                           : simd_path::scalar;
  }
  if (!cpu_supports(p)) {
    throw std::runtime_error("array kernels: this CPU cannot run the " + std::string(simd_path_name(p)) +
                             " path (it needs " +
                             (p == simd_path::avx2 ? "AVX2, F16C, FMA and BMI2" : "AVX-512 F/BW/DQ/VL and AVX2") +
                             ")");
  }
  return p;
}

conversion_result encode_array(std::span<const float> in, std::span<std::uint8_t> out, const array_options& o) {
  return run_rounding(in, out, o, operation::encode_f32, "encode_array");
}
conversion_result encode_array(std::span<const float> in, std::span<std::uint16_t> out, const array_options& o) {
  return run_rounding(in, out, o, operation::encode_f32, "encode_array");
}
conversion_result encode_array(std::span<const float> in, std::span<std::uint32_t> out, const array_options& o) {
  return run_rounding(in, out, o, operation::encode_f32, "encode_array");
}
conversion_result encode_array(std::span<const double> in, std::span<std::uint8_t> out, const array_options& o) {
  return run_rounding(in, out, o, operation::encode_f64, "encode_array");
}
conversion_result encode_array(std::span<const double> in, std::span<std::uint16_t> out, const array_options& o) {
  return run_rounding(in, out, o, operation::encode_f64, "encode_array");
}
conversion_result encode_array(std::span<const double> in, std::span<std::uint32_t> out, const array_options& o) {
  return run_rounding(in, out, o, operation::encode_f64, "encode_array");
}

conversion_result round_array(std::span<const float> in, std::span<float> out, const array_options& o) {
  const std::less<const float*> before;
  const bool same = in.data() == out.data();
  if (!same && !in.empty() && !out.empty() && before(in.data(), out.data() + out.size()) &&
      before(out.data(), in.data() + in.size())) {
    throw std::invalid_argument("round_array: input and output overlap without being the same array");
  }
  return run_rounding(in, out, o, operation::round_f32, "round_array");
}
conversion_result round_array(std::span<const double> in, std::span<float> out, const array_options& o) {
  return run_rounding(in, out, o, operation::round_f64, "round_array");
}
conversion_result round_array_in_place(std::span<float> data, const array_options& o) {
  return run_rounding(std::span<const float>(data), data, o, operation::round_f32, "round_array_in_place");
}

simd_path decode_array(std::span<const std::uint8_t> in, std::span<float> out, const decode_options& o) {
  return run_decode(in, out, o);
}
simd_path decode_array(std::span<const std::uint16_t> in, std::span<float> out, const decode_options& o) {
  return run_decode(in, out, o);
}
simd_path decode_array(std::span<const std::uint32_t> in, std::span<float> out, const decode_options& o) {
  return run_decode(in, out, o);
}

namespace kernels {

void fill_random_words(const kernel_plan& plan, std::uint64_t first, std::uint32_t* out, std::size_t n) {
  const random_stream stream(plan.seed, plan.stream);
  if (plan.draws == random_draws::full_word) {
    stream.fill(std::span<std::uint32_t>(out, n), first);
    return;
  }
  // Half-words: the full words covering the positions once (one Philox
  // block per four words, not per position), then each position's half as
  // num::draw_word takes it.
  std::uint32_t words[4 * 64 + 1];
  for (std::size_t done = 0; done < n;) {
    const std::size_t k = n - done < 4 * 64 ? n - done : 4 * 64;
    const std::uint64_t start = first + done;
    const std::size_t word_count = static_cast<std::size_t>((start + k - 1) / 2 - start / 2 + 1);
    stream.fill(std::span<std::uint32_t>(words, word_count), start / 2);
    for (std::size_t i = 0; i < k; ++i) {
      const std::uint64_t position = start + i;
      const std::uint32_t w = words[position / 2 - start / 2];
      out[done + i] = position % 2 == 0 ? w << 16 : w & 0xFFFF0000u;
    }
    done += k;
  }
}

}  // namespace kernels
}  // namespace num
