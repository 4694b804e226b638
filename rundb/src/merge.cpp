// Merging run databases (rundb/merge.hpp) with SQLite's ATTACH: every table
// is copied by INSERT ... SELECT with run ids shifted, so no row passes
// through C++ and the column lists come from the schema itself.
#include "rundb/merge.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "bucket_summary.hpp"
#include "rundb/errors.hpp"
#include "rundb/reader.hpp"
#include "schema_sql.hpp"
#include "sqlite.hpp"

namespace rundb {
namespace {

// An SQLite URI opening `file` read-only (RFC 3986 percent-encoding).
std::string read_only_uri(const std::filesystem::path& file) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const unsigned char c : std::filesystem::absolute(file).string()) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                       std::string_view("/._-~").find(static_cast<char>(c)) != std::string_view::npos;
    if (plain) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    }
  }
  return uri + "?mode=ro";
}

// INSERT INTO main.T (...) SELECT ... FROM src.T, run ids shifted by ?1; the
// row ids of tables with their own `id` are assigned afresh, in source order.
// In `runs`, ?2 = 1 writes a status still 'running' as 'killed'.
std::string copy_sql(std::string_view table) {
  const auto columns = detail::schema_columns(table);
  std::string into, from;
  bool has_id = false;
  for (const auto& c : columns) {
    const bool run_key = c == "run_id" || (table == "runs" && c == "id");
    if (c == "id" && !run_key) {
      has_id = true;
      continue;
    }
    if (!into.empty()) {
      into += ", ";
      from += ", ";
    }
    into += c;
    if (run_key) {
      from += c + " + ?1";
    } else if (table == "runs" && c == "status") {
      from += "CASE WHEN ?2 AND status = 'running' THEN 'killed' ELSE status END";
    } else {
      from += c;
    }
  }
  const std::string verb = table == "formats" ? "INSERT OR REPLACE" : "INSERT";
  return verb + " INTO main." + std::string(table) + "(" + into + ") SELECT " + from + " FROM src." +
         std::string(table) + (has_id ? " ORDER BY id" : "");
}

void sync_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    throw error(file.string() + ": cannot sync the merged file");
  }
  ::close(fd);
}

void remove_with_journals(const std::filesystem::path& file) {
  std::error_code ec;
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix, ec);
}

}  // namespace

struct merger::state {
  std::filesystem::path out;
  std::filesystem::path out_canonical;
  std::filesystem::path temp;
  std::set<std::filesystem::path> seen;
  std::unique_ptr<detail::database> db;
  merge_summary summary;
  bool failed = false;
};

merger::merger(std::filesystem::path out, bool replace) : state_(std::make_unique<state>()) {
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && !replace) {
    throw error(out.string() + ": exists; remove it or choose another output file");
  }
  state_->out_canonical = std::filesystem::weakly_canonical(out);
  std::string temp_name = ".";
  temp_name.append(out.filename().string()).append(".merging-").append(std::to_string(::getpid()));
  state_->temp = out.parent_path() / temp_name;
  state_->out = std::move(out);
  remove_with_journals(state_->temp);
  try {
    state_->db = std::make_unique<detail::database>(state_->temp.string(),
                                                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI);
    // The file is private until renamed, and deleted on failure: no journal needed.
    state_->db->exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF");
    detail::create_schema(*state_->db);
  } catch (...) {
    state_->db.reset();
    remove_with_journals(state_->temp);
    throw;
  }
}

merger::~merger() {
  if (!state_->db) return;  // committed, or never created
  state_->db.reset();
  remove_with_journals(state_->temp);
}

void merger::add(const merge_input& input) {
  if (state_->failed || !state_->db) throw error(state_->out.string() + ": merge already failed or committed");
  state_->failed = true;  // until this input is in
  const auto& [in, writer_gone] = input;
  {
    reader check(in);  // a run database of a version this build reads, or a clear error
  }
  const auto canonical = std::filesystem::weakly_canonical(in);
  if (canonical == state_->out_canonical) throw error(in.string() + ": the output file is also an input");
  if (!state_->seen.insert(canonical).second) throw error(in.string() + ": given twice");
  auto& db = *state_->db;
  detail::statement attach(db, "ATTACH DATABASE ?1 AS src");
  attach.bind(1, std::string_view(read_only_uri(in))).run();
  {
    detail::transaction tx(db);
    const std::int64_t offset = db.query_int("SELECT coalesce(max(id), 0) FROM main.runs");
    for (const auto& table : reader::table_names()) {
      detail::statement present(db, "SELECT 1 FROM src.sqlite_schema WHERE type = 'table' AND name = ?1");
      present.bind(1, std::string_view(table));
      if (!present.step()) continue;  // a table the input's version predates
      detail::statement copy(db, copy_sql(table).c_str());
      if (table != "formats") copy.bind(1, offset);
      if (table == "runs") copy.bind(2, std::int64_t{writer_gone});
      copy.run();
    }
    state_->summary.runs += static_cast<std::size_t>(db.query_int("SELECT count(*) FROM src.runs"));
    if (writer_gone) {
      state_->summary.killed +=
          static_cast<std::size_t>(db.query_int("SELECT count(*) FROM src.runs WHERE status = 'running'"));
    }
    tx.commit();
  }
  db.exec("DETACH DATABASE src");
  ++state_->summary.files;
  state_->failed = false;
}

merge_summary merger::commit() {
  if (state_->failed || !state_->db) throw error(state_->out.string() + ": merge already failed or committed");
  try {
    auto& db = *state_->db;
    {
      // Derived data: recomputed for every run, whatever version each input had.
      detail::transaction tx(db);
      detail::bucket_summarizer(db).rebuild_all();
      tx.commit();
    }
    // As the writer leaves its files: readers can read while a writer appends.
    db.exec("PRAGMA journal_mode=WAL");
    state_->db.reset();
    sync_file(state_->temp);
    std::filesystem::rename(state_->temp, state_->out);
    sync_file(state_->out.parent_path().empty() ? std::filesystem::path(".") : state_->out.parent_path());
  } catch (...) {
    state_->db.reset();
    state_->failed = true;
    remove_with_journals(state_->temp);
    throw;
  }
  return state_->summary;
}

merge_summary merge(const std::filesystem::path& out, std::span<const merge_input> inputs, bool replace) {
  merger m(out, replace);
  // Every input is checked before any is copied, so a bad one fails at once.
  for (const auto& input : inputs) reader check(input.file);
  for (const auto& input : inputs) m.add(input);
  return m.commit();
}

}  // namespace rundb
