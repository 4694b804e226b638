// What a fresh output array costs a rounding call: num::round_array of 16M
// fp32 values to fp16 (nearest-even, one thread) into a reused output, as
// convert_bench times it, beside the same call into an output allocated anew
// in every iteration, as `numlab.round(x, "fp16")` in Python must do (its
// result is a new NumPy array). A 64 MiB allocation is a fresh mmap: the
// kernel zeroes every page on the first write, inside the rounding call.
// Two allocating variants: plain `new float[n]` (4 KiB pages unless THP is
// "always"), and 2 MiB-aligned memory with madvise(MADV_HUGEPAGE), what
// NumPy (>= 1.22 on Linux) does for every array of 4 MiB or more.
// bench/python_round_bench.py runs this beside the Python calls.
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <vector>

#include "libnum/array.hpp"
#include "realistic_data.hpp"

namespace {

constexpr std::size_t n = bench::realistic_size;

num::array_options fp16_nearest_even() {
  num::array_options o;
  o.target = num::binary16;
  o.threads = 1;
  return o;
}

void round_into(float* out) {
  const std::vector<float>& in = bench::realistic_data();
  num::round_array(std::span<const float>(in), std::span<float>(out, n), fp16_nearest_even());
  benchmark::DoNotOptimize(out);
  benchmark::ClobberMemory();
}

void BM_round_array_reused_output(benchmark::State& state) {
  std::vector<float> out(n);
  for (auto _ : state) round_into(out.data());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void BM_round_array_new_output(benchmark::State& state) {
  for (auto _ : state) {
    const std::unique_ptr<float[]> out(new float[n]);  // uninitialised, as np.empty
    round_into(out.get());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

struct free_deleter {
  void operator()(void* p) const { std::free(p); }
};

void BM_round_array_new_output_hugepages(benchmark::State& state) {
  constexpr std::size_t huge_page = std::size_t{2} << 20;
  for (auto _ : state) {
    void* memory = std::aligned_alloc(huge_page, n * sizeof(float));
    if (memory == nullptr) throw std::bad_alloc();
    const std::unique_ptr<void, free_deleter> owner(memory);
    madvise(memory, n * sizeof(float), MADV_HUGEPAGE);  // a hint: ignored where THP is off
    round_into(static_cast<float*>(memory));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

}  // namespace

BENCHMARK(BM_round_array_reused_output)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_round_array_new_output)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_round_array_new_output_hugepages)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
