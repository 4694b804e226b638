// RAII wrappers over the SQLite C API; see sqlite.hpp.
#include "sqlite.hpp"


#include "rundb/errors.hpp"

namespace rundb::detail {

void throw_sqlite(int code, const std::string& file, std::string_view what, sqlite3* db) {
  std::string message = file + ": " + std::string(what) + ": ";
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  switch (code & 0xff) {
    case SQLITE_NOTADB:
      throw not_a_run_database(file + ": not a numlab run database (not an SQLite file)");
    case SQLITE_CANTOPEN:
      throw not_a_run_database(file + ": cannot open: " +
                               (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code)));
    case SQLITE_INTERRUPT:
      throw interrupted(file + ": query interrupted");
    case SQLITE_CORRUPT:
    case SQLITE_FORMAT:
    case SQLITE_RANGE:
    case SQLITE_MISMATCH:
      throw corrupt_database(file + ": corrupt run database: " + message);
    default:
      throw error(message);
  }
}

database::database(const std::string& file, int flags) : file_(file) {
  const int rc = sqlite3_open_v2(file.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    // Copy the message before closing: the handle owns it.
    const std::string reason = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    if ((rc & 0xff) == SQLITE_CANTOPEN) throw not_a_run_database(file + ": cannot open: " + reason);
    throw_sqlite(rc, file, "open", nullptr);
  }
  sqlite3_extended_result_codes(db_, 0);
  // Defensive mode: a damaged or hostile file cannot be used to corrupt
  // memory through writable_schema tricks.
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_busy_timeout(db_, 5000);
}

database::~database() { sqlite3_close_v2(db_); }

void database::fail(int code, std::string_view what) const { throw_sqlite(code, file_, what, db_); }

void database::exec(const char* sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
  sqlite3_free(message);
  if (rc != SQLITE_OK) fail(rc, sql);
}

std::int64_t database::query_int(const char* sql) {
  statement s(*this, sql);
  if (!s.step()) fail(SQLITE_CORRUPT, std::string("no result from ") + sql);
  return s.column_int(0);
}

statement::statement(database& db, const char* sql) : db_(&db) {
  const int rc = sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) db.fail(rc, "prepare");
}

statement::~statement() { sqlite3_finalize(stmt_); }

statement& statement::bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) db_->fail(rc, "bind");
  return *this;
}

statement& statement::bind(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) db_->fail(rc, "bind");
  return *this;
}

statement& statement::bind(int index, std::string_view value) {
  const int rc = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                                   SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_->fail(rc, "bind");
  return *this;
}

statement& statement::bind(int index, std::optional<double> value) {
  return value ? bind(index, *value) : bind_null(index);
}

statement& statement::bind_null(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) db_->fail(rc, "bind");
  return *this;
}

statement& statement::bind_blob(int index, std::span<const unsigned char> bytes) {
  const int rc = sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_->fail(rc, "bind");
  return *this;
}

bool statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    db_->count_row();
    return true;
  }
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);
  db_->fail(rc, "query");
}

void statement::run() {
  while (step()) {
  }
  reset();
}

void statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

std::int64_t statement::column_int(int column) const { return sqlite3_column_int64(stmt_, column); }

double statement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }

std::optional<double> statement::column_optional_double(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_double(column);
}

std::string statement::column_text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size));
}

std::string_view statement::column_text_view(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text), static_cast<std::size_t>(size)};
}

std::vector<unsigned char> statement::column_blob(int column) const {
  const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(stmt_, column));
  const int size = sqlite3_column_bytes(stmt_, column);
  if (data == nullptr || size <= 0) return {};
  return std::vector<unsigned char>(data, data + size);
}

int statement::column_count() const { return sqlite3_column_count(stmt_); }

int statement::column_type(int column) const { return sqlite3_column_type(stmt_, column); }

std::string statement::column_name(int column) const {
  const char* name = sqlite3_column_name(stmt_, column);
  return name != nullptr ? name : "";
}

transaction::transaction(database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

transaction::~transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace rundb::detail
