// Names of rounding attributes and the list of built-in formats: each name
// parses back to what it names, and bad text is rejected with a message that
// quotes it (what the CLI and the Python module show).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "libnum/format.hpp"
#include "libnum/rounding.hpp"

namespace {

template <class Parse>
std::string error_of(Parse parse) {
  try {
    parse();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RoundingNames, EveryModeNameParsesBack) {
  for (const num::rounding m : num::all_roundings) EXPECT_EQ(num::parse_rounding(num::rounding_name(m)), m);
}

TEST(RoundingNames, OverflowModesParseTheirNames) {
  for (const num::overflow_mode m : {num::overflow_mode::ieee, num::overflow_mode::saturate, num::overflow_mode::nan})
    EXPECT_EQ(num::parse_overflow_mode(num::overflow_mode_name(m)), m);
  EXPECT_EQ(num::overflow_mode_name(num::overflow_mode::saturate), "saturate");
  EXPECT_EQ(error_of([] { num::parse_overflow_mode("wrap"); }),
            "unknown overflow behaviour 'wrap' (expected ieee, saturate or nan)");
}

TEST(RoundingNames, TininessParsesShortAndLongNames) {
  EXPECT_EQ(num::parse_tininess("after"), num::tininess::after_rounding);
  EXPECT_EQ(num::parse_tininess("before-rounding"), num::tininess::before_rounding);
  EXPECT_EQ(num::tininess_name(num::tininess::before_rounding), "before");
  EXPECT_EQ(num::parse_tininess(num::tininess_name(num::tininess::after_rounding)), num::tininess::after_rounding);
  EXPECT_EQ(error_of([] { num::parse_tininess("early"); }), "unknown tininess 'early' (expected after or before)");
}

TEST(BuiltinFormats, ListsTheSixNamedFormatsInOrder) {
  const char* names[] = {"fp16", "bf16", "e5m2", "e4m3", "tf32", "fp32"};
  ASSERT_EQ(std::size(num::builtin_formats), std::size(names));
  for (std::size_t i = 0; i < std::size(names); ++i) {
    EXPECT_EQ(num::format_name(num::builtin_formats[i].value), names[i]);
    EXPECT_EQ(num::parse_format(names[i]), num::builtin_formats[i].value);
    EXPECT_FALSE(num::builtin_formats[i].description.empty());
  }
}

}  // namespace
