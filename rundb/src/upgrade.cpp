// In-place schema upgrade of a run database; see rundb/upgrade.hpp.
#include "rundb/upgrade.hpp"

#include <string>

#include "bucket_summary.hpp"
#include "rundb/errors.hpp"
#include "rundb/reader.hpp"
#include "rundb/schema.hpp"
#include "schema_sql.hpp"
#include "sqlite.hpp"

namespace rundb {

int upgrade(const std::filesystem::path& file) {
  const int version = reader(file).schema_version();  // a run database this build reads, or a clear error
  if (version == schema_version) return version;
  if (version < 3) {
    throw error(file.string() + ": run database schema version " + std::to_string(version) +
                " cannot be upgraded in place (versions 3 and 4 can); `numlab merge NEW.db " + file.string() +
                "` writes a copy of version " + std::to_string(schema_version));
  }
  detail::database db(file.string(), SQLITE_OPEN_READWRITE);
  detail::transaction tx(db);
  detail::check_schema(db);  // again, now that no other writer can change it
  if (db.query_int("PRAGMA user_version") != version) throw error(file.string() + ": changed while being upgraded");
  if (version == 3) {
    detail::create_bucket_tables(db);
    detail::bucket_summarizer(db).rebuild_all();
  }
  detail::rebuild_runs_table(db);
  db.exec(("UPDATE meta SET value = '" + std::to_string(schema_version) + "' WHERE key = 'schema_version'").c_str());
  db.exec(("PRAGMA user_version = " + std::to_string(schema_version)).c_str());
  tx.commit();
  return version;
}

}  // namespace rundb
