// Turning a file this build wrote into the file an older numlab wrote, for
// the rundb, CLI and GUI tests of reading and upgrading older schema versions.
// Errors throw (the GUI tests are QtTest, not GoogleTest).
#pragma once

#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace rundb_test {

/// Runs `sql` on `file`; throws with the file and SQLite's message on any error.
inline void run_sql(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open(file.string().c_str(), &db);
  char* message = nullptr;
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  const std::string text = message ? message : (db ? sqlite3_errmsg(db) : "out of memory");
  sqlite3_free(message);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error(file.string() + ": " + text);
}

/// Version 4's runs table, whose status CHECK did not admit 'killed', under
/// version 4's number: what numlab wrote before version 5. The rows are kept.
inline void downgrade_to_version4(const std::filesystem::path& file) {
  run_sql(file,
          "BEGIN; "
          "CREATE TABLE runs_v4(id INTEGER PRIMARY KEY, name TEXT NOT NULL, start_time TEXT NOT NULL, "
          "end_time TEXT, config_yaml TEXT NOT NULL, numlab_version TEXT NOT NULL, host TEXT NOT NULL, "
          "status TEXT NOT NULL CHECK (status IN ('running','finished','failed','trapped','interrupted','diverged'))); "
          "INSERT INTO runs_v4 SELECT * FROM runs; DROP TABLE runs; ALTER TABLE runs_v4 RENAME TO runs; "
          "PRAGMA user_version = 4; UPDATE meta SET value = '4' WHERE key = 'schema_version'; COMMIT");
}

/// Version 3: version 4 without the per-bucket summaries.
inline void downgrade_to_version3(const std::filesystem::path& file) {
  downgrade_to_version4(file);
  run_sql(file,
          "DROP TABLE tensor_stats_buckets; DROP TABLE tensor_stats_bucket_histograms; "
          "PRAGMA user_version = 3; UPDATE meta SET value = '3' WHERE key = 'schema_version'");
}

}  // namespace rundb_test
