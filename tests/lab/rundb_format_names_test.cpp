// rundb spells out the built-in formats' parameters because it must not link
// libnum; this test (which may link both) holds the two tables equal.
#include <gtest/gtest.h>

#include <libnum/format.hpp>
#include <rundb/records.hpp>

#include <string>

namespace {

TEST(RundbFormatNames, EveryBuiltInFormatMatchesLibnumUnderBothNames) {
  const num::format builtins[] = {num::binary16, num::bfloat16_format, num::fp8_e5m2,
                                  num::fp8_e4m3, num::tf32,            num::binary32};
  const char* long_names[] = {"binary16", "bfloat16", "e5m2", "e4m3", "tf32", "binary32"};
  for (std::size_t i = 0; i < std::size(builtins); ++i) {
    const num::format& f = builtins[i];
    for (const std::string& name : {num::format_name(f), std::string(long_names[i])}) {
      SCOPED_TRACE(name);
      ASSERT_EQ(num::parse_format(name), f);
      const auto info = rundb::builtin_format(name);
      ASSERT_TRUE(info.has_value());
      EXPECT_EQ(info->precision, f.precision);
      EXPECT_EQ(info->emin, f.emin);
      EXPECT_EQ(info->emax, f.emax);
      EXPECT_EQ(info->subnormals, f.subnormals);
      EXPECT_EQ(info->infinities, f.infinities);
    }
  }
  EXPECT_FALSE(rundb::builtin_format("mystery").has_value());
}

}  // namespace
