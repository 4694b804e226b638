// Turning a file this build wrote into the file an older numlab wrote, for
// the tests of reading and upgrading older schema versions.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

namespace rundb_test {

// Runs `sql` on `file`, failing the test on any error.
inline void run_sql(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.string().c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  const std::string text = message ? message : "";
  sqlite3_free(message);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << text;
}

// Version 4's runs table, whose status CHECK did not admit 'killed', under
// version 4's number: what numlab wrote before version 5. The rows are kept.
inline void downgrade_to_version4(const std::filesystem::path& file) {
  run_sql(file,
          "BEGIN; "
          "CREATE TABLE runs_v4(id INTEGER PRIMARY KEY, name TEXT NOT NULL, start_time TEXT NOT NULL, "
          "end_time TEXT, config_yaml TEXT NOT NULL, numlab_version TEXT NOT NULL, host TEXT NOT NULL, "
          "status TEXT NOT NULL CHECK (status IN ('running','finished','failed','trapped','interrupted','diverged'))); "
          "INSERT INTO runs_v4 SELECT * FROM runs; DROP TABLE runs; ALTER TABLE runs_v4 RENAME TO runs; "
          "PRAGMA user_version = 4; UPDATE meta SET value = '4' WHERE key = 'schema_version'; COMMIT");
}

// Version 3: version 4 without the per-bucket summaries.
inline void downgrade_to_version3(const std::filesystem::path& file) {
  downgrade_to_version4(file);
  run_sql(file,
          "DROP TABLE tensor_stats_buckets; DROP TABLE tensor_stats_bucket_histograms; "
          "PRAGMA user_version = 3; UPDATE meta SET value = '3' WHERE key = 'schema_version'");
}

}  // namespace rundb_test
