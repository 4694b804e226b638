// A minimal fork-join loop for the ops (private to lab). Work is split into
// `threads` fixed contiguous ranges, so which thread computes what never
// depends on timing and results are reproducible for a given thread count.
#pragma once

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

}  // namespace lab::detail
