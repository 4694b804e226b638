// Schema version 3: NaN evaluation losses, scale statistics and sweep
// coordinates round-trip, and a version 2 file (built here from the version 2
// schema text, not from this build's) still opens and reads.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "rundb/errors.hpp"
#include "rundb/export.hpp"
#include "rundb/reader.hpp"
#include "rundb/schema.hpp"
#include "rundb/writer.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb_test;

// The version 2 schema as released (rundb/SCHEMA.md of version 2), trimmed to
// the tables this test fills; the reader must not need any table added later.
constexpr const char* version2_sql = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, start_time TEXT NOT NULL, end_time TEXT,
  config_yaml TEXT NOT NULL, numlab_version TEXT NOT NULL, host TEXT NOT NULL, status TEXT NOT NULL
  CHECK (status IN ('running','finished','failed','trapped','interrupted','diverged')));
CREATE TABLE steps(run_id INTEGER NOT NULL REFERENCES runs(id), step INTEGER NOT NULL, epoch INTEGER NOT NULL,
  loss REAL, loss_scale REAL, skipped INTEGER NOT NULL DEFAULT 0, skip_reason TEXT, lr REAL, grad_norm REAL,
  wall_time REAL, PRIMARY KEY (run_id, step)) WITHOUT ROWID;
CREATE TABLE tensor_stats(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  step INTEGER NOT NULL, layer TEXT NOT NULL, op TEXT NOT NULL, role TEXT NOT NULL, format TEXT NOT NULL,
  count INTEGER NOT NULL, zeros INTEGER NOT NULL, subnormals INTEGER NOT NULL, underflows INTEGER NOT NULL,
  overflows INTEGER NOT NULL, nans INTEGER NOT NULL, infs INTEGER NOT NULL, min_abs REAL, min_nonzero_abs REAL,
  max_abs REAL, mean REAL, rms REAL, swamped INTEGER NOT NULL DEFAULT 0,
  partially_swamped INTEGER NOT NULL DEFAULT 0, hist_first_exponent INTEGER, histogram BLOB,
  ulp_ratio_first_exponent INTEGER, ulp_ratio_histogram BLOB);
CREATE TABLE events(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), step INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('overflow','nan','skipped','trap','warning')), layer TEXT,
  message TEXT NOT NULL);
CREATE TABLE evaluations(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  epoch INTEGER NOT NULL, step INTEGER NOT NULL, loss REAL NOT NULL, accuracy REAL);
CREATE TABLE shadow_errors(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  step INTEGER NOT NULL, layer TEXT NOT NULL, role TEXT NOT NULL, rel_error REAL NOT NULL);
CREATE TABLE formats(name TEXT PRIMARY KEY, precision INTEGER NOT NULL, emin INTEGER NOT NULL,
  emax INTEGER NOT NULL, subnormals INTEGER NOT NULL, infinities INTEGER NOT NULL);
INSERT INTO meta VALUES ('application', 'numlab-rundb'), ('schema_version', '2');
PRAGMA application_id = 1313688642;
PRAGMA user_version = 2;
INSERT INTO runs VALUES (1, 'old', '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z', 'model: tiny\n', '0.1.0',
  'host', 'diverged');
INSERT INTO steps(run_id, step, epoch, loss) VALUES (1, 0, 0, 2.5), (1, 1, 0, NULL);
INSERT INTO evaluations(run_id, epoch, step, loss, accuracy) VALUES (1, 0, 1, 2.25, 0.5);
)sql";

void make_version2_file(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.string().c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, version2_sql, nullptr, nullptr, &message);
  const std::string text = message ? message : "";
  sqlite3_free(message);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << text;
}

TEST(RundbSchemaV3, Version2FileStillOpensAndReads) {
  ASSERT_GE(rundb::schema_version, 3);  // the test's premise: version 2 is older
  scratch_dir dir("v2");
  make_version2_file(dir / "old.db");
  rundb::reader r(dir / "old.db");
  EXPECT_EQ(r.schema_version(), 2);
  const auto runs = r.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, rundb::run_status::diverged);
  ASSERT_EQ(r.steps(1).size(), 2u);
  EXPECT_FALSE(r.steps(1)[1].loss.has_value());
  const auto evaluations = r.evaluations(1);
  ASSERT_EQ(evaluations.size(), 1u);
  EXPECT_EQ(evaluations[0].loss, 2.25);
  // The tables version 3 added read as empty.
  EXPECT_TRUE(r.scale_stats({.run = 1}).empty());
  EXPECT_TRUE(r.scale_stats_at(1, 0).empty());
  EXPECT_FALSE(r.scale_histogram(1, "fc", "weight", 10).has_value());
  EXPECT_TRUE(r.coordinates(1).empty());
  EXPECT_TRUE(r.all_coordinates().empty());
  const auto scale_table = r.read_table("scale_stats");
  EXPECT_TRUE(scale_table.rows.empty());
  ASSERT_EQ(scale_table.columns.size(), 20u);
  EXPECT_EQ(scale_table.columns[6], "scaled_format");
  EXPECT_EQ(scale_table.columns.back(), "scale_histogram");
  const auto coordinate_table = r.read_table("run_coordinates", 1);
  EXPECT_EQ(coordinate_table.columns, (std::vector<std::string>{"run_id", "key", "value"}));
  EXPECT_TRUE(coordinate_table.rows.empty());
  // The writer still refuses to append to it.
  EXPECT_THROW(rundb::writer{dir / "old.db"}, rundb::error);
}

TEST(RundbSchemaV3, NanEvaluationLossRoundTripsAsNan) {
  scratch_dir dir("nan-eval");
  rundb::run_id id = 0;
  {
    rundb::writer w(dir / "run.db");
    id = w.begin_run({.name = "diverging", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
    w.add_evaluation({id, 0, 9, 1.5, 0.4});
    w.add_evaluation({id, 1, 19, std::numeric_limits<double>::quiet_NaN(), 0.1});
    w.add_evaluation({id, 2, 29, std::numeric_limits<double>::infinity(), {}});
    w.finish_run(id, rundb::run_status::diverged);
  }
  rundb::reader r(dir / "run.db");
  EXPECT_EQ(r.schema_version(), rundb::schema_version);
  const auto e = r.evaluations(id);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].loss, 1.5);
  EXPECT_TRUE(std::isnan(e[1].loss));
  EXPECT_EQ(*e[1].accuracy, 0.1);
  EXPECT_EQ(e[2].loss, std::numeric_limits<double>::infinity());
  EXPECT_FALSE(e[2].accuracy.has_value());
  const auto exported = r.read_table("evaluations", id);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(exported.rows[1][4]));  // NULL, not a number
}

rundb::scale_stats_record sample_scale_stats(rundb::run_id run, std::int64_t step, const std::string& layer) {
  rundb::scale_stats_record s{.run = run, .step = step, .layer = layer, .op = "dense.x", .role = "activation",
                              .scaled_format = "mxfp8", .count = 4096, .blocks = 128};
  s.amax = 448.0 + static_cast<double>(step);
  s.block_underflow = 3 + static_cast<std::uint64_t>(step);
  s.underflow_to_zero = 2;
  s.saturated = 1;
  s.scale_underflow = 0;
  s.scale_overflow = 5;
  s.snr_db = 31.25;
  s.scale_hist = {-10, {1, 0, 7, 120, 0}};
  return s;
}

TEST(RundbSchemaV3, ScaleStatsRoundTrip) {
  scratch_dir dir("scale");
  rundb::run_id id = 0;
  {
    rundb::writer w(dir / "run.db");
    id = w.begin_run({.name = "mx", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
    for (std::int64_t step : {0, 10, 20}) {
      w.add_scale_stats(sample_scale_stats(id, step, "fc1"));
      auto tensor = sample_scale_stats(id, step, "fc2");
      tensor.role = "weight";
      tensor.scaled_format = "e4m3/fp32-given/tensor";
      tensor.scale = 0.125;
      tensor.amax_history = {3.5, -0.0, 1e-300, 2.0};  // most recent first
      tensor.snr_db.reset();
      tensor.amax.reset();
      tensor.scale_hist = {};
      w.add_scale_stats(tensor);
    }
    EXPECT_THROW(w.add_scale_stats({.scale_hist = {0, {1}}}), rundb::error);
    w.finish_run(id, rundb::run_status::finished);
  }
  rundb::reader r(dir / "run.db");
  const auto all = r.scale_stats({.run = id, .with_histograms = true});
  ASSERT_EQ(all.size(), 6u);
  const auto& first = all[0];
  const auto want = sample_scale_stats(id, 0, "fc1");
  EXPECT_EQ(first.layer, "fc1");
  EXPECT_EQ(first.op, "dense.x");
  EXPECT_EQ(first.scaled_format, "mxfp8");
  EXPECT_EQ(first.count, 4096u);
  EXPECT_EQ(first.blocks, 128u);
  EXPECT_EQ(first.amax, want.amax);
  EXPECT_FALSE(first.scale.has_value());
  EXPECT_TRUE(first.amax_history.empty());
  EXPECT_EQ(first.block_underflow, 3u);
  EXPECT_EQ(first.underflow_to_zero, 2u);
  EXPECT_EQ(first.saturated, 1u);
  EXPECT_EQ(first.scale_overflow, 5u);
  EXPECT_EQ(first.snr_db, 31.25);
  EXPECT_EQ(first.scale_hist.first_exponent, -10);
  EXPECT_EQ(first.scale_hist.bins, want.scale_hist.bins);
  const auto& tensor = all[1];
  EXPECT_EQ(tensor.scaled_format, "e4m3/fp32-given/tensor");
  EXPECT_EQ(tensor.scale, 0.125);
  ASSERT_EQ(tensor.amax_history.size(), 4u);
  EXPECT_EQ(tensor.amax_history[0], 3.5);
  EXPECT_TRUE(std::signbit(tensor.amax_history[1]));  // bit-exact, the sign of zero included
  EXPECT_EQ(tensor.amax_history[2], 1e-300);
  EXPECT_FALSE(tensor.amax.has_value());
  EXPECT_FALSE(tensor.snr_db.has_value());
  EXPECT_TRUE(tensor.scale_hist.bins.empty());

  // Without histograms the blobs are not read; filters and step ranges apply.
  const auto light = r.scale_stats({.run = id, .layer = "fc1", .steps = {5, 20}});
  ASSERT_EQ(light.size(), 2u);
  EXPECT_EQ(light[0].step, 10);
  EXPECT_TRUE(light[0].scale_hist.bins.empty());
  EXPECT_EQ(r.scale_stats({.run = id, .role = "weight"}).size(), 3u);
  const auto at = r.scale_stats_at(id, 10);
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(at[1].amax_history.size(), 4u);
  const auto h = r.scale_histogram(id, "fc1", "activation", 19);  // the latest step <= 19 is 10
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->step, 10);
  EXPECT_EQ(h->scale_hist.bins, want.scale_hist.bins);
  EXPECT_FALSE(r.scale_histogram(id, "fc1", "activation", -1).has_value());

  // The generic export decodes the history as reals and the histogram as counts.
  const auto exported = r.read_table("scale_stats", id);
  ASSERT_EQ(exported.rows.size(), 6u);
  std::ostringstream csv;
  rundb::write_csv(exported, csv);
  EXPECT_NE(csv.str().find(",3.5 -0 1e-300 2,"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find(",1 0 7 120 0\r\n"), std::string::npos) << csv.str();
  std::ostringstream json;
  rundb::write_json(exported, json);
  EXPECT_NE(json.str().find("\"amax_history\": [3.5,-0,1e-300,2]"), std::string::npos) << json.str();
}

TEST(RundbSchemaV3, CoordinatesRoundTripAndReplace) {
  scratch_dir dir("coordinates");
  rundb::run_id a = 0, b = 0;
  {
    rundb::writer w(dir / "run.db");
    a = w.begin_run({.name = "p0", .config_yaml = "precision: bf16\n", .numlab_version = "0.1.0"});
    b = w.begin_run({.name = "p1", .config_yaml = "precision: fp16-mixed\n", .numlab_version = "0.1.0"});
    w.set_coordinates(a, {{"seed", "1"}, {"precision", "bf16"}});
    w.set_coordinates(b, {{"seed", "1"}, {"precision", "bf16"}});
    w.set_coordinates(b, {{"rounding.update", "sr"}, {"precision", "fp16-mixed"}});  // replaces
    EXPECT_THROW(w.set_coordinates(a, {{"seed", "1"}, {"seed", "2"}}), rundb::error);
    EXPECT_THROW(w.set_coordinates(a, {{"", "1"}}), rundb::error);
    w.flush();
  }
  rundb::reader r(dir / "run.db");
  using coords = std::vector<rundb::coordinate>;
  EXPECT_EQ(r.coordinates(a), (coords{{"precision", "bf16"}, {"seed", "1"}}));
  EXPECT_EQ(r.coordinates(b), (coords{{"precision", "fp16-mixed"}, {"rounding.update", "sr"}}));
  EXPECT_TRUE(r.coordinates(99).empty());
  const auto all = r.all_coordinates();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all.at(a), r.coordinates(a));
  EXPECT_EQ(r.read_table("run_coordinates").rows.size(), 4u);
}

TEST(RundbSchemaV3, CoordinatesOfAnUnknownRunFailTheWriter) {
  scratch_dir dir("coordinates-unknown");
  rundb::writer w(dir / "run.db");
  w.set_coordinates(42, {{"seed", "1"}});
  EXPECT_THROW(w.flush(), rundb::error);
}

}  // namespace
