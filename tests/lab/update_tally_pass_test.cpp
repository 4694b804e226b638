// precision_hook::update's tally pass (lab/src/fused_loops.hpp,
// update_pass): the counts of each element and the two double sums in the
// documented order (element i in lane i mod 8, each lane in element order,
// the lanes added as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))),
// recomputed here element by element from the weights before and after.
// Run through the AVX2 clone where the CPU has it, and again through the
// baseline loop under NUMLAB_SIMD=scalar (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <libnum/codec.hpp>
#include <libnum/convert.hpp>

#include "lab/layer.hpp"
#include "lab/precision_hook.hpp"

namespace lab {
namespace {

struct expected_tally {
  std::uint64_t nonzero_delta = 0, unchanged = 0, swamped = 0;
  double requested = 0.0, applied = 0.0;
  // The same sums in plain element order (one running sum), to show that
  // the inputs tell the two orders apart.
  double requested_in_order = 0.0, applied_in_order = 0.0;
};

expected_tally tally_of(const std::vector<float>& before, const std::vector<float>& after,
                        const std::vector<float>& direction, float scale) {
  expected_tally e;
  std::array<double, 8> requested{}, applied{};
  for (std::size_t i = 0; i < before.size(); ++i) {
    const double asked = static_cast<double>(scale) * static_cast<double>(direction[i]);
    const bool moved = asked != 0.0, same = after[i] == before[i];
    e.nonzero_delta += moved ? 1 : 0;
    e.unchanged += same ? 1 : 0;
    e.swamped += moved && same ? 1 : 0;
    const double sign = asked > 0.0 ? 1.0 : (asked < 0.0 ? -1.0 : 0.0);
    const double moved_by = (static_cast<double>(after[i]) - static_cast<double>(before[i])) * sign;
    requested[i % 8] += std::fabs(asked);
    applied[i % 8] += moved_by;
    e.requested_in_order += std::fabs(asked);
    e.applied_in_order += moved_by;
  }
  const auto tree = [](const std::array<double, 8>& l) {
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
  };
  e.requested = tree(requested);
  e.applied = tree(applied);
  return e;
}

// Weights of random sign over 20 binades and directions over 40, a tenth
// of them zero: many deltas are swamped (or partly so) by the weight, and
// the sums' terms differ enough in size that the order of their additions
// shows in the last bits.
void random_update(std::size_t n, std::uint32_t seed, std::vector<float>& weight, std::vector<float>& direction) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> weight_exponent(-10, 10), direction_exponent(-30, 10), coin(0, 1), tenth(0, 9);
  weight.resize(n);
  direction.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    weight[i] = std::ldexp(mantissa(gen), weight_exponent(gen)) * (coin(gen) != 0 ? 1.0f : -1.0f);
    direction[i] =
        tenth(gen) == 0 ? 0.0f : std::ldexp(mantissa(gen), direction_exponent(gen)) * (coin(gen) != 0 ? 1.0f : -1.0f);
  }
}

constexpr std::size_t lengths[] = {1, 7, 8, 9, 15, 17, 64, 1001, 40000};

void expect_tally(const update_tally& got, const expected_tally& want, std::size_t n, const char* what) {
  EXPECT_EQ(got.elements, n) << what << " n " << n;
  EXPECT_EQ(got.nonzero_delta, want.nonzero_delta) << what << " n " << n;
  EXPECT_EQ(got.unchanged, want.unchanged) << what << " n " << n;
  EXPECT_EQ(got.swamped, want.swamped) << what << " n " << n;
  EXPECT_EQ(std::bit_cast<std::uint64_t>(got.requested), std::bit_cast<std::uint64_t>(want.requested))
      << what << " n " << n << ": " << got.requested << " vs " << want.requested;
  EXPECT_EQ(std::bit_cast<std::uint64_t>(got.applied), std::bit_cast<std::uint64_t>(want.applied))
      << what << " n " << n << ": " << got.applied << " vs " << want.applied;
}

TEST(UpdateTallyPass, Fp32MastersAreWrittenByFmaAndTalliedInEightLanes) {
  std::size_t order_shows = 0;
  for (const std::size_t n : lengths) {
    parameter p = make_parameter("fc", "dense", op_class::matmul, "kernel", {n}, true);
    std::vector<float> before, direction;
    random_update(n, static_cast<std::uint32_t>(n), before, direction);
    std::copy(before.begin(), before.end(), p.value.values().begin());
    const float scale = -0.37f;
    precision_hook hook(precision_preset("fp16-mixed"), 1);
    hook.update(p.site(), p.value.values(), {direction, scale});
    std::vector<float> after(n);
    for (std::size_t i = 0; i < n; ++i) {
      after[i] = std::fma(scale, direction[i], before[i]);  // apply_step_fp32's write
      ASSERT_EQ(std::bit_cast<std::uint32_t>(p.value[i]), std::bit_cast<std::uint32_t>(after[i])) << "[" << i << "]";
    }
    const expected_tally want = tally_of(before, after, direction, scale);
    expect_tally(hook.tally().updates, want, n, "fp16-mixed");
    order_shows += want.requested != want.requested_in_order || want.applied != want.applied_in_order ? 1 : 0;
  }
  EXPECT_GT(order_shows, 0u);  // the inputs tell the lane order from plain element order
}

TEST(UpdateTallyPass, StoredWeightsAreTalliedAgainstWhatTheRoundingWrote) {
  // Pure bf16: libnum rounds w + s * d into bf16; the tally compares each
  // written value (read back here) with the one it replaced. A second update
  // adds its sums to the first's.
  for (const std::size_t n : lengths) {
    parameter p = make_parameter("fc", "dense", op_class::matmul, "kernel", {n}, true);
    std::vector<float> before, direction;
    random_update(n, static_cast<std::uint32_t>(n) + 7, before, direction);
    for (auto& w : before) w = num::to_float(num::bfloat16_format, num::from_float(num::bfloat16_format, w, {}).bits);
    std::copy(before.begin(), before.end(), p.value.values().begin());
    precision_hook hook(precision_preset("bf16"), 1);
    const float scale = 0.5f;
    hook.update(p.site(), p.value.values(), {direction, scale});
    const std::vector<float> after(p.value.values().begin(), p.value.values().end());
    expected_tally want = tally_of(before, after, direction, scale);
    expect_tally(hook.tally().updates, want, n, "bf16, first update");

    hook.update(p.site(), p.value.values(), {direction, scale});
    const std::vector<float> after2(p.value.values().begin(), p.value.values().end());
    const expected_tally second = tally_of(after, after2, direction, scale);
    want.nonzero_delta += second.nonzero_delta;
    want.unchanged += second.unchanged;
    want.swamped += second.swamped;
    want.requested += second.requested;
    want.applied += second.applied;
    update_tally got = hook.tally().updates;
    got.elements -= n;
    expect_tally(got, want, n, "bf16, two updates");
  }
}

TEST(UpdateTallyPass, FindsANonFiniteWriteInAnyLane) {
  // An overflow to infinity at each position of a 17-element update (both
  // lanes' blocks and the tail): the hook names the update as the run's
  // first infinity.
  for (std::size_t at = 0; at < 17; ++at) {
    parameter p = make_parameter("fc", "dense", op_class::matmul, "kernel", {17}, true);
    for (auto& w : p.value.values()) w = 1.0f;
    std::vector<float> direction(17, 0.25f);
    direction[at] = std::numeric_limits<float>::max();
    precision_hook hook(precision_preset("fp16-mixed"), 1);
    hook.update(p.site(), p.value.values(), {direction, 4.0f});
    ASSERT_TRUE(std::isinf(p.value[at]));
    ASSERT_TRUE(hook.first_infinity().has_value()) << "at " << at;
    EXPECT_EQ(hook.first_infinity()->index, at);
    EXPECT_EQ(hook.first_infinity()->role, tensor_role::update);
  }
}

}  // namespace
}  // namespace lab
