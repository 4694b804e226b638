// Turns a run database written by today's rundb (schema version 4) into the
// version 3 file an older numlab wrote: the same records without the
// per-bucket summaries. Shared by the rundb and GUI tests that check a v3
// file and its upgrade read alike.
#pragma once

#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace rundb_test {

inline void downgrade_to_version3(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open(file.string().c_str(), &db);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(db,
                      "DROP TABLE tensor_stats_buckets; DROP TABLE tensor_stats_bucket_histograms; "
                      "PRAGMA user_version = 3; "
                      "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
                      nullptr, nullptr, nullptr);
  const std::string message = db ? sqlite3_errmsg(db) : "out of memory";
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error(file.string() + ": downgrade to version 3 failed: " + message);
}

}  // namespace rundb_test
