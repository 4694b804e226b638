// The text summary and the CSV / JSON exports behind `numlab inspect`.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "rundb/errors.hpp"
#include "rundb/export.hpp"
#include "rundb/summary.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb_test;

// Built one cell at a time: GCC 12 misdiagnoses initializer lists of variants.
template <typename... Values>
std::vector<rundb::cell> row_of(Values... values) {
  std::vector<rundb::cell> row;
  (row.emplace_back(std::move(values)), ...);
  return row;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RundbSummary, ReportsStatusMetricsSkipsRankingsAndScales) {
  scratch_dir dir("summary");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  std::ostringstream out;
  rundb::write_run_summary(r, id, out);
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "run 1: baseline [finished]")) << text;
  EXPECT_TRUE(contains(text, "  lr: 0.1\n")) << text;
  EXPECT_TRUE(contains(text, "steps: 50 (last step 49, epoch 4)")) << text;
  EXPECT_TRUE(contains(text, "final evaluation (epoch 4, step 49): loss 0.372881")) << text;  // 2/(1+4.9)*1.1
  EXPECT_TRUE(contains(text, "skipped steps: 2\n  2 x inf in grad_weight of conv2 (first at step 16)")) << text;
  // fc has the most overflows: sum over stats steps of 3*step = 3*225 = 675 of 10000.
  EXPECT_TRUE(contains(text, "most overflow:\n  fc / grad_weight: 675 of 10000 values (6.75%)")) << text;
  EXPECT_TRUE(contains(text, "most swamping:\n  fc / update: 200 of 10000 values (2%)")) << text;
  // Scale halves every 17 steps starting at 2^16.
  EXPECT_TRUE(contains(text, "loss scale: 2 changes, range 2^14 .. 2^16\n  2^16 @0 -> 2^15 @17 -> 2^14 @34")) << text;
  EXPECT_TRUE(contains(text, "events: 3, 2 skipped, 1 warning")) << text;
}

TEST(RundbSummary, LayerHistoryListsEveryRecordedStepAndRejectsUnknownLayers) {
  scratch_dir dir("layer");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  std::ostringstream out;
  rundb::write_layer_history(r, id, "conv2", out);
  EXPECT_TRUE(contains(out.str(), "layer conv2 of run 1: 20 records")) << out.str();
  EXPECT_TRUE(contains(out.str(), "45 grad_weight")) << out.str();
  try {
    rundb::write_layer_history(r, id, "conv9", out);
    FAIL() << "unknown layer accepted";
  } catch (const rundb::error& e) {
    EXPECT_TRUE(contains(e.what(), "no layer 'conv9' (layers: conv1, conv2, fc)")) << e.what();
  }
}

TEST(RundbExport, CsvQuotesAndKeepsNullsEmpty) {
  rundb::table t{{"a", "b", "c"}, {}};
  t.rows.push_back(row_of(std::int64_t{1}, std::string("x,\"y\""), std::monostate{}));
  t.rows.push_back(row_of(0.5, std::string("plain"), std::vector<std::uint64_t>{1, 2, 3}));
  std::ostringstream out;
  rundb::write_csv(t, out);
  EXPECT_EQ(out.str(), "a,b,c\r\n1,\"x,\"\"y\"\"\",\r\n0.5,plain,1 2 3\r\n");
}

TEST(RundbExport, JsonEscapesAndTurnsNonFiniteIntoNull) {
  rundb::table t{{"name", "value", "hist"}, {}};
  t.rows.push_back(row_of(std::string("a\"b\n"), std::nan(""), std::vector<std::uint64_t>{4, 5}));
  t.rows.push_back(row_of(std::monostate{}, 0.1, std::int64_t{-3}));
  std::ostringstream out;
  rundb::write_json(t, out);
  EXPECT_EQ(out.str(),
            "[\n {\"name\": \"a\\\"b\\n\", \"value\": null, \"hist\": [4,5]},\n"
            " {\"name\": null, \"value\": 0.1, \"hist\": -3}\n]\n");
}

TEST(RundbExport, StepsTableRoundTripsThroughCsv) {
  scratch_dir dir("csv");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  std::ostringstream out;
  rundb::write_csv(r.read_table("steps", id), out);
  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "run_id,step,epoch,loss,loss_scale,skipped,skip_reason,lr,grad_norm,wall_time\r");
  std::size_t rows = 0;
  while (std::getline(lines, line)) {
    const auto step = static_cast<std::int64_t>(rows);
    const std::string prefix = "1," + std::to_string(step) + "," + std::to_string(step / 10) + ",";
    EXPECT_EQ(line.rfind(prefix, 0), 0u) << line;
    EXPECT_DOUBLE_EQ(std::stod(line.substr(prefix.size())), sample_loss(step));
    ++rows;
  }
  EXPECT_EQ(rows, static_cast<std::size_t>(sample_steps));
}

}  // namespace
