// Worker threads and timing for the exhaustive sweeps in slow/.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>

/// Worker threads for a sweep: one per hardware thread, at least 2 (the
/// 2-core CI gets 2).
inline unsigned test_threads() { return std::max(2u, std::thread::hardware_concurrency()); }

/// Prints a sweep's wall time and process CPU time (CPU time / 2 is the wall
/// time on two free cores).
inline void report_time(const std::string& what, std::chrono::steady_clock::time_point start, std::clock_t cpu_start,
                        unsigned workers) {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  std::printf("[ time     ] %s: %.1f s wall on %u threads, %.1f s CPU\n", what.c_str(), wall, workers, cpu);
}
