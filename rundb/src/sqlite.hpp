// Thin RAII wrappers over the SQLite C API, internal to rundb. Every
// failure becomes a rundb exception whose message names the file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rundb::detail {

/// Throws the rundb exception matching an SQLite result code.
[[noreturn]] void throw_sqlite(int code, const std::string& file, std::string_view what,
                               sqlite3* db);

/// One open SQLite connection.
class database {
 public:
  /// Opens `file` with sqlite3_open_v2 `flags`; throws on failure.
  database(const std::string& file, int flags);
  ~database();
  database(const database&) = delete;
  database& operator=(const database&) = delete;

  /// Runs one or more statements that return no rows.
  void exec(const char* sql);
  /// Runs a statement returning a single integer (e.g. a PRAGMA).
  std::int64_t query_int(const char* sql);
  sqlite3* handle() const { return db_; }
  const std::string& file() const { return file_; }
  /// Rows the statements on this connection have returned (see reader::rows_read).
  std::uint64_t rows_returned() const { return rows_returned_; }
  void count_row() { ++rows_returned_; }
  [[noreturn]] void fail(int code, std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string file_;
  std::uint64_t rows_returned_ = 0;
};

/// A prepared statement; bind with 1-based indexes, step, read 0-based columns.
class statement {
 public:
  statement(database& db, const char* sql);
  ~statement();
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  statement& bind(int index, std::int64_t value);
  statement& bind(int index, double value);
  statement& bind(int index, std::string_view value);
  statement& bind(int index, std::optional<double> value);
  statement& bind_null(int index);
  statement& bind_blob(int index, std::span<const unsigned char> bytes);

  /// Advances; true while a row is available.
  bool step();
  /// Runs a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  bool is_null(int column) const;
  std::int64_t column_int(int column) const;
  double column_double(int column) const;
  std::optional<double> column_optional_double(int column) const;
  std::string column_text(int column) const;
  /// The text without a copy; valid until the next step(), reset() or column read of the same column.
  std::string_view column_text_view(int column) const;
  std::vector<unsigned char> column_blob(int column) const;
  int column_count() const;
  int column_type(int column) const;
  std::string column_name(int column) const;

 private:
  database* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

/// RAII transaction: BEGIN IMMEDIATE on construction, ROLLBACK unless committed.
class transaction {
 public:
  explicit transaction(database& db);
  ~transaction();
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  void commit();

 private:
  database& db_;
  bool done_ = false;
};

}  // namespace rundb::detail
