// Tensor statistics: kernel dispatch, the portable kernel (which also does
// stochastic rounding), 16-bit storage, and turning slots into tensor_stats.
#include "libnum/tensor_stats.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "libnum/codec.hpp"
#include "stats_kernel.hpp"

namespace num {
namespace detail {

std::uint32_t stochastic_slot(std::uint32_t bits, std::uint32_t word, const stats_layout& layout,
                              const stats_plan& plan) {
  const std::uint32_t a = bits & fp32_abs_mask;
  if (a == 0) return layout.zero_slot;
  if (a >= fp32_inf_bits) return a == fp32_inf_bits ? layout.inf_slot : layout.nan_slot;
  const format& f = plan.target();
  const int r = plan.spec().random_bits;
  const std::uint32_t field = a >> 23;
  const std::uint32_t significand = field != 0 ? (a & 0x7FFFFFu) | 0x800000u : a;
  const int unit = field != 0 ? static_cast<int>(field) - 150 : -149;  // |x| = significand * 2^unit
  const int lead = unit + std::bit_width(significand) - 1;
  const int quantum = lead >= f.emin ? lead - f.fraction_bits() : plan.lowest_binade();
  const int dropped = quantum - unit;  // >= 0: every target grid is coarser than fp32's
  std::uint64_t n = significand;
  if (dropped > 0) {
    const std::uint64_t kept = dropped >= 32 ? 0 : significand >> dropped;
    const std::uint64_t fraction = dropped >= 32 ? significand : significand & ((std::uint64_t{1} << dropped) - 1);
    // floor(f * 2^r) for the discarded fraction f = fraction / 2^dropped.
    const std::uint64_t top = dropped >= 64 ? 0 : (fraction << r) >> dropped;
    n = kept + (top + random_draw(word, r) >= (std::uint64_t{1} << r) ? 1 : 0);
  }
  if (n == 0) return 0;
  const int length = std::bit_width(n);
  const int result_lead = quantum + length - 1;
  const std::uint64_t normalized = length <= f.precision ? n << (f.precision - length) : n >> (length - f.precision);
  if (result_lead > f.emax || (result_lead == f.emax && normalized > f.max_significand())) {
    return layout.overflow_slot;
  }
  return static_cast<std::uint32_t>(1 + result_lead - plan.lowest_binade());
}

void accumulate_portable(std::span<const float> values, const stats_plan& plan, const stats_options& options,
                         stats_accumulator& acc) {
  const stats_layout layout(plan);
  const bool stochastic = plan.spec().mode == rounding::stochastic;
  std::uint64_t cached_block = ~std::uint64_t{0};
  std::array<std::uint32_t, 4> words{};
  for (const float x : values) {
    const auto bits = std::bit_cast<std::uint32_t>(x);
    std::uint32_t slot;
    if (stochastic) {
      const std::uint64_t index = options.first_index + acc.position;
      if (index / 4 != cached_block) {
        cached_block = index / 4;
        words = options.random.block(cached_block);
      }
      slot = stochastic_slot(bits, words[index % 4], layout, plan);
    } else {
      slot = deterministic_slot(bits, layout, plan);
    }
    ++acc.slots[slot];
    accumulate_moments(bits, acc.position % stats_lanes, acc);
    ++acc.position;
  }
}

}  // namespace detail

namespace {

stats_kernel resolve(stats_kernel requested) {
  if (requested != stats_kernel::automatic) {
    if (!stats_kernel_available(requested)) {
      throw std::invalid_argument("statistics kernel not supported by this CPU");
    }
    return requested;
  }
  if (stats_kernel_available(stats_kernel::avx512)) return stats_kernel::avx512;
  if (stats_kernel_available(stats_kernel::avx2)) return stats_kernel::avx2;
  return stats_kernel::portable;
}

void accumulate(std::span<const float> values, const stats_plan& plan, const stats_options& options,
                detail::stats_accumulator& acc) {
  stats_kernel kernel = resolve(options.kernel);
  if (options.kernel == stats_kernel::automatic && kernel == stats_kernel::avx512 &&
      values.size() < detail::avx512_minimum_length(plan)) {
    kernel = stats_kernel::portable;
  }
  if (kernel == stats_kernel::portable || plan.spec().mode == rounding::stochastic) {
    detail::accumulate_portable(values, plan, options, acc);
    return;
  }
  // The SIMD kernels start at lane 0 and take whole groups of 16.
  const std::size_t head = std::min<std::size_t>(values.size(), (detail::stats_lanes - acc.position % detail::stats_lanes) % detail::stats_lanes);
  detail::accumulate_portable(values.first(head), plan, options, acc);
  const std::span<const float> rest = values.subspan(head);
  const std::size_t body = rest.size() / detail::stats_lanes * detail::stats_lanes;
  if (kernel == stats_kernel::avx512) {
    detail::accumulate_avx512(rest.first(body), plan, acc);
  } else {
    detail::accumulate_avx2(rest.first(body), plan, acc);
  }
  detail::accumulate_portable(rest.subspan(body), plan, options, acc);
}

float float_of(std::uint32_t bits) { return std::bit_cast<float>(bits); }

tensor_stats finish(const detail::stats_accumulator& acc, const stats_plan& plan) {
  const detail::stats_layout layout(plan);
  tensor_stats s;
  s.target = plan.target();
  s.spec = plan.spec();
  for (std::size_t i = 0; i < plan.bin_count(); ++i) s.histogram[i] = acc.slots[i];
  for (std::uint32_t i = 0; i <= layout.inf_slot; ++i) s.count += acc.slots[i];
  s.zeros = acc.slots[layout.zero_slot];
  s.nans = acc.slots[layout.nan_slot];
  s.infs = acc.slots[layout.inf_slot];
  s.underflows = acc.slots[0];
  s.overflows = acc.slots[layout.overflow_slot];
  for (std::uint32_t i = 1; i <= layout.subnormal_binades; ++i) s.subnormals += acc.slots[i];
  for (std::size_t lane = 0; lane < detail::stats_lanes; ++lane) {
    s.sum += acc.sum[lane];
    s.sum_squares += acc.sum_squares[lane];
  }
  if (s.finite() > 0) {
    s.max_abs = float_of(acc.max_abs);
    s.min_nonzero_abs = acc.min_nonzero_abs == detail::fp32_inf_bits ? 0.0f : float_of(acc.min_nonzero_abs);
    s.min_abs = s.zeros > 0 ? 0.0f : s.min_nonzero_abs;
  }
  return s;
}

// Exact widening of 16-bit encodings to fp32 (NaNs stay NaNs; payloads are irrelevant here).
void decode_block(std::span<const std::uint16_t> in, const format& storage, float* out) {
  if (storage == bfloat16_format) {
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = float_of(std::uint32_t{in[i]} << 16);
  } else if (storage == binary16) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      const std::uint32_t h = in[i];
      const std::uint32_t sign = (h & 0x8000u) << 16;
      const std::uint32_t exponent = (h >> 10) & 0x1Fu;
      const std::uint32_t fraction = h & 0x3FFu;
      float magnitude;
      if (exponent == 0) {
        magnitude = static_cast<float>(fraction) * 0x1p-24f;  // exact: at most 10 bits
      } else if (exponent == 31) {
        magnitude = float_of(detail::fp32_inf_bits | (fraction << 13));
      } else {
        magnitude = float_of(((exponent + 112) << 23) | (fraction << 13));
      }
      out[i] = float_of(sign | std::bit_cast<std::uint32_t>(magnitude));
    }
  } else {
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = to_float(storage, in[i]);
  }
}

}  // namespace

bool stats_kernel_available(stats_kernel kernel) {
  switch (kernel) {
    case stats_kernel::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    case stats_kernel::avx2: return __builtin_cpu_supports("avx2");
    default: return true;
  }
}

tensor_stats compute_stats(std::span<const float> values, const stats_plan& plan, const stats_options& options) {
  detail::stats_accumulator acc;
  accumulate(values, plan, options, acc);
  return finish(acc, plan);
}

tensor_stats compute_stats(std::span<const std::uint16_t> encodings, const format& storage, const stats_plan& plan,
                           const stats_options& options) {
  if (storage.total_bits() > 16) {
    throw std::invalid_argument("16-bit statistics: storage format " + format_name(storage) + " has " +
                                std::to_string(storage.total_bits()) + " bits");
  }
  constexpr std::size_t block = 4096;  // a multiple of the lane count: lanes stay aligned
  std::array<float, block> decoded;
  detail::stats_accumulator acc;
  for (std::size_t first = 0; first < encodings.size(); first += block) {
    const auto part = encodings.subspan(first, std::min(block, encodings.size() - first));
    decode_block(part, storage, decoded.data());
    accumulate(std::span<const float>(decoded.data(), part.size()), plan, options, acc);
  }
  return finish(acc, plan);
}

tensor_stats compute_stats(std::span<const float> values, const format& target, const round_spec& spec,
                           const stats_options& options) {
  return compute_stats(values, stats_plan(target, spec), options);
}

double tensor_stats::mean() const { return finite() == 0 ? 0.0 : sum / static_cast<double>(finite()); }

double tensor_stats::rms() const {
  return finite() == 0 ? 0.0 : std::sqrt(sum_squares / static_cast<double>(finite()));
}

std::size_t tensor_stats::bin_count() const {
  return static_cast<std::size_t>(target.emax - lowest_binade() + 3);
}

std::uint64_t tensor_stats::binade(int k) const {
  if (k < lowest_binade() || k > target.emax) return 0;
  return histogram[static_cast<std::size_t>(1 + k - lowest_binade())];
}

void merge_into(tensor_stats& total, const tensor_stats& part) {
  if (total.count == 0) {
    total = part;
    return;
  }
  if (part.count == 0) return;
  if (total.target != part.target || total.spec != part.spec) {
    throw std::invalid_argument("merging statistics of different targets: " + format_name(total.target) + "/" +
                                std::string(rounding_name(total.spec.mode)) + " and " +
                                format_name(part.target) + "/" + std::string(rounding_name(part.spec.mode)));
  }
  if (part.finite() > 0) {
    if (total.finite() == 0) {
      total.min_abs = part.min_abs;
      total.max_abs = part.max_abs;
    } else {
      total.min_abs = std::min(total.min_abs, part.min_abs);
      total.max_abs = std::max(total.max_abs, part.max_abs);
    }
    if (total.min_nonzero_abs == 0 || (part.min_nonzero_abs != 0 && part.min_nonzero_abs < total.min_nonzero_abs)) {
      total.min_nonzero_abs = part.min_nonzero_abs;
    }
  }
  total.count += part.count;
  total.zeros += part.zeros;
  total.subnormals += part.subnormals;
  total.underflows += part.underflows;
  total.overflows += part.overflows;
  total.nans += part.nans;
  total.infs += part.infs;
  total.sum += part.sum;
  total.sum_squares += part.sum_squares;
  for (std::size_t i = 0; i < total.histogram.size(); ++i) total.histogram[i] += part.histogram[i];
}

tensor_stats merge(tensor_stats a, const tensor_stats& b) {
  merge_into(a, b);
  return a;
}

}  // namespace num
