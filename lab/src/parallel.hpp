// A minimal fork-join loop for the ops (private to lab), on OpenMP's
// persistent worker pool (the one libnum's array kernels use too). Work is
// split into `threads` fixed contiguous ranges, so which range a worker index
// computes never depends on timing and results are reproducible for a given
// thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <vector>

namespace lab::detail {

/// Calls body(worker, begin, end) for worker = 0..threads-1 over a split of
/// [0, n), the calling thread taking part. Rethrows the first exception.
template <typename Body>
void parallel_for(std::size_t threads, std::size_t n, Body&& body) {
  if (threads > n) threads = n;
  if (threads <= 1) {
    if (n > 0) body(std::size_t{0}, std::size_t{0}, n);
    return;
  }
  std::vector<std::exception_ptr> errors(threads);
  const auto count = static_cast<std::ptrdiff_t>(threads);
  // OpenMP may run fewer threads than asked; each index still gets its range.
#pragma omp parallel for schedule(static, 1) num_threads(static_cast<int>(threads))
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    const auto w = static_cast<std::size_t>(i);
    try {
      body(w, w * n / threads, (w + 1) * n / threads);
    } catch (...) {
      errors[w] = std::current_exception();
    }
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

/// Calls body(begin, end) over a split of [0, n) for elementwise work, on
/// several workers only when each gets enough elements (64K) to outweigh
/// waking a worker. Elementwise results do not depend on the split.
template <typename Body>
void parallel_elementwise(std::size_t threads, std::size_t n, Body&& body) {
  constexpr std::size_t min_per_worker = std::size_t{1} << 16;
  const std::size_t workers = std::clamp<std::size_t>(n / min_per_worker, 1, std::max<std::size_t>(threads, 1));
  parallel_for(workers, n, [&](std::size_t, std::size_t begin, std::size_t end) { body(begin, end); });
}

}  // namespace lab::detail
