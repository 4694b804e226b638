// reader::totals_by_layer lists its sites in one documented order, layers()
// then role name, from a version 4 file, from its version 3 copy (records
// only) and from that copy upgraded: the GUI's rankings break ties by this
// order, so the three must agree entry for entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rundb/reader.hpp"
#include "rundb/schema.hpp"
#include "rundb/upgrade.hpp"
#include "rundb/writer.hpp"
#include "rundb_older_versions.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb_test;

// Roles in an order of appearance that is not their name order.
const std::vector<std::string> written_roles{"weight", "activation", "grad_weight"};

// 24 layers x 3 roles (more sites than std::sort sorts by insertion), equal
// counts everywhere so that every ranking ties; layer "late" first appears at
// step 3, after all others.
rundb::run_id write_many_sites(const std::filesystem::path& file) {
  rundb::writer w(file, {.max_batch = 5});
  const auto id = w.begin_run({.name = "sites", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
  for (std::int64_t step = 0; step < 40; ++step) {
    std::vector<std::string> layers;
    for (int l = 22; l >= 0; --l) layers.push_back("layer" + std::to_string(l));  // not in name order either
    if (step >= 3) layers.insert(layers.begin(), "late");
    for (const auto& layer : layers) {
      for (const auto& role : written_roles) {
        rundb::tensor_stats_record t;
        t.run = id;
        t.step = step;
        t.layer = layer;
        t.op = "matmul";
        t.role = role;
        t.format = "binary16";
        t.count = 100;
        t.underflows = 7;
        t.overflows = 1;
        t.hist.first_exponent = -14;
        t.hist.bins = {93, 7};
        w.add_tensor_stats(std::move(t));
      }
    }
  }
  w.finish_run(id, rundb::run_status::finished);
  return id;
}

// (layer, role) in the documented order, worked out from the writing order.
std::vector<std::pair<std::string, std::string>> documented_order() {
  std::vector<std::string> roles = written_roles;
  std::sort(roles.begin(), roles.end());
  std::vector<std::pair<std::string, std::string>> out;
  for (int l = 22; l >= 0; --l)
    for (const auto& role : roles) out.emplace_back("layer" + std::to_string(l), role);
  for (const auto& role : roles) out.emplace_back("late", role);
  return out;
}

std::vector<std::pair<std::string, std::string>> sites(const std::vector<rundb::layer_totals>& totals) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& t : totals) out.emplace_back(t.layer, t.role);
  return out;
}

void expect_same_totals(const std::vector<rundb::layer_totals>& got, const std::vector<rundb::layer_totals>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(want[i].layer + "/" + want[i].role);
    EXPECT_EQ(got[i].layer, want[i].layer);
    EXPECT_EQ(got[i].role, want[i].role);
    EXPECT_EQ(got[i].records, want[i].records);
    EXPECT_EQ(got[i].count, want[i].count);
    EXPECT_EQ(got[i].underflows, want[i].underflows);
    EXPECT_EQ(got[i].overflows, want[i].overflows);
  }
}

TEST(RundbTotalsOrder, LayersThenRoleNameInVersion3Version4AndUpgradedFiles) {
  scratch_dir dir("totals-order");
  const auto id = write_many_sites(dir / "v4.db");
  std::filesystem::copy_file(dir / "v4.db", dir / "v3.db");
  downgrade_to_version3(dir / "v3.db");
  const auto want = documented_order();
  rundb::reader current(dir / "v4.db");
  ASSERT_EQ(current.schema_version(), rundb::schema_version);
  const auto from_summaries = current.totals_by_layer(id);
  EXPECT_EQ(sites(from_summaries), want);
  EXPECT_EQ(from_summaries.front().records, 40);
  EXPECT_EQ(from_summaries.back().records, 37);  // "late" starts at step 3
  EXPECT_EQ(from_summaries.front().underflows, 7u * 40u);
  {
    rundb::reader old(dir / "v3.db");
    ASSERT_EQ(old.schema_version(), 3);
    expect_same_totals(old.totals_by_layer(id), from_summaries);
  }
  ASSERT_EQ(rundb::upgrade(dir / "v3.db"), 3);
  rundb::reader upgraded(dir / "v3.db");
  ASSERT_EQ(upgraded.schema_version(), rundb::schema_version);
  expect_same_totals(upgraded.totals_by_layer(id), from_summaries);
}

}  // namespace
