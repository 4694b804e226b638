// Schema version 5: a run may be `killed`. The status is new to the runs
// table's CHECK constraint, which SQLite cannot alter, so an in-place upgrade
// rebuilds that table; merge writes a run left `running` by an input whose
// writer is gone as `killed`.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "rundb_older_versions.hpp"
#include "rundb/errors.hpp"
#include "rundb/killed_runs.hpp"
#include "rundb/merge.hpp"
#include "rundb/reader.hpp"
#include "rundb/schema.hpp"
#include "rundb/upgrade.hpp"
#include "rundb/writer.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb_test;

// What identifies a run and how it ended, for comparing files.
using run_row = std::tuple<rundb::run_id, std::string, std::string, std::string, std::string, std::string>;
std::vector<run_row> run_rows(const std::filesystem::path& file) {
  std::vector<run_row> rows;
  for (const auto& r : rundb::reader(file).runs())
    rows.emplace_back(r.id, r.name, r.start_time, r.end_time, r.config_yaml, std::string(rundb::to_string(r.status)));
  return rows;
}

// The schema's text as SQLite keeps it: (type, name, table, sql) of every
// table and index. ALTER TABLE ... RENAME writes the new name quoted, which
// means the same.
std::set<std::tuple<std::string, std::string, std::string, std::string>> schema_text(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(file.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db,
                               "SELECT type, name, tbl_name, replace(coalesce(sql, ''), 'TABLE \"runs\"', "
                               "'TABLE runs') FROM sqlite_schema",
                               -1, &s, nullptr),
            SQLITE_OK);
  std::set<std::tuple<std::string, std::string, std::string, std::string>> rows;
  const auto text = [&](int c) { return std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, c))); };
  while (sqlite3_step(s) == SQLITE_ROW) rows.emplace(text(0), text(1), text(2), text(3));
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

// Sets the status of run `id` directly, as any SQLite client could; false
// when the file's constraints refuse it.
bool set_status(const std::filesystem::path& file, rundb::run_id id, const char* status) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.string().c_str(), &db), SQLITE_OK);
  const std::string sql = "UPDATE runs SET status = '" + std::string(status) + "' WHERE id = " + std::to_string(id);
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
  return rc == SQLITE_OK;
}

TEST(RundbSchemaV5, KilledIsAStoredStatus) {
  scratch_dir dir("v5-killed");
  {
    rundb::writer w(dir / "run.db");
    const auto id = w.begin_run({.name = "dead", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
    w.finish_run(id, rundb::run_status::killed);
  }
  rundb::reader r(dir / "run.db");
  EXPECT_EQ(r.schema_version(), 5);
  EXPECT_EQ(r.runs().at(0).status, rundb::run_status::killed);
  EXPECT_EQ(rundb::to_string(rundb::run_status::killed), "killed");
  EXPECT_EQ(rundb::parse_run_status("killed"), rundb::run_status::killed);
}

TEST(RundbSchemaV5, Version4FileReadsAndUpgradesInPlace) {
  scratch_dir dir("v5-upgrade");
  write_sample(dir / "run.db");
  std::filesystem::copy_file(dir / "run.db", dir / "old.db");
  downgrade_to_version4(dir / "old.db");
  // Why the version changed: version 4's constraint refuses the new status.
  std::filesystem::copy_file(dir / "old.db", dir / "probe.db");
  EXPECT_FALSE(set_status(dir / "probe.db", 2, "killed"));
  EXPECT_EQ(rundb::reader(dir / "old.db").schema_version(), 4);
  EXPECT_EQ(run_rows(dir / "old.db"), run_rows(dir / "run.db"));
  try {
    rundb::writer w(dir / "old.db");
    FAIL() << "the writer appended to a version 4 file";
  } catch (const rundb::error& e) {
    EXPECT_NE(std::string(e.what()).find("numlab inspect --upgrade"), std::string::npos) << e.what();
  }
  EXPECT_EQ(rundb::upgrade(dir / "old.db"), 4);
  EXPECT_EQ(rundb::reader(dir / "old.db").schema_version(), rundb::schema_version);
  EXPECT_EQ(run_rows(dir / "old.db"), run_rows(dir / "run.db"));
  EXPECT_EQ(schema_text(dir / "old.db"), schema_text(dir / "run.db"));
  rundb::reader(dir / "old.db").check_integrity();
  EXPECT_TRUE(set_status(dir / "old.db", 2, "killed"));
  EXPECT_FALSE(set_status(dir / "old.db", 2, "dead"));  // the rebuilt table still checks
  EXPECT_EQ(rundb::reader(dir / "old.db").runs().at(1).status, rundb::run_status::killed);
  EXPECT_EQ(rundb::upgrade(dir / "old.db"), rundb::schema_version);  // nothing to do
  EXPECT_NO_THROW(rundb::writer{dir / "old.db"});
}

TEST(RundbSchemaV5, MergeWritesTheUnfinishedRunsOfAGoneWriterAsKilled) {
  scratch_dir dir("v5-merge");
  write_sample(dir / "gone.db");  // run 1 finished, run 2 left running
  write_sample(dir / "live.db");
  std::filesystem::copy_file(dir / "gone.db", dir / "gone-v4.db");
  downgrade_to_version4(dir / "gone-v4.db");
  const std::vector<rundb::merge_input> inputs{
      {dir / "gone.db", true}, {dir / "live.db", false}, {dir / "gone-v4.db", true}};
  const auto summary = rundb::merge(dir / "all.db", inputs);
  EXPECT_EQ(summary.runs, 6u);
  EXPECT_EQ(summary.killed, 2u);
  std::vector<rundb::run_status> statuses;
  for (const auto& r : rundb::reader(dir / "all.db").runs()) statuses.push_back(r.status);
  using enum rundb::run_status;
  EXPECT_EQ(statuses, (std::vector<rundb::run_status>{finished, killed, finished, running, finished, killed}));
  // The inputs are only read.
  EXPECT_EQ(rundb::reader(dir / "gone.db").runs().at(1).status, running);
  EXPECT_EQ(rundb::reader(dir / "gone-v4.db").schema_version(), 4);
}


TEST(RundbSchemaV5, RecordKilledMarksTheRunningRunsInPlace) {
  scratch_dir dir("v5-record-killed");
  write_sample(dir / "gone.db");  // run 1 finished, run 2 left running
  const auto before = run_rows(dir / "gone.db");
  EXPECT_EQ(rundb::record_killed(dir / "gone.db"), 1u);
  auto after = run_rows(dir / "gone.db");
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0], before[0]);
  EXPECT_EQ(std::get<5>(after[1]), "killed");
  std::get<5>(after[1]) = "running";  // nothing else changed, end_time included
  EXPECT_EQ(after[1], before[1]);
  EXPECT_EQ(rundb::record_killed(dir / "gone.db"), 0u);  // nothing left running

  // A version 4 file's CHECK refuses `killed`: a clear error, the file unchanged.
  write_sample(dir / "old.db");
  downgrade_to_version4(dir / "old.db");
  const auto old = run_rows(dir / "old.db");
  try {
    rundb::record_killed(dir / "old.db");
    ADD_FAILURE() << "a version 4 file was marked";
  } catch (const rundb::error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "old.db").string() + ": run database schema version 4"),
              std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--upgrade"), std::string::npos) << e.what();
  }
  EXPECT_EQ(run_rows(dir / "old.db"), old);
  EXPECT_THROW(rundb::record_killed(dir / "missing.db"), rundb::error);
}

}  // namespace
