// Every one of the 2^32 floats converted into fp16 and bf16 in each
// deterministic rounding mode, against the MPFR oracle.
//
// Calling MPFR 2^32 times per mode would take hours, so the oracle is asked
// where it matters: for a fixed sign and mode the result is a monotone
// function of the float's magnitude pattern, so bisection with the oracle
// finds, for every result k, the first float that rounds to k or beyond,
// and likewise where overflow starts and where tininess after rounding ends.
// Every float is then checked against the segment it lies in. Flags:
// inexact unless the float is the result itself; underflow when tiny and
// inexact. Worker threads split the floats (test_threads(): 2 on the 2-core
// CI); each test prints its wall and CPU time.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <ctime>
#include <thread>
#include <vector>

#include <libnum/convert.hpp>

#include "oracle_check.hpp"
#include "sweep_threads.hpp"

namespace {

constexpr std::uint32_t infinity_pattern = 0x7F800000;

// What the oracle says about the float with magnitude pattern p (positive or not).
oracle::expected ask(const num::format& f, std::uint32_t p, bool negative, num::rounding mode) {
  const float x = std::bit_cast<float>(p | (negative ? 0x80000000u : 0u));
  return oracle::from_value(f, x, {mode});
}

// The first pattern in [lo, hi] for which `holds` is true (hi + 1 if none);
// `holds` must be false then true as the pattern grows.
template <class Predicate>
std::uint32_t first_where(std::uint32_t lo, std::uint32_t hi, Predicate&& holds) {
  std::uint64_t a = lo, b = std::uint64_t{hi} + 1;
  while (a < b) {
    const std::uint64_t mid = (a + b) / 2;
    if (holds(static_cast<std::uint32_t>(mid))) b = mid; else a = mid + 1;
  }
  return static_cast<std::uint32_t>(a);
}

// The segments for one format, mode and sign, found with the oracle.
struct segments {
  std::vector<std::uint32_t> first_input;  // first magnitude pattern whose result magnitude is >= k
  std::uint32_t overflow_from;             // first pattern raising overflow
  std::uint32_t tiny_after_until;          // first pattern not tiny after rounding
  std::uint32_t tiny_before_until;         // pattern of 2^emin
};

segments find_segments(const num::format& f, num::rounding mode, bool negative) {
  const oracle::layout l(f);
  const num::round_spec spec{mode};
  const auto magnitude = [&](std::uint32_t p) { return ask(f, p, negative, mode).under(f, spec).bits & ~l.sign_mask; };
  const std::uint32_t top = oracle::infinity(f, false);
  segments s;
  s.first_input.assign(top + 1, 0);
  std::uint32_t previous = 0;
  for (std::uint32_t k = 1; k <= top; ++k) {
    // The float equal to result k rounds to k itself, so the boundary is at or before it.
    const std::uint32_t upper = k == top ? infinity_pattern
                                         : std::bit_cast<std::uint32_t>(static_cast<float>(oracle::decode(f, k).magnitude));
    previous = first_where(previous, upper, [&](std::uint32_t p) { return magnitude(p) >= k; });
    s.first_input[k] = previous;
  }
  const std::uint32_t max_pattern = std::bit_cast<std::uint32_t>(static_cast<float>(oracle::max_magnitude(f)));
  s.overflow_from = first_where(max_pattern, infinity_pattern - 1, [&](std::uint32_t p) {
    return any(ask(f, p, negative, mode).under(f, spec).raised, num::flags::overflow);
  });
  s.tiny_before_until = std::bit_cast<std::uint32_t>(std::ldexp(1.0f, f.emin));
  s.tiny_after_until = first_where(0, s.tiny_before_until, [&](std::uint32_t p) {
    return p != 0 && !ask(f, p, negative, mode).tiny_after;
  });
  return s;
}

struct worker_result {
  std::uint64_t cases = 0, mismatches = 0;
  std::vector<std::string> examples;
};

// Checks magnitude patterns [begin, end) of one sign; NaN patterns get the
// NaN rule (quiet, sign and top payload bits kept, invalid if signalling).
worker_result sweep(const num::format& f, num::rounding mode, bool negative, const segments& s, std::uint32_t begin,
                    std::uint64_t end) {
  worker_result out;
  const oracle::layout l(f);
  const std::uint32_t sign = negative ? l.sign_mask : 0;
  const num::round_spec after{mode}, before{mode, 32, num::tininess::before_rounding, num::overflow_mode::saturate};
  auto k = static_cast<std::uint32_t>(std::upper_bound(s.first_input.begin(), s.first_input.end(), begin) -
                                      s.first_input.begin() - 1);
  double k_value = oracle::decode(f, k).value();
  const auto fail = [&](std::uint32_t p, num::rounded got, num::rounded want, const char* variant) {
    if (++out.mismatches <= 10) {
      out.examples.push_back("float " + oracle::hex(p | (negative ? 0x80000000u : 0u)) + " " + variant + ": got " +
                             oracle::describe_result(got) + ", want " + oracle::describe_result(want));
    }
  };
  for (std::uint64_t wide = begin; wide < end; ++wide) {
    const auto p = static_cast<std::uint32_t>(wide);
    const float x = std::bit_cast<float>(p | (negative ? 0x80000000u : 0u));
    ++out.cases;
    if (p > infinity_pattern) {  // NaN
      const num::rounded want{oracle::quiet_nan_from(num::binary32, std::bit_cast<std::uint32_t>(x), f),
                              (p & 0x00400000u) == 0 ? num::flags::invalid : num::flags::none};
      const num::rounded got = num::from_float(f, x, after);
      if (got.bits != want.bits || got.raised != want.raised) fail(p, got, want, "nan");
      continue;
    }
    while (k + 1 < s.first_input.size() && s.first_input[k + 1] <= p) {
      ++k;
      k_value = oracle::decode(f, k).value();
    }
    const bool exact = p == infinity_pattern || k_value == std::fabs(static_cast<double>(x));
    const bool overflow = p != infinity_pattern && p >= s.overflow_from;
    num::flags raised = exact && !overflow ? num::flags::none : num::flags::inexact;
    if (overflow) raised |= num::flags::overflow;
    const bool tiny_after = p < s.tiny_after_until, tiny_before = p < s.tiny_before_until;
    const num::rounded want{sign | k, raised | (tiny_after && !exact ? num::flags::underflow : num::flags::none)};
    const num::rounded got = num::from_float(f, x, after);
    if (got.bits != want.bits || got.raised != want.raised) fail(p, got, want, "tiny-after ieee");
    if (tiny_before || overflow || p == infinity_pattern) {
      const bool saturates = overflow || p == infinity_pattern;
      const num::rounded want_before{
          saturates ? oracle::max_finite(f, negative) : sign | k,
          (saturates ? num::flags::overflow | num::flags::inexact : raised) |
              (tiny_before && !exact ? num::flags::underflow : num::flags::none)};
      const num::rounded got_before = num::from_float(f, x, before);
      if (got_before.bits != want_before.bits || got_before.raised != want_before.raised) {
        fail(p, got_before, want_before, "tiny-before saturate");
      }
    }
  }
  return out;
}

void check_all_floats(const num::format& f, num::rounding mode) {
  const auto start = std::chrono::steady_clock::now();
  oracle::mismatch_log log(num::format_name(f) + " from all 2^32 floats, " + std::string(num::rounding_name(mode)));
  const std::clock_t cpu_start = std::clock();
  const unsigned workers = test_threads();
  for (bool negative : {false, true}) {
    const segments s = find_segments(f, mode, negative);
    const std::uint64_t share = (std::uint64_t{1} << 31) / workers + 1;  // of the 2^31 magnitude patterns
    std::vector<worker_result> results(workers);
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        const std::uint64_t begin = std::min(w * share, std::uint64_t{1} << 31);
        const std::uint64_t end = std::min(begin + share, std::uint64_t{1} << 31);
        results[w] = sweep(f, mode, negative, s, static_cast<std::uint32_t>(begin), end);
      });
    }
    for (std::thread& t : threads) t.join();
    for (const worker_result& r : results) log.absorb(r.cases, r.mismatches, r.examples);
  }
  report_time(num::format_name(f) + " " + std::string(num::rounding_name(mode)), start, cpu_start, workers);
}

class AllFloats : public ::testing::TestWithParam<std::tuple<num::format, num::rounding>> {};

TEST_P(AllFloats, AgreeWithTheMpfrSegments) { check_all_floats(std::get<0>(GetParam()), std::get<1>(GetParam())); }

INSTANTIATE_TEST_SUITE_P(
    Fp16AndBf16, AllFloats,
    ::testing::Combine(::testing::Values(num::binary16, num::bfloat16_format),
                       ::testing::Values(num::rounding::nearest_even, num::rounding::nearest_away,
                                         num::rounding::toward_zero, num::rounding::toward_positive,
                                         num::rounding::toward_negative, num::rounding::to_odd)),
    [](const auto& info) {
      return num::format_name(std::get<0>(info.param)) + "_" + std::string(num::rounding_name(std::get<1>(info.param)));
    });

}  // namespace
