// Statistics hooks: filters, delivery, sinks.
#include <algorithm>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "libnum/hooks.hpp"
#include "libnum/stats_sinks.hpp"

namespace {

// A producer's own role vocabulary: libnum sees only ids and names.
constexpr num::role_tag activation{0, "activation"};
constexpr num::role_tag grad_input{1, "grad_input"};
constexpr num::role_tag grad_weight{2, "grad_weight"};
constexpr num::role_tag weight{3, "weight"};
constexpr num::role_tag update{5, "update"};

TEST(Hooks, GlobMatching) {
  EXPECT_TRUE(num::glob_match("conv*", "conv2.grad_input"));
  EXPECT_TRUE(num::glob_match("*.grad_input", "stage1.block0.grad_input"));
  EXPECT_FALSE(num::glob_match("*.grad_input", "stage1.grad_weight"));
  EXPECT_TRUE(num::glob_match("a?c", "abc"));
  EXPECT_FALSE(num::glob_match("a?c", "ac"));
  EXPECT_TRUE(num::glob_match("*a*b", "xxaYYab"));
  EXPECT_FALSE(num::glob_match("*a*b", "xxaYYa"));
  EXPECT_TRUE(num::glob_match("", ""));
  EXPECT_FALSE(num::glob_match("", "x"));
  EXPECT_TRUE(num::glob_match("**", ""));
}

TEST(Hooks, FilterBySitePrefixRoleAndCadence) {
  const num::sink_filter prefix{.site = "conv2"};
  EXPECT_TRUE(prefix.accepts("conv2.kernel", weight, 0));
  EXPECT_FALSE(prefix.accepts("conv1.kernel", weight, 0));
  const num::sink_filter grads{.roles = num::role_bit(grad_input) |
                                        num::role_bit(grad_weight),
                               .every = 5};
  EXPECT_TRUE(grads.accepts("any", grad_weight, 10));
  EXPECT_FALSE(grads.accepts("any", grad_weight, 12));
  EXPECT_FALSE(grads.accepts("any", activation, 10));
}

TEST(Hooks, NothingIsComputedWithoutAListener) {
  num::stats_hooks hooks;
  const std::vector<float> x{1.0f};
  EXPECT_FALSE(hooks.wants("fc1", 0));
  EXPECT_FALSE(hooks.announce("fc1", activation, 0, num::binary16, {}, x));
  int calls = 0;
  hooks.attach([&](const num::stats_record&) { ++calls; }, {.site = "fc2", .every = 2});
  EXPECT_FALSE(hooks.announce("fc1.output", activation, 0, num::binary16, {}, x));
  EXPECT_FALSE(hooks.announce("fc2.output", activation, 1, num::binary16, {}, x));
  EXPECT_TRUE(hooks.announce("fc2.output", activation, 2, num::binary16, {}, x));
  EXPECT_EQ(calls, 1);
}

TEST(Hooks, CollectingSinkReceivesStatisticsOfTheTarget) {
  num::stats_hooks hooks;
  auto sink = std::make_shared<num::collecting_sink>();
  const auto id = hooks.attach(sink);
  const std::vector<float> grads{1e-8f, 70000.0f, 1.0f};
  hooks.announce("fc1.grad_input", grad_input, 7, num::binary16, {}, grads);
  hooks.announce("fc1.grad_input", grad_input, 8, num::bfloat16_format, {}, grads);
  ASSERT_EQ(sink->stats().size(), 2u);
  const num::collected_stats& fp16 = sink->stats()[0];
  EXPECT_EQ(fp16.site, "fc1.grad_input");
  EXPECT_EQ(fp16.role.id, grad_input.id);
  EXPECT_EQ(fp16.role.name, "grad_input");
  EXPECT_EQ(fp16.step, 7u);
  EXPECT_EQ(fp16.stats.underflows, 1u);  // 1e-8 < 2^-25
  EXPECT_EQ(fp16.stats.overflows, 1u);   // 70000 > 65520
  EXPECT_EQ(sink->stats()[1].stats.underflows, 0u);
  EXPECT_EQ(sink->stats()[1].stats.overflows, 0u);
  // Real 16-bit storage: 0x0001 is the smallest fp16 subnormal, 0x7C00 +inf.
  const std::vector<std::uint16_t> storage{0x0001, 0x7C00, 0x3C00};
  hooks.announce("fc1.weight", weight, 9, num::binary16, storage);
  EXPECT_EQ(sink->stats().back().stats.subnormals, 1u);
  EXPECT_EQ(sink->stats().back().stats.infs, 1u);
  hooks.detach(id);
  EXPECT_TRUE(hooks.empty());
  EXPECT_FALSE(hooks.announce("fc1.grad_input", grad_input, 10, num::binary16, {}, grads));
}

TEST(Hooks, UpdatesReachSwampingSinks) {
  num::stats_hooks hooks;
  auto sink = std::make_shared<num::collecting_sink>();
  hooks.attach(sink, {.roles = num::role_bit(update)});
  const std::vector<float> before(4, 1.0f), delta(4, 0x1p-12f), after(4, 1.0f);
  EXPECT_TRUE(hooks.announce_update("fc1.kernel", update, 3, num::binary16, before, delta, after));
  EXPECT_FALSE(hooks.announce("fc1.kernel", weight, 3, num::binary16, {}, before));
  ASSERT_EQ(sink->swamping().size(), 1u);
  EXPECT_EQ(sink->swamping()[0].stats.total_swamped, 4u);
  EXPECT_EQ(sink->swamping()[0].role.name, "update");
  EXPECT_TRUE(sink->stats().empty());
}

TEST(Hooks, RoleTagsAreTheProducersOwn) {
  // Any id below 32 filters, the name travels to the sink untouched, and an
  // id out of range is never wanted (no bit of the 32-bit set names it).
  num::stats_hooks hooks;
  auto sink = std::make_shared<num::collecting_sink>();
  constexpr num::role_tag moment{31, "adam.m"};
  hooks.attach(sink, {.roles = num::role_bit(moment)});
  const std::vector<float> x{1.0f, 2.0f};
  EXPECT_TRUE(hooks.announce("fc1.kernel.m", moment, 0, num::binary16, {}, x));
  EXPECT_FALSE(hooks.announce("fc1.kernel", num::role_tag{30, "other"}, 0, num::binary16, {}, x));
  ASSERT_EQ(sink->stats().size(), 1u);
  EXPECT_EQ(sink->stats()[0].role.id, 31u);
  EXPECT_EQ(sink->stats()[0].role.name, "adam.m");
  EXPECT_EQ(num::role_bit(num::role_tag{32, "out of range"}), 0u);
  num::stats_hooks everything;
  everything.attach(sink);
  EXPECT_FALSE(everything.wants("fc1", num::role_tag{40, "out of range"}, 0));
  EXPECT_TRUE(everything.wants("fc1", 0));
}

TEST(Hooks, TableSinkPrintsOneHeaderAndARowPerTensor) {
  std::ostringstream out;
  num::stats_hooks hooks;
  hooks.attach(std::make_shared<num::table_sink>(out));
  const std::vector<float> x{0.0f, 1.0f, 70000.0f};
  hooks.announce("conv1.output", activation, 1, num::binary16, {}, x);
  hooks.announce("conv2.output", activation, 1, num::binary16, {}, x);
  hooks.announce_update("conv1.kernel", update, 1, num::binary16, x, x, x);
  const std::string text = out.str();
  // stats header, two rows, swamping header, one row
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
  EXPECT_NE(text.find("conv2.output"), std::string::npos);
  EXPECT_NE(text.find("fp16/ne"), std::string::npos);
  EXPECT_NE(text.find("norm ratio"), std::string::npos);
}

}  // namespace
