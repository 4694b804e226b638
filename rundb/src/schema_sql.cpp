// The run-database schema (documented in rundb/SCHEMA.md) and its checks.
#include "schema_sql.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "rundb/errors.hpp"
#include "rundb/schema.hpp"

namespace rundb::detail {
namespace {

// Keep in step with rundb/SCHEMA.md; any incompatible change bumps schema_version.
// The runs table, apart so that the version 5 upgrade can build it under
// another name beside the old one.
std::string runs_table_sql(std::string_view name) {
  return "CREATE TABLE " + std::string(name) + R"sql((
  id             INTEGER PRIMARY KEY,
  name           TEXT NOT NULL,
  start_time     TEXT NOT NULL,
  end_time       TEXT,
  config_yaml    TEXT NOT NULL,
  numlab_version TEXT NOT NULL,
  host           TEXT NOT NULL,
  status         TEXT NOT NULL
    CHECK (status IN ('running','finished','failed','trapped','interrupted','diverged','killed'))
);)sql";
}

// Every other table of the schema.
constexpr const char* schema_sql = R"sql(
CREATE TABLE meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE steps(
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  step        INTEGER NOT NULL,
  epoch       INTEGER NOT NULL,
  loss        REAL,
  loss_scale  REAL,
  skipped     INTEGER NOT NULL DEFAULT 0,
  skip_reason TEXT,
  lr          REAL,
  grad_norm   REAL,
  wall_time   REAL,
  PRIMARY KEY (run_id, step)
) WITHOUT ROWID;
CREATE TABLE tensor_stats(
  id                INTEGER PRIMARY KEY,
  run_id            INTEGER NOT NULL REFERENCES runs(id),
  step              INTEGER NOT NULL,
  layer             TEXT NOT NULL,
  op                TEXT NOT NULL,
  role              TEXT NOT NULL,
  format            TEXT NOT NULL,
  count             INTEGER NOT NULL,
  zeros             INTEGER NOT NULL,
  subnormals        INTEGER NOT NULL,
  underflows        INTEGER NOT NULL,
  overflows         INTEGER NOT NULL,
  nans              INTEGER NOT NULL,
  infs              INTEGER NOT NULL,
  min_abs           REAL,
  min_nonzero_abs   REAL,
  max_abs           REAL,
  mean              REAL,
  rms               REAL,
  swamped           INTEGER NOT NULL DEFAULT 0,
  partially_swamped INTEGER NOT NULL DEFAULT 0,
  hist_first_exponent INTEGER,
  histogram         BLOB,
  ulp_ratio_first_exponent INTEGER,
  ulp_ratio_histogram BLOB
);
CREATE INDEX tensor_stats_by_layer ON tensor_stats(run_id, layer, role, step);
CREATE INDEX tensor_stats_counts ON tensor_stats(run_id, role, step, layer, count, zeros, subnormals,
  underflows, overflows, nans, infs, swamped, partially_swamped);
CREATE TABLE events(
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER NOT NULL REFERENCES runs(id),
  step    INTEGER NOT NULL,
  kind    TEXT NOT NULL CHECK (kind IN ('overflow','nan','skipped','trap','warning')),
  layer   TEXT,
  message TEXT NOT NULL
);
CREATE INDEX events_by_run ON events(run_id, step);
CREATE TABLE evaluations(
  id       INTEGER PRIMARY KEY,
  run_id   INTEGER NOT NULL REFERENCES runs(id),
  epoch    INTEGER NOT NULL,
  step     INTEGER NOT NULL,
  loss     REAL,
  accuracy REAL
);
CREATE INDEX evaluations_by_run ON evaluations(run_id, step);
CREATE TABLE shadow_errors(
  id        INTEGER PRIMARY KEY,
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  step      INTEGER NOT NULL,
  layer     TEXT NOT NULL,
  role      TEXT NOT NULL,
  rel_error REAL NOT NULL
);
CREATE INDEX shadow_errors_by_layer ON shadow_errors(run_id, layer, role, step);
CREATE TABLE run_coordinates(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE TABLE scale_stats(
  id                INTEGER PRIMARY KEY,
  run_id            INTEGER NOT NULL REFERENCES runs(id),
  step              INTEGER NOT NULL,
  layer             TEXT NOT NULL,
  op                TEXT NOT NULL,
  role              TEXT NOT NULL,
  scaled_format     TEXT NOT NULL,
  count             INTEGER NOT NULL,
  blocks            INTEGER NOT NULL,
  amax              REAL,
  scale             REAL,
  amax_history      BLOB,
  block_underflow   INTEGER NOT NULL,
  underflow_to_zero INTEGER NOT NULL,
  saturated         INTEGER NOT NULL,
  scale_underflow   INTEGER NOT NULL,
  scale_overflow    INTEGER NOT NULL,
  snr_db            REAL,
  scale_hist_first_exponent INTEGER,
  scale_histogram   BLOB
);
CREATE INDEX scale_stats_by_layer ON scale_stats(run_id, layer, role, step);
CREATE INDEX scale_stats_counts ON scale_stats(run_id, role, step, layer, count, blocks, block_underflow,
  underflow_to_zero, saturated);
CREATE TABLE formats(
  name       TEXT PRIMARY KEY,
  precision  INTEGER NOT NULL,
  emin       INTEGER NOT NULL,
  emax       INTEGER NOT NULL,
  subnormals INTEGER NOT NULL,
  infinities INTEGER NOT NULL
);
)sql";

// Added by schema version 4; `numlab inspect --upgrade` adds them to a version 3 file.
constexpr const char* buckets_sql = R"sql(
CREATE TABLE tensor_stats_buckets(
  run_id            INTEGER NOT NULL REFERENCES runs(id),
  role              TEXT NOT NULL,
  bucket            INTEGER NOT NULL,
  layer             TEXT NOT NULL,
  first_step        INTEGER NOT NULL,
  last_step         INTEGER NOT NULL,
  steps             INTEGER NOT NULL,
  records           INTEGER NOT NULL,
  count             INTEGER NOT NULL,
  zeros             INTEGER NOT NULL,
  subnormals        INTEGER NOT NULL,
  underflows        INTEGER NOT NULL,
  overflows         INTEGER NOT NULL,
  nans              INTEGER NOT NULL,
  infs              INTEGER NOT NULL,
  swamped           INTEGER NOT NULL,
  partially_swamped INTEGER NOT NULL,
  min_nonzero_abs   REAL,
  max_abs           REAL,
  worst_zeros_step INTEGER NOT NULL,
  worst_zeros INTEGER NOT NULL,
  worst_zeros_count INTEGER NOT NULL,
  worst_subnormals_step INTEGER NOT NULL,
  worst_subnormals INTEGER NOT NULL,
  worst_subnormals_count INTEGER NOT NULL,
  worst_underflows_step INTEGER NOT NULL,
  worst_underflows INTEGER NOT NULL,
  worst_underflows_count INTEGER NOT NULL,
  worst_overflows_step INTEGER NOT NULL,
  worst_overflows INTEGER NOT NULL,
  worst_overflows_count INTEGER NOT NULL,
  worst_nans_step INTEGER NOT NULL,
  worst_nans INTEGER NOT NULL,
  worst_nans_count INTEGER NOT NULL,
  worst_infs_step INTEGER NOT NULL,
  worst_infs INTEGER NOT NULL,
  worst_infs_count INTEGER NOT NULL,
  worst_swamped_step INTEGER NOT NULL,
  worst_swamped INTEGER NOT NULL,
  worst_swamped_count INTEGER NOT NULL,
  worst_partially_swamped_step INTEGER NOT NULL,
  worst_partially_swamped INTEGER NOT NULL,
  worst_partially_swamped_count INTEGER NOT NULL,
  PRIMARY KEY (run_id, role, bucket, layer)
) WITHOUT ROWID;
CREATE TABLE tensor_stats_bucket_histograms(
  run_id              INTEGER NOT NULL REFERENCES runs(id),
  layer               TEXT NOT NULL,
  role                TEXT NOT NULL,
  bucket              INTEGER NOT NULL,
  hist_first_exponent INTEGER NOT NULL,
  histogram           BLOB NOT NULL,
  PRIMARY KEY (run_id, layer, role, bucket)
) WITHOUT ROWID;
)sql";

}  // namespace

void create_bucket_tables(database& db) { db.exec(buckets_sql); }

void rebuild_runs_table(database& db) {
  // SQLite cannot alter a CHECK constraint; its ALTER TABLE documentation
  // prescribes this: build the new table beside the old, copy, drop, rename.
  // Foreign keys are off (SQLite's default, never turned on here), so the
  // other tables' REFERENCES runs(id) name the new table once it is renamed.
  db.exec(runs_table_sql("runs_rebuilt").c_str());
  db.exec("INSERT INTO runs_rebuilt(id, name, start_time, end_time, config_yaml, numlab_version, host, status) "
          "SELECT id, name, start_time, end_time, config_yaml, numlab_version, host, status FROM runs");
  db.exec("DROP TABLE runs");
  db.exec("ALTER TABLE runs_rebuilt RENAME TO runs");
}

bool is_empty_database(database& db) {
  return db.query_int("SELECT count(*) FROM sqlite_schema") == 0;
}

bool has_table(database& db, std::string_view table) {
  statement s(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1");
  s.bind(1, table);
  return s.step();
}

std::vector<std::string> schema_columns(std::string_view table) {
  // The schema text above is the one source of the column lists: a private
  // in-memory copy answers for files written before the table existed.
  database scratch(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  scratch.exec(runs_table_sql("runs").c_str());
  scratch.exec(schema_sql);
  scratch.exec(buckets_sql);
  statement s(scratch, "SELECT name FROM pragma_table_info(?1) ORDER BY cid");
  s.bind(1, table);
  std::vector<std::string> columns;
  while (s.step()) columns.push_back(s.column_text(0));
  return columns;
}

void create_schema(database& db) {
  transaction tx(db);
  db.exec(runs_table_sql("runs").c_str());
  db.exec(schema_sql);
  create_bucket_tables(db);
  statement meta(db, "INSERT INTO meta(key, value) VALUES (?1, ?2)");
  meta.bind(1, std::string_view("application")).bind(2, std::string_view(application_name)).run();
  meta.bind(1, std::string_view("schema_version"))
      .bind(2, std::string_view(std::to_string(schema_version)))
      .run();
  db.exec(("PRAGMA application_id = " + std::to_string(application_id)).c_str());
  db.exec(("PRAGMA user_version = " + std::to_string(schema_version)).c_str());
  tx.commit();
}

void check_schema(database& db) {
  const std::string& file = db.file();
  // Reading the header fails with SQLITE_NOTADB for non-SQLite files.
  const auto app = db.query_int("PRAGMA application_id");
  if (app != application_id) {
    throw not_a_run_database(file + ": not a numlab run database (SQLite application id " +
                             std::to_string(app) + ")");
  }
  const auto version = db.query_int("PRAGMA user_version");
  if (version > schema_version) {
    throw newer_schema(file + ": run database schema version " + std::to_string(version) +
                       " is newer than this numlab understands (" +
                       std::to_string(schema_version) + "); upgrade numlab");
  }
  if (version < 1) {
    throw corrupt_database(file + ": corrupt run database: schema version " +
                           std::to_string(version));
  }
  // The meta table repeats both facts; a mismatch means the file was damaged.
  statement meta(db, "SELECT value FROM meta WHERE key = ?1");
  meta.bind(1, std::string_view("application"));
  if (!meta.step() || meta.column_text(0) != application_name) {
    throw corrupt_database(file + ": corrupt run database: meta.application is missing or wrong");
  }
  meta.reset();
  meta.bind(1, std::string_view("schema_version"));
  if (!meta.step() || meta.column_text(0) != std::to_string(version)) {
    throw corrupt_database(file + ": corrupt run database: meta.schema_version disagrees with "
                           "the file header");
  }
}

}  // namespace rundb::detail
