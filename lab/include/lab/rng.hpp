// A small deterministic random generator (xoshiro256**, seeded by splitmix64).
// Written out rather than taken from <random> because the standard
// distributions are implementation-defined: numlab promises bit-identical runs
// for a fixed seed, and checkpoints store the generator state as four words.
#pragma once

#include <array>
#include <cstdint>

namespace lab {

/// xoshiro256** generator; a plain value type whose state can be saved.
class rng {
 public:
  /// Seeds the four state words from `seed` and `stream` through splitmix64,
  /// so (seed, stream) pairs give independent sequences.
  explicit rng(std::uint64_t seed = 0, std::uint64_t stream = 0);

  /// Next 64 random bits.
  std::uint64_t next_u64();
  /// Uniform float in [0, 1) with 24 random bits.
  float uniform();
  /// Uniform float in [lo, hi).
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
  /// Standard normal deviate (Box-Muller on two uniforms, no cached spare).
  float normal();
  /// Uniform integer in [0, n) for n > 0 (unbiased, by rejection).
  std::uint64_t below(std::uint64_t n);

  /// The generator state, for checkpoints.
  [[nodiscard]] const std::array<std::uint64_t, 4>& state() const { return s_; }
  /// Restores a state taken from state().
  void set_state(const std::array<std::uint64_t, 4>& s) { s_ = s; }

 private:
  std::array<std::uint64_t, 4> s_{};
};

}  // namespace lab
