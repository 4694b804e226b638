// `numlab inspect FILE --upgrade`: a version 3 file (as an older numlab
// wrote it: no summaries, no 'killed' status) becomes the current version with
// the same summaries the writer keeps; a current file is left alone; bad
// input gets one clear error naming the file, exit code 2, and the file as
// it was.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "../rundb/sample_database.hpp"
#include "rundb/reader.hpp"
#include "rundb/schema.hpp"
#include "rundb_older_versions.hpp"
#include "run_process.hpp"

namespace numlab::testing {
namespace {

using rundb_test::read_bytes;
using rundb_test::scratch_dir;


// Marks a file as written with schema `version`.
void set_version(const std::string& file, int version) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  const std::string v = std::to_string(version);
  const std::string sql =
      "PRAGMA user_version = " + v + "; UPDATE meta SET value = '" + v + "' WHERE key = 'schema_version'";
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK);
}

// Every site's totals, as text, in reader order.
std::string totals_text(const std::filesystem::path& file) {
  rundb::reader db(file);
  std::string text;
  for (const auto& run : db.runs())
    for (const auto& t : db.totals_by_layer(run.id))
      text += t.layer + "/" + t.role + " " + std::to_string(t.records) + " " + std::to_string(t.count) + " " +
              std::to_string(t.underflows) + " " + std::to_string(t.overflows) + "\n";
  return text;
}

TEST(InspectUpgrade, Version3BecomesVersion4WithTheWritersSummaries) {
  scratch_dir dir("cli-upgrade");
  rundb_test::write_sample(dir / "current.db");
  std::filesystem::copy_file(dir / "current.db", dir / "old.db");
  rundb_test::downgrade_to_version3(dir / "old.db");
  ASSERT_EQ(rundb::reader(dir / "old.db").schema_version(), 3);
  const std::string file = (dir / "old.db").string();

  const auto r = run_numlab({"inspect", file, "--upgrade"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, file + ": schema version 3 upgraded to " + std::to_string(rundb::schema_version) + "\n");
  EXPECT_EQ(rundb::reader(dir / "old.db").schema_version(), rundb::schema_version);
  EXPECT_FALSE(totals_text(dir / "current.db").empty());
  EXPECT_EQ(totals_text(dir / "old.db"), totals_text(dir / "current.db"));  // read from the new summaries

  const auto again = run_numlab({"inspect", file, "--upgrade"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, file + ": schema version " + std::to_string(rundb::schema_version) + ", already current\n");
}

TEST(InspectUpgrade, BadInputGetsOneClearErrorAndLeavesTheFileAsItWas) {
  scratch_dir dir("cli-upgrade-bad");
  // A missing file: named in the error, and not created.
  const std::string missing = (dir / "missing.db").string();
  const auto none = run_numlab({"inspect", missing, "--upgrade"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(contains(none.err, missing)) << none.err;
  EXPECT_TRUE(none.out.empty()) << none.out;
  EXPECT_FALSE(std::filesystem::exists(missing));

  // Not a database at all.
  const std::string text = (dir / "notes.db").string();
  rundb_test::write_file(text, "not a run database\n");
  const auto garbage = run_numlab({"inspect", text, "--upgrade"});
  EXPECT_EQ(garbage.exit_code, 2);
  EXPECT_TRUE(contains(garbage.err, text)) << garbage.err;
  EXPECT_EQ(read_bytes(text), "not a run database\n");

  // Version 2 has other tables: refused, with the way out (merge) named.
  rundb_test::write_sample(dir / "v2.db");
  rundb_test::downgrade_to_version3(dir / "v2.db");
  const std::string v2 = (dir / "v2.db").string();
  set_version(v2, 2);
  const std::string before = read_bytes(v2);
  const auto old = run_numlab({"inspect", v2, "--upgrade"});
  EXPECT_EQ(old.exit_code, 2);
  EXPECT_TRUE(contains(old.err, v2 + ": run database schema version 2 cannot be upgraded in place")) << old.err;
  EXPECT_TRUE(contains(old.err, "numlab merge")) << old.err;
  EXPECT_EQ(std::count(old.err.begin(), old.err.end(), '\n'), 1) << old.err;
  EXPECT_EQ(read_bytes(v2), before);
}

}  // namespace
}  // namespace numlab::testing
