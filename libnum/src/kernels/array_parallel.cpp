// Array kernels on several threads: contiguous chunks at multiples of 64
// elements, each with its own stochastic positions, so the result equals the
// single-threaded one bit for bit.
#include <thread>
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

}  // namespace

tally run_parallel(const kernel_plan& plan, simd_path path, const void* in, void* out, std::size_t n,
                   std::size_t in_stride, std::size_t out_stride, std::uint64_t first_index, unsigned threads,
                   std::size_t parallel_threshold) {
  unsigned workers = threads == 0 ? std::thread::hardware_concurrency() : threads;
  if (workers == 0) workers = 1;
  if (workers == 1 || n < parallel_threshold || n < 2 * 64) return run_on(path, plan, {in, out, n, first_index});

  constexpr std::size_t granule = 64;
  const std::size_t per_worker = ((n + workers - 1) / workers + granule - 1) / granule * granule;
  auto piece = [&](std::size_t k) {
    const std::size_t begin = k * per_worker < n ? k * per_worker : n;
    const std::size_t end = begin + per_worker < n ? begin + per_worker : n;
    return chunk{static_cast<const unsigned char*>(in) + begin * in_stride,
                 static_cast<unsigned char*>(out) + begin * out_stride, end - begin, first_index + begin};
  };
  std::vector<tally> tallies(workers);
  {
    std::vector<std::jthread> pool;
    pool.reserve(workers - 1);
    for (unsigned k = 1; k < workers; ++k) {
      pool.emplace_back([&, k] { tallies[k] = run_on(path, plan, piece(k)); });
    }
    tallies[0] = run_on(path, plan, piece(0));
  }  // joins
  tally total;
  for (const tally& t : tallies) total += t;
  return total;
}

}  // namespace num::kernels
