// A minimal fork-join loop for the ops (private to lab). Work is split into
// `threads` fixed contiguous ranges, so which thread computes what never
// depends on timing and results are reproducible for a given thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace lab::detail {

/// Calls body(worker, begin, end) for worker = 0..threads-1 over a split of
/// [0, n); worker 0 runs on the calling thread. Rethrows the first exception.
template <typename Body>
void parallel_for(std::size_t threads, std::size_t n, Body&& body) {
  if (threads > n) threads = n;
  if (threads <= 1) {
    if (n > 0) body(std::size_t{0}, std::size_t{0}, n);
    return;
  }
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  auto run = [&](std::size_t w) {
    try {
      body(w, w * n / threads, (w + 1) * n / threads);
    } catch (...) {
      errors[w] = std::current_exception();
    }
  };
  for (std::size_t w = 1; w < threads; ++w) workers.emplace_back(run, w);
  run(0);
  for (auto& t : workers) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

/// Calls body(begin, end) over a split of [0, n) for elementwise work, on
/// several workers only when each gets enough elements (64K) to outweigh
/// starting a thread. Elementwise results do not depend on the split.
template <typename Body>
void parallel_elementwise(std::size_t threads, std::size_t n, Body&& body) {
  constexpr std::size_t min_per_worker = std::size_t{1} << 16;
  const std::size_t workers = std::clamp<std::size_t>(n / min_per_worker, 1, std::max<std::size_t>(threads, 1));
  parallel_for(workers, n, [&](std::size_t, std::size_t begin, std::size_t end) { body(begin, end); });
}

}  // namespace lab::detail
