// Array kernels on several threads: contiguous chunks at multiples of 64
// elements, each with its own stochastic positions, so the result equals the
// single-threaded one bit for bit. The chunks run on OpenMP's persistent
// pool (a static schedule: chunk k is fixed by k alone, never by timing).
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "kernel_plan.hpp"

namespace num::kernels {
namespace {

tally run_on(simd_path path, const kernel_plan& plan, const chunk& c) {
  switch (path) {
    case simd_path::avx512: return run_avx512(plan, c);
    case simd_path::avx2: return run_avx2(plan, c);
    default: return run_scalar(plan, c);
  }
}

// The automatic parallel threshold. A thread of its own pays once its share
// of the work costs several times what waking and joining it costs, so the
// threshold is that multiple of the fork-join cost over the kernel's cost
// per element. Both were measured with bench/convert_bench on the development
// host (2-core AMD EPYC KVM guest, AVX-512; bench/RESULTS.md "Issue 13
// (session 7)" for fp32 inputs, "Session 11 — array kernels" for fp64): a
// 256-element call forced onto two threads cost the caller 2.3 us more CPU
// than on one thread when the second core was free, and up to 6 ms when it
// was busy (libgomp's barrier spins until the worker runs); the costs per
// element are one thread's, in cache (16K elements), on the AVX-512 path.
// The scalar and AVX2 paths are slower per element, so there the same
// threshold errs toward staying on one thread.
constexpr double fork_join_ns = 2300;
constexpr double worth_forks = 8;

/// What one element costs a kernel, by input type.
struct element_costs {
  double hardware_conversion_ns;  ///< fp16_convert, bf16_nearest, f64_nearest_16bit; decoding
  double stochastic_16bit_ns;     ///< a Philox4x32-10 word + the 16-bit rounding
  double lane_body_ns;            ///< the general lane body (fp8 E4M3 nearest-even)
  double lane_stochastic_ns;      ///< the general lane body with a Philox word
};
constexpr element_costs fp32_costs{0.036, 0.52, 0.79, 0.91};
// fp64 inputs: twice the bytes, the 16-bit shortcuts and the lane body on
// half vectors (a round-to-odd fp32 first for 16-bit nearest-even). Each is
// fp32's cost above times the fp64 / fp32 ratio measured in one run at 16K
// elements on AVX-512 (session 11: 3.6x, 3.4x; the lane body's since it
// runs on half vectors, session 12: 2.2x, 2.0x), so that both input types
// keep the fp32 constants' calibration against fork_join_ns.
constexpr element_costs fp64_costs{0.13, 1.78, 1.72, 1.86};

double element_cost_ns(const kernel_plan& plan) {
  const bool f64 = plan.op == operation::encode_f64 || plan.op == operation::round_f64;
  const element_costs& c = f64 ? fp64_costs : fp32_costs;
  if (plan.op == operation::decode) return c.hardware_conversion_ns;
  switch (plan.shortcut) {
    case hardware_shortcut::fp16_convert:
    case hardware_shortcut::bf16_nearest:
    case hardware_shortcut::f64_nearest_16bit: return c.hardware_conversion_ns;
    case hardware_shortcut::stochastic_16bit: return c.stochastic_16bit_ns;
    case hardware_shortcut::none: break;
  }
  return plan.spec.mode == rounding::stochastic ? c.lane_stochastic_ns : c.lane_body_ns;
}

std::size_t automatic_threshold(const kernel_plan& plan) {
  return static_cast<std::size_t>(worth_forks * fork_join_ns / element_cost_ns(plan));
}

}  // namespace

parallel_tally run_parallel(const kernel_plan& plan, simd_path path, const void* in, void* out, std::size_t n,
                            std::size_t in_stride, std::size_t out_stride, std::uint64_t first_index,
                            unsigned threads, std::optional<std::size_t> parallel_threshold) {
  constexpr std::size_t granule = 64;
  // omp_get_max_threads reads OpenMP's settings; no system call per call.
  const std::size_t most = threads == 0 ? static_cast<std::size_t>(std::max(1, omp_get_max_threads())) : threads;
  const std::size_t threshold = std::max(parallel_threshold.value_or(automatic_threshold(plan)), granule);
  const std::size_t workers = std::min(most, n / threshold);
  if (workers <= 1) return {run_on(path, plan, {in, out, n, first_index}), 1};

  const std::size_t per_worker = ((n + workers - 1) / workers + granule - 1) / granule * granule;
  auto piece = [&](std::size_t k) {
    const std::size_t begin = k * per_worker < n ? k * per_worker : n;
    const std::size_t end = begin + per_worker < n ? begin + per_worker : n;
    return chunk{static_cast<const unsigned char*>(in) + begin * in_stride,
                 static_cast<unsigned char*>(out) + begin * out_stride, end - begin, first_index + begin};
  };
  std::vector<tally> tallies(workers);
  const auto count = static_cast<std::ptrdiff_t>(workers);
  int team = 1;
#pragma omp parallel num_threads(static_cast<int>(workers))
  {
#pragma omp single nowait
    team = omp_get_num_threads();
#pragma omp for schedule(static)
    for (std::ptrdiff_t k = 0; k < count; ++k) {
      tallies[static_cast<std::size_t>(k)] = run_on(path, plan, piece(static_cast<std::size_t>(k)));
    }
  }
  parallel_tally total;
  for (const tally& t : tallies) total.sum += t;
  total.threads = static_cast<unsigned>(team);
  return total;
}

}  // namespace num::kernels
