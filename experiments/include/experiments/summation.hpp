// Summation loops in an emulated format, shared by the swamping-sum and
// harmonic experiments. Every operation rounds in the calling thread's
// num::environment, so the caller picks the rounding mode with
// num::scoped_environment.
#pragma once

#include <cstdint>
#include <string>

#include <libnum/environment.hpp>
#include <libnum/rounding.hpp>

namespace numlab::experiments {

/// An environment rounding with `mode`; stochastic rounding uses `random_bits`
/// bits drawn from the Philox stream (seed, stream) from its start.
num::environment rounding_environment(num::rounding mode, int random_bits = 32,
                                      std::uint64_t seed = 0, std::uint64_t stream = 0);

/// Says how `runs` stochastic runs draw their random words: "run k (k = 0..runs-1)
/// draws from Philox4x32-10 with seed `seed` and stream k".
std::string stochastic_runs_note(std::uint64_t seed, int runs);

/// Kahan's compensated sum in T: every operation is one rounded operation
/// of T, the compensation carries the low part each addition lost.
template <class T>
class compensated_sum {
 public:
  void add(T x) {
    const T y = x - compensation_;
    const T t = sum_ + y;
    compensation_ = (t - sum_) - y;
    sum_ = t;
  }
  T value() const { return sum_; }

 private:
  T sum_{};
  T compensation_{};
};

/// A plain running sum and where it stopped growing.
template <class T>
struct sum_trace {
  T sum{};
  std::int64_t terms = 0;        ///< terms added (including the first one that did nothing)
  std::int64_t last_change = 0;  ///< index of the last term that changed the sum (0: none did)
  std::int64_t first_stall = 0;  ///< index of the first nonzero term that left the sum unchanged (0: none)
};

/// 0 + term(1) + term(2) + ... + term(count), each addition rounded in T.
/// With `stop_at_stall` the loop ends at the first nonzero term that leaves
/// the sum unchanged: under a deterministic monotone rounding, a sum that has
/// swallowed a term swallows every later term no larger than it.
template <class T, class TermOf>
sum_trace<T> running_sum(TermOf term_of, std::int64_t count, bool stop_at_stall = false) {
  sum_trace<T> trace;
  for (std::int64_t n = 1; n <= count; ++n) {
    const T term = term_of(n);
    const T next = trace.sum + term;
    trace.terms = n;
    if (next.bits() != trace.sum.bits()) {
      trace.last_change = n;
    } else if (trace.first_stall == 0 && term.bits() != T{}.bits()) {
      trace.first_stall = n;
      if (stop_at_stall) break;
    }
    trace.sum = next;
  }
  return trace;
}

/// The same sum with Kahan compensation.
template <class T, class TermOf>
T compensated_running_sum(TermOf term_of, std::int64_t count) {
  compensated_sum<T> sum;
  for (std::int64_t n = 1; n <= count; ++n) sum.add(term_of(n));
  return sum.value();
}

}  // namespace numlab::experiments
