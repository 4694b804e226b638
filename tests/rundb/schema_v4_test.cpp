// Schema version 4: the writer keeps tensor_stats_buckets as it commits, the
// maps, totals and summed histograms read from it equal what the statistics
// rows give (computed here from the records, not from the summaries), a
// version 3 file reads the same through the records and upgrades in place to
// the same summaries the writer keeps, and merge recomputes them.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

#include "rundb/errors.hpp"
#include "rundb/merge.hpp"
#include "rundb/reader.hpp"
#include "rundb/schema.hpp"
#include "rundb/upgrade.hpp"
#include "rundb/writer.hpp"
#include "rundb_older_versions.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb_test;

const std::vector<std::string> layers{"conv1", "fc", "logits"};
const std::vector<std::string> roles{"activation", "grad_weight"};  // sorted, as reader::roles lists them
constexpr std::int64_t steps = 1000;

// 1000 steps x 3 layers x 2 roles with random counts, histograms whose range
// changes for one site halfway, and a second record for some (step, layer,
// role) so that records must be summed before the worst step is picked;
// committed in batches of 7 records so steps straddle transactions.
rundb::run_id write_random(const std::filesystem::path& file) {
  rundb::writer w(file, {.max_batch = 7});
  const auto id = w.begin_run({.name = "random", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
  std::mt19937_64 rng(42);
  const auto draw = [&](std::uint64_t n) { return rng() % n; };
  for (std::int64_t step = 0; step < steps; ++step) {
    for (const auto& layer : layers) {
      for (const auto& role : roles) {
        const int records = draw(5) == 0 ? 2 : 1;
        for (int i = 0; i < records; ++i) {
          rundb::tensor_stats_record t;
          t.run = id;
          t.step = step;
          t.layer = layer;
          t.op = "matmul";
          t.role = role;
          t.format = "binary16";
          t.count = 1 + draw(1000);
          // Mostly zero, so that ties (earliest step wins) are common.
          t.overflows = draw(4) == 0 ? draw(t.count) : 0;
          t.underflows = draw(t.count);
          t.nans = draw(50) == 0 ? 1 : 0;
          t.swamped = draw(3) == 0 ? draw(t.count) : 0;
          t.max_abs = static_cast<double>(draw(1000));
          t.min_nonzero_abs = 1.0 / static_cast<double>(1 + draw(1000));
          const bool shifted = layer == "fc" && step >= steps / 2;
          t.hist.first_exponent = shifted ? -10 : -14;
          t.hist.bins.resize(shifted ? 8 : 6);
          for (auto& b : t.hist.bins) b = draw(100);
          w.add_tensor_stats(std::move(t));
        }
      }
    }
  }
  w.finish_run(id, rundb::run_status::finished);
  return id;
}

// The map of `stat` for one role, or every role when `role` is empty, with
// columns of `width` steps from step 0, computed from the records alone.
std::vector<rundb::layer_step_cell> expected_map(rundb::reader& r, rundb::run_id run, const std::string& role,
                                                 std::uint64_t rundb::tensor_stats_record::*stat, std::int64_t width) {
  // (role, step, layer) -> summed (counted, values)
  std::map<std::tuple<std::string, std::int64_t, std::string>, std::pair<double, double>> sums;
  for (const auto& t : r.tensor_stats({.run = run})) {
    if (!role.empty() && t.role != role) continue;
    auto& s = sums[{t.role, t.step, t.layer}];
    s.first += static_cast<double>(t.*stat);
    s.second += static_cast<double>(t.count);
  }
  const auto fraction = [](const std::pair<double, double>& s) { return s.second > 0 ? s.first / s.second : 0.0; };
  // (column, layer index) -> cell; roles in sorted order, steps ascending: the first of equals stays.
  std::map<std::pair<std::int64_t, std::size_t>, rundb::layer_step_cell> cells;
  for (const auto& [key, s] : sums) {
    const auto& [cell_role, step, layer] = key;
    const auto layer_index = static_cast<std::size_t>(std::find(layers.begin(), layers.end(), layer) - layers.begin());
    const std::int64_t column = step / width;
    auto [at, added] = cells.try_emplace({column, layer_index});
    auto& c = at->second;
    const double before = fraction({c.counted, c.values});
    if (added || fraction(s) > before || (fraction(s) == before && step < c.worst_step)) {
      c = {layer, column * width, step, cell_role, s.first, s.second};
    }
  }
  std::vector<rundb::layer_step_cell> out;
  for (auto& [key, c] : cells) out.push_back(c);
  return out;
}

void expect_same_cells(const std::vector<rundb::layer_step_cell>& got, const std::vector<rundb::layer_step_cell>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("cell " + std::to_string(i));
    EXPECT_EQ(got[i].layer, want[i].layer);
    EXPECT_EQ(got[i].step, want[i].step);
    EXPECT_EQ(got[i].worst_step, want[i].worst_step);
    EXPECT_EQ(got[i].role, want[i].role);
    EXPECT_EQ(got[i].counted, want[i].counted);
    EXPECT_EQ(got[i].values, want[i].values);
  }
}

// Every row of tensor_stats_buckets and tensor_stats_bucket_histograms, as text, in key order.
std::vector<std::string> bucket_rows(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(file.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db,
                               "SELECT * FROM tensor_stats_buckets b JOIN tensor_stats_bucket_histograms h "
                               "USING (run_id, role, bucket, layer) ORDER BY run_id, role, bucket, layer",
                               -1, &s, nullptr),
            SQLITE_OK);
  std::vector<std::string> rows;
  while (sqlite3_step(s) == SQLITE_ROW) {
    std::string row;
    for (int c = 0; c < sqlite3_column_count(s); ++c) {
      const auto* bytes = static_cast<const char*>(sqlite3_column_blob(s, c));
      row += std::string(bytes ? bytes : "", static_cast<std::size_t>(sqlite3_column_bytes(s, c))) + "|";
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

TEST(RundbSchemaV4, MapsFromSummariesEqualTheRecords) {
  ASSERT_EQ(rundb::summary_bucket_steps, 32);  // the widths below
  scratch_dir dir("v4-map");
  const auto id = write_random(dir / "run.db");
  rundb::reader r(dir / "run.db");
  EXPECT_GE(r.schema_version(), 4);
  // 20 columns over steps 0..999: floor(999 / 32) = 31 >= 20 > floor(999 / 64) = 15,
  // columns of 64 steps, pooled from the summaries.
  expect_same_cells(r.counts_by_layer_and_step(id, "grad_weight", rundb::counted_stat::overflows, 20),
                    expected_map(r, id, "grad_weight", &rundb::tensor_stats_record::overflows, 64));
  expect_same_cells(r.counts_by_layer_and_step(id, "", rundb::counted_stat::underflows, 20),
                    expected_map(r, id, "", &rundb::tensor_stats_record::underflows, 64));
  const std::array two{rundb::counted_stat::swamped, rundb::counted_stat::nans};
  const auto both = r.counts_by_layer_and_step(id, "activation", two, 20);
  expect_same_cells(both[0], expected_map(r, id, "activation", &rundb::tensor_stats_record::swamped, 64));
  expect_same_cells(both[1], expected_map(r, id, "activation", &rundb::tensor_stats_record::nans, 64));
  // Narrow columns (below 32 steps) still come from the records: 100
  // columns, floor(999 / 8) = 124 >= 100 > floor(999 / 16) = 62, 16 steps each.
  expect_same_cells(r.counts_by_layer_and_step(id, "grad_weight", rundb::counted_stat::overflows, 100),
                    expected_map(r, id, "grad_weight", &rundb::tensor_stats_record::overflows, 16));
}

TEST(RundbSchemaV4, TotalsAndSummedHistogramsEqualTheRecords) {
  scratch_dir dir("v4-totals");
  const auto id = write_random(dir / "run.db");
  rundb::reader r(dir / "run.db");
  std::map<std::pair<std::string, std::string>, rundb::layer_totals> want;
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::vector<std::uint64_t>> hist;  // binade -> count
  for (const auto& t : r.tensor_stats({.run = id, .with_histograms = true})) {
    auto& w = want[{t.layer, t.role}];
    ++w.records;
    w.count += t.count;
    w.underflows += t.underflows;
    w.overflows += t.overflows;
    w.nans += t.nans;
    w.swamped += t.swamped;
    // Bucket sums by absolute binade: [underflow, 2^-20 .. 2^9, overflow].
    auto& h = hist[{t.layer, t.role, t.step / 32}];
    h.resize(32, 0);
    h.front() += t.hist.bins.front();
    h.back() += t.hist.bins.back();
    for (std::size_t i = 1; i + 1 < t.hist.bins.size(); ++i)
      h[static_cast<std::size_t>(1 + t.hist.first_exponent + 20) + i - 1] += t.hist.bins[i];
  }
  const auto totals = r.totals_by_layer(id);
  ASSERT_EQ(totals.size(), want.size());
  for (const auto& t : totals) {
    const auto& w = want.at({t.layer, t.role});
    EXPECT_EQ(t.records, w.records) << t.layer << "/" << t.role;
    EXPECT_EQ(t.count, w.count);
    EXPECT_EQ(t.underflows, w.underflows);
    EXPECT_EQ(t.overflows, w.overflows);
    EXPECT_EQ(t.nans, w.nans);
    EXPECT_EQ(t.swamped, w.swamped);
  }
  EXPECT_EQ(totals.front().layer, "conv1");  // layer order
  for (const auto& layer : layers) {
    const auto buckets = r.histogram_buckets(id, layer, "grad_weight");
    ASSERT_TRUE(buckets.has_value());
    ASSERT_EQ(buckets->size(), static_cast<std::size_t>((steps + 31) / 32));
    for (std::size_t b = 0; b < buckets->size(); ++b) {
      const auto& got = (*buckets)[b];
      EXPECT_EQ(got.first_step, static_cast<std::int64_t>(b) * 32);
      EXPECT_EQ(got.last_step, std::min<std::int64_t>(steps - 1, static_cast<std::int64_t>(b) * 32 + 31));
      EXPECT_EQ(got.steps, got.last_step - got.first_step + 1);
      const auto& w = hist.at({layer, "grad_weight", static_cast<std::int64_t>(b)});
      ASSERT_GE(got.hist.bins.size(), 2u);
      EXPECT_EQ(got.hist.bins.front(), w.front()) << layer << " bucket " << b;
      EXPECT_EQ(got.hist.bins.back(), w.back()) << layer << " bucket " << b;
      std::uint64_t got_total = 0, want_total = 0;
      for (const auto c : got.hist.bins) got_total += c;
      for (const auto c : w) want_total += c;
      EXPECT_EQ(got_total, want_total) << layer << " bucket " << b;
      for (std::size_t i = 1; i + 1 < got.hist.bins.size(); ++i)
        EXPECT_EQ(got.hist.bins[i], w[static_cast<std::size_t>(1 + got.hist.first_exponent + 20) + i - 1])
            << layer << " bucket " << b << " bin " << i;
    }
  }
}

TEST(RundbSchemaV4, Version3FileReadsFromRecordsAndUpgradesInPlace) {
  scratch_dir dir("v4-upgrade");
  const auto id = write_random(dir / "run.db");
  std::filesystem::copy_file(dir / "run.db", dir / "old.db");
  downgrade_to_version3(dir / "old.db");
  {
    rundb::reader old(dir / "old.db");
    EXPECT_EQ(old.schema_version(), 3);
    EXPECT_FALSE(old.histogram_buckets(id, "fc", "grad_weight").has_value());
    // No summaries: the records, with the same 64-step columns.
    expect_same_cells(old.counts_by_layer_and_step(id, "grad_weight", rundb::counted_stat::overflows, 20),
                      expected_map(old, id, "grad_weight", &rundb::tensor_stats_record::overflows, 64));
    EXPECT_EQ(old.totals_by_layer(id).size(), layers.size() * roles.size());
  }
  EXPECT_THROW(rundb::writer{dir / "old.db"}, rundb::error);  // appends only to its own version
  EXPECT_EQ(rundb::upgrade(dir / "old.db"), 3);
  EXPECT_EQ(rundb::reader(dir / "old.db").schema_version(), rundb::schema_version);
  EXPECT_EQ(bucket_rows(dir / "old.db"), bucket_rows(dir / "run.db"));
  EXPECT_FALSE(bucket_rows(dir / "run.db").empty());
  EXPECT_EQ(rundb::upgrade(dir / "old.db"), rundb::schema_version);  // nothing to do
}

// Added in review: the records' path of totals_by_layer (files without
// summaries) had no test of its values.
TEST(RundbSchemaV4, Version3TotalsFromRecordsEqualTheSummaries) {
  scratch_dir dir("v4-v3-totals");
  const auto id = write_random(dir / "run.db");
  std::filesystem::copy_file(dir / "run.db", dir / "old.db");
  downgrade_to_version3(dir / "old.db");
  const auto by_site = [](std::vector<rundb::layer_totals> totals) {
    std::map<std::pair<std::string, std::string>, rundb::layer_totals> out;
    for (auto& t : totals) out.emplace(std::pair{t.layer, t.role}, std::move(t));
    return out;
  };
  rundb::reader old(dir / "old.db"), current(dir / "run.db");
  ASSERT_EQ(old.schema_version(), 3);
  const auto got = by_site(old.totals_by_layer(id));
  const auto want = by_site(current.totals_by_layer(id));  // from the summaries, checked against the records above
  ASSERT_EQ(got.size(), layers.size() * roles.size());
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [site, w] : want) {
    SCOPED_TRACE(site.first + "/" + site.second);
    ASSERT_TRUE(got.contains(site));
    const auto& g = got.at(site);
    EXPECT_EQ(g.records, w.records);
    EXPECT_EQ(g.count, w.count);
    EXPECT_EQ(g.underflows, w.underflows);
    EXPECT_EQ(g.overflows, w.overflows);
    EXPECT_EQ(g.subnormals, w.subnormals);
    EXPECT_EQ(g.nans, w.nans);
    EXPECT_EQ(g.infs, w.infs);
    EXPECT_EQ(g.swamped, w.swamped);
    EXPECT_EQ(g.partially_swamped, w.partially_swamped);
  }
}

TEST(RundbSchemaV4, OlderVersionsAreNotUpgradedInPlace) {
  scratch_dir dir("v4-v2");
  write_sample(dir / "run.db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "run.db").string().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 2; UPDATE meta SET value = '2' WHERE key = 'schema_version'",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  try {
    rundb::upgrade(dir / "run.db");
    FAIL() << "a version 2 file was upgraded in place";
  } catch (const rundb::error& e) {
    EXPECT_NE(std::string(e.what()).find("numlab merge"), std::string::npos) << e.what();
  }
  EXPECT_EQ(rundb::reader(dir / "run.db").schema_version(), 2);
}

TEST(RundbSchemaV4, MergeRecomputesTheSummaries) {
  scratch_dir dir("v4-merge");
  write_random(dir / "a.db");
  std::filesystem::copy_file(dir / "a.db", dir / "b.db");
  downgrade_to_version3(dir / "b.db");
  const std::vector<rundb::merge_input> inputs{{dir / "a.db"}, {dir / "b.db"}};
  rundb::merge(dir / "both.db", inputs);
  const auto rows = bucket_rows(dir / "both.db");
  const auto one = bucket_rows(dir / "a.db");
  ASSERT_EQ(rows.size(), 2 * one.size());
  // Run 2 (from the version 3 file) has the same summaries as run 1.
  rundb::reader r(dir / "both.db");
  expect_same_cells(r.counts_by_layer_and_step(2, "grad_weight", rundb::counted_stat::overflows, 20),
                    r.counts_by_layer_and_step(1, "grad_weight", rundb::counted_stat::overflows, 20));
}

}  // namespace
