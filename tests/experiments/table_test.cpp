#include "experiments/table.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace numlab::experiments {
namespace {

TEST(ExperimentTable, RendersMarkdownWithEscapedPipes) {
  table t("demo", "A demo", {"name", "value"});
  t.add_row({"a|b", "1"});
  EXPECT_EQ(t.to_markdown(), "#### A demo\n\n| name | value |\n|---|---|\n| a\\|b | 1 |\n");
}

TEST(ExperimentTable, RendersCsvWithTableIdAndQuoting) {
  table t("demo", "A demo", {"name", "value"});
  t.add_row({"x, \"y\"", "2"});
  EXPECT_EQ(t.to_csv(), "table,name,value\ndemo,\"x, \"\"y\"\"\",2\n");
}

TEST(ExperimentTable, RejectsRowsOfTheWrongWidth) {
  table t("demo", "A demo", {"name", "value"});
  EXPECT_THROW(t.add_row({"only one"}), std::invalid_argument);
  EXPECT_THROW((void)t.cell(0, "value"), std::out_of_range);
}

TEST(ExperimentTable, RejectsTwoColumnsOfTheSameName) {
  EXPECT_THROW(table("demo", "A demo", {"value", "value"}), std::invalid_argument);
}

}  // namespace
}  // namespace numlab::experiments
