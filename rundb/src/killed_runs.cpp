// Recording a dead writer's runs as killed in place; see rundb/killed_runs.hpp.
#include "rundb/killed_runs.hpp"

#include <string>

#include "rundb/errors.hpp"
#include "rundb/reader.hpp"
#include "rundb/schema.hpp"
#include "schema_sql.hpp"
#include "sqlite.hpp"

namespace rundb {

std::size_t record_killed(const std::filesystem::path& file) {
  const int version = reader(file).schema_version();  // a run database this build reads, or a clear error
  if (version != schema_version) {
    // Older runs tables' CHECK constraint rejects `killed`.
    throw error(file.string() + ": run database schema version " + std::to_string(version) +
                " cannot record killed runs; `numlab inspect " + file.string() + " --upgrade` first");
  }
  detail::database db(file.string(), SQLITE_OPEN_READWRITE);
  detail::transaction tx(db);
  detail::check_schema(db);  // again, now that no other writer can change it
  if (db.query_int("PRAGMA user_version") != version) throw error(file.string() + ": changed while being marked");
  db.exec("UPDATE runs SET status = 'killed' WHERE status = 'running'");
  const auto changed = static_cast<std::size_t>(sqlite3_changes(db.handle()));
  tx.commit();
  return changed;
}

}  // namespace rundb
