// Comparing libnum with an oracle over many cases: every rounding mode (with
// varied stochastic words and widths), every tininess and overflow behaviour,
// and a log that counts the cases and reports the first mismatches.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <libnum/format.hpp>
#include <libnum/philox.hpp>
#include <libnum/rounding.hpp>

#include "mpfr_oracle.hpp"
#include "operation_oracle.hpp"

namespace oracle {

inline constexpr num::tininess all_tininess[] = {num::tininess::after_rounding, num::tininess::before_rounding};
inline constexpr num::overflow_mode all_overflow_modes[] = {num::overflow_mode::ieee, num::overflow_mode::saturate,
                                                           num::overflow_mode::nan};

/// The seven rounding modes for case number `index`; the stochastic one
/// draws its word from a fixed Philox stream at `index` and cycles through
/// widths r from 1 to 32.
inline std::array<mode_choice, 7> modes_for_case(std::uint64_t index) {
  static constexpr int widths[] = {32, 1, 2, 3, 5, 8, 13, 24, 31};
  std::array<mode_choice, 7> modes{};
  for (std::size_t i = 0; i < modes.size(); ++i) modes[i].mode = num::all_roundings[i];
  modes[6].random_bits = widths[index % std::size(widths)];
  modes[6].word = num::random_stream(0x5eed, 7).word(index);
  return modes;
}

inline num::round_spec spec_for(const mode_choice& m, num::tininess tiny, num::overflow_mode overflow) {
  return {m.mode, m.random_bits, tiny, overflow};
}

inline std::string hex(std::uint64_t v) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(v));
  return buffer;
}

inline std::string describe_spec(const num::round_spec& s, std::uint32_t word) {
  std::string text = std::string(num::rounding_name(s.mode));
  if (s.mode == num::rounding::stochastic) text += "(r=" + std::to_string(s.random_bits) + ",R=" + hex(word) + ")";
  text += s.tiny == num::tininess::before_rounding ? " tiny-before" : " tiny-after";
  constexpr const char* overflow_names[] = {"ieee", "saturate", "nan"};
  return text + " overflow-" + overflow_names[static_cast<int>(s.overflow)];
}

inline std::string describe_result(num::rounded r) { return hex(r.bits) + " {" + num::flags_to_string(r.raised) + "}"; }

/// Counts cases and mismatches; reports the first few mismatches and the
/// totals as a test failure when it goes out of scope.
class mismatch_log {
 public:
  explicit mismatch_log(std::string what) : what_(std::move(what)) {}
  mismatch_log(const mismatch_log&) = delete;
  mismatch_log& operator=(const mismatch_log&) = delete;
  ~mismatch_log() {
    std::printf("[ oracle   ] %s: %llu cases, %llu mismatches\n", what_.c_str(),
                static_cast<unsigned long long>(cases_), static_cast<unsigned long long>(mismatches_));
    if (mismatches_ == 0 && cases_ > 0) return;
    std::string text = what_ + ": " + std::to_string(mismatches_) + " of " + std::to_string(cases_) + " cases differ";
    for (const std::string& e : examples_) text += "\n  " + e;
    ADD_FAILURE() << text;
  }

  /// Records one case; `describe()` is called only for a mismatch.
  template <class Describe>
  void check(bool agrees, Describe&& describe) {
    ++cases_;
    if (agrees) return;
    if (++mismatches_ <= 12) examples_.push_back(describe());
  }
  /// Compares an encoded result with its flags.
  template <class Describe>
  void check(num::rounded got, num::rounded want, Describe&& describe) {
    check(got.bits == want.bits && got.raised == want.raised,
          [&] { return describe() + ": got " + describe_result(got) + ", want " + describe_result(want); });
  }
  /// Adds counts kept elsewhere (by a worker thread).
  void absorb(std::uint64_t cases, std::uint64_t mismatches, const std::vector<std::string>& examples) {
    cases_ += cases;
    mismatches_ += mismatches;
    for (const std::string& e : examples) {
      if (examples_.size() < 12) examples_.push_back(e);
    }
  }
  std::uint64_t cases() const { return cases_; }

 private:
  std::string what_;
  std::uint64_t cases_ = 0, mismatches_ = 0;
  std::vector<std::string> examples_;
};

/// Whether the expected result depends on the tininess or overflow behaviour.
inline bool depends_on_variant(const num::format& f, const expected& want) {
  return want.converted_infinity ||
         (!want.fixed && (want.tiny_before != want.tiny_after || want.magnitude > max_magnitude(f)));
}

/// Checks libnum against the oracle's expectation in mode m: under every
/// tininess and overflow behaviour where the expectation depends on them;
/// elsewhere under the default one and one more, rotating with `index`, so
/// that a behaviour leaking into results it must not touch is still seen.
/// `libnum(spec, word)` computes libnum's result.
template <class Libnum, class Describe>
void check_variants(mismatch_log& log, const num::format& f, const mode_choice& m, const expected& want,
                    Libnum&& libnum, Describe&& describe, std::uint64_t index = 0) {
  const bool all = depends_on_variant(f, want);
  int variant = 0;
  const int rotating = 1 + static_cast<int>((index + static_cast<std::uint64_t>(m.mode)) % 5);
  for (num::tininess tiny : all_tininess) {
    for (num::overflow_mode overflow : all_overflow_modes) {
      const int this_variant = variant++;
      if (!all && this_variant != 0 && this_variant != rotating) continue;
      const num::round_spec spec = spec_for(m, tiny, overflow);
      log.check(libnum(spec, m.word), want.under(f, spec),
                [&] { return describe() + " [" + describe_spec(spec, m.word) + "]"; });
    }
  }
}

}  // namespace oracle
