// The run-database reader: read-only queries returning plain records.
#include "rundb/reader.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "bucket_summary.hpp"
#include "histogram_blob.hpp"
#include "rundb/errors.hpp"
#include "rundb/schema.hpp"
#include "schema_sql.hpp"
#include "sqlite.hpp"

namespace rundb {
namespace {

using detail::statement;

constexpr std::array<std::string_view, 9> exportable_tables{
    "runs", "steps", "tensor_stats", "events", "evaluations", "shadow_errors", "formats", "scale_stats",
    "run_coordinates"};

std::uint64_t as_count(std::int64_t stored) { return static_cast<std::uint64_t>(stored); }

[[noreturn]] void damaged(const detail::database& db, const std::string& what) {
  throw corrupt_database(db.file() + ": corrupt run database: " + what);
}

constexpr const char* run_columns =
    "SELECT id, name, start_time, end_time, config_yaml, numlab_version, host, status FROM runs";

run_info read_run(const detail::database& db, const statement& s) {
  run_info r;
  r.id = s.column_int(0);
  r.name = s.column_text(1);
  r.start_time = s.column_text(2);
  r.end_time = s.column_text(3);
  r.config_yaml = s.column_text(4);
  r.numlab_version = s.column_text(5);
  r.host = s.column_text(6);
  const std::string status = s.column_text(7);
  const auto parsed = parse_run_status(status);
  if (!parsed) damaged(db, "run " + std::to_string(r.id) + " has unknown status '" + status + "'");
  r.status = *parsed;
  return r;
}

constexpr const char* step_columns =
    "SELECT run_id, step, epoch, loss, loss_scale, skipped, skip_reason, lr, grad_norm, wall_time "
    "FROM steps";

step_record read_step(const statement& s) {
  step_record r;
  r.run = s.column_int(0);
  r.step = s.column_int(1);
  r.epoch = s.column_int(2);
  r.loss = s.column_optional_double(3);
  r.loss_scale = s.column_optional_double(4);
  r.skipped = s.column_int(5) != 0;
  r.skip_reason = s.column_text(6);
  r.lr = s.column_optional_double(7);
  r.grad_norm = s.column_optional_double(8);
  r.wall_time = s.column_optional_double(9);
  return r;
}

constexpr const char* stats_columns =
    "SELECT run_id, step, layer, op, role, format, count, zeros, subnormals, underflows, "
    "overflows, nans, infs, min_abs, min_nonzero_abs, max_abs, mean, rms, swamped, "
    "partially_swamped, hist_first_exponent, ulp_ratio_first_exponent, ";

// The blob columns, which only queries asking for histograms read.
constexpr const char* histogram_columns = "histogram, ulp_ratio_histogram";
constexpr const char* no_histogram_columns = "NULL, NULL";

// Reads a histogram from an exponent column and a blob column.
histogram read_histogram(const detail::database& db, const statement& s, int exponent_column, int blob_column,
                         const tensor_stats_record& owner) {
  if (s.is_null(blob_column)) return {};
  auto h = detail::decode_histogram(s.column_int(exponent_column), s.column_blob(blob_column));
  if (!h) {
    damaged(db, "malformed histogram of " + owner.layer + "/" + owner.role + " at step " + std::to_string(owner.step));
  }
  return std::move(*h);
}

tensor_stats_record read_stats(const detail::database& db, const statement& s, bool histograms) {
  tensor_stats_record r;
  r.run = s.column_int(0);
  r.step = s.column_int(1);
  r.layer = s.column_text(2);
  r.op = s.column_text(3);
  r.role = s.column_text(4);
  r.format = s.column_text(5);
  r.count = as_count(s.column_int(6));
  r.zeros = as_count(s.column_int(7));
  r.subnormals = as_count(s.column_int(8));
  r.underflows = as_count(s.column_int(9));
  r.overflows = as_count(s.column_int(10));
  r.nans = as_count(s.column_int(11));
  r.infs = as_count(s.column_int(12));
  r.min_abs = s.column_double(13);
  r.min_nonzero_abs = s.column_double(14);
  r.max_abs = s.column_double(15);
  r.mean = s.column_double(16);
  r.rms = s.column_double(17);
  r.swamped = as_count(s.column_int(18));
  r.partially_swamped = as_count(s.column_int(19));
  if (histograms) {
    r.hist = read_histogram(db, s, 20, 22, r);
    r.ulp_ratio = read_histogram(db, s, 21, 23, r);
  }
  return r;
}

}  // namespace

reader::reader(const std::filesystem::path& file, const std::atomic<bool>* interrupt) : path_(file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw not_a_run_database(file.string() + ": no such file");
  if (std::filesystem::is_directory(file, ec)) {
    throw not_a_run_database(file.string() + ": is a directory, not a run database");
  }
  db_ = std::make_unique<detail::database>(file.string(), SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX);
  // Extra checks on every page read turn subtle damage into SQLITE_CORRUPT.
  db_->exec("PRAGMA cell_size_check = ON");
  if (interrupt != nullptr) {
    // A non-zero return makes the running statement fail with SQLITE_INTERRUPT.
    constexpr int instructions_between_checks = 1000;
    sqlite3_progress_handler(
        db_->handle(), instructions_between_checks,
        [](void* flag) -> int { return static_cast<const std::atomic<bool>*>(flag)->load() ? 1 : 0; },
        const_cast<std::atomic<bool>*>(interrupt));
  }
  detail::check_schema(*db_);
  version_ = static_cast<int>(db_->query_int("PRAGMA user_version"));
  rows_at_open_ = db_->rows_returned();
}

reader::~reader() = default;
reader::reader(reader&&) noexcept = default;

std::uint64_t reader::rows_read() const { return db_->rows_returned() - rows_at_open_; }
reader& reader::operator=(reader&&) noexcept = default;

std::vector<run_info> reader::runs() {
  statement s(*db_, (std::string(run_columns) + " ORDER BY id").c_str());
  std::vector<run_info> out;
  while (s.step()) out.push_back(read_run(*db_, s));
  return out;
}

run_info reader::run(run_id id) {
  statement s(*db_, (std::string(run_columns) + " WHERE id = ?1").c_str());
  s.bind(1, id);
  if (!s.step()) throw error(path_.string() + ": no run with id " + std::to_string(id));
  return read_run(*db_, s);
}

std::int64_t reader::step_count(run_id run) {
  statement s(*db_, "SELECT count(*) FROM steps WHERE run_id = ?1");
  s.bind(1, run);
  return s.step() ? s.column_int(0) : 0;
}

std::optional<step_record> reader::last_step(run_id run) {
  statement s(*db_, (std::string(step_columns) + " WHERE run_id = ?1 ORDER BY step DESC LIMIT 1").c_str());
  s.bind(1, run);
  if (!s.step()) return std::nullopt;
  return read_step(s);
}

std::optional<step_range> reader::step_extent(run_id run, step_range range) {
  // Two seeks (a count or min and max in one statement would scan).
  const auto end_step = [&](const char* order) -> std::optional<std::int64_t> {
    statement e(*db_, (std::string("SELECT step FROM steps WHERE run_id = ?1 AND step BETWEEN ?2 AND ?3 ORDER BY step ") +
                       order + " LIMIT 1").c_str());
    e.bind(1, run).bind(2, range.first).bind(3, range.last);
    if (!e.step()) return std::nullopt;
    return e.column_int(0);
  };
  const auto first = end_step("ASC");
  const auto last = end_step("DESC");
  if (!first || !last) return std::nullopt;
  return step_range{*first, *last};
}

std::vector<step_bucket> reader::step_buckets(run_id run, step_range range, std::int64_t width) {
  statement s(*db_, (std::string(step_columns) +
                     " WHERE run_id = ?1 AND step BETWEEN ?2 AND ?3 ORDER BY step").c_str());
  s.bind(1, run).bind(2, range.first).bind(3, range.last);
  // Merged here as the rows stream by in step order, one bucket's rows held
  // at a time, not with SQL's GROUP BY, whose temporary B-tree of every row
  // spilled to disk and took most of the Overview's time on long runs.
  std::vector<step_bucket> out;
  std::vector<step_record> bucket;
  while (s.step()) {
    step_record r = read_step(s);
    if (!bucket.empty() && bucket_index(r.step, width) != bucket_index(bucket.front().step, width)) {
      append_steps(out, bucket, width);
      bucket.clear();
    }
    bucket.push_back(std::move(r));
  }
  append_steps(out, bucket, width);
  return out;
}

std::vector<step_record> reader::steps(run_id run, step_range range, std::size_t max_points) {
  std::vector<step_record> out;
  const auto extent = max_points == 0 ? std::nullopt : step_extent(run, range);
  const std::int64_t width = extent ? merged_width(extent->first, extent->last, max_points) : 1;
  if (width > 1) {
    for (const auto& b : step_buckets(run, range, width)) out.push_back(b.point());
    return out;
  }
  statement s(*db_, (std::string(step_columns) +
                     " WHERE run_id = ?1 AND step BETWEEN ?2 AND ?3 ORDER BY step").c_str());
  s.bind(1, run).bind(2, range.first).bind(3, range.last);
  while (s.step()) out.push_back(read_step(s));
  return out;
}

std::vector<step_record> reader::skipped_steps(run_id run, step_range range) {
  statement s(*db_, (std::string(step_columns) +
                     " WHERE run_id = ?1 AND step BETWEEN ?2 AND ?3 AND skipped != 0 ORDER BY step").c_str());
  s.bind(1, run).bind(2, range.first).bind(3, range.last);
  std::vector<step_record> out;
  while (s.step()) out.push_back(read_step(s));
  return out;
}

std::vector<tensor_stats_record> reader::tensor_stats(const stats_query& query) {
  // Only the filters in use appear in the SQL, so SQLite can pick the index.
  std::string sql = std::string(stats_columns) + (query.with_histograms ? histogram_columns : no_histogram_columns) +
                    " FROM tensor_stats WHERE run_id = ?1 AND step BETWEEN ?2 AND ?3";
  if (query.layer) sql += " AND layer = ?4";
  if (query.role) sql += " AND role = ?5";
  sql += " ORDER BY step, id";
  statement s(*db_, sql.c_str());
  s.bind(1, query.run).bind(2, query.steps.first).bind(3, query.steps.last);
  if (query.layer) s.bind(4, std::string_view(*query.layer));
  if (query.role) s.bind(5, std::string_view(*query.role));
  std::vector<tensor_stats_record> out;
  while (s.step()) out.push_back(read_stats(*db_, s, query.with_histograms));
  return out;
}

std::optional<tensor_stats_record> reader::histogram(run_id run, std::string_view layer,
                                                     std::string_view role, std::int64_t step) {
  statement s(*db_, (std::string(stats_columns) + histogram_columns +
                     " FROM tensor_stats WHERE run_id = ?1 AND layer = ?2 AND role = ?3 "
                     "AND step <= ?4 ORDER BY step DESC, id LIMIT 1").c_str());
  s.bind(1, run).bind(2, layer).bind(3, role).bind(4, step);
  if (!s.step()) return std::nullopt;
  return read_stats(*db_, s, true);
}

std::vector<std::int64_t> reader::stats_steps(run_id run, std::optional<std::string> role,
                                              std::optional<std::string> layer, step_range steps) {
  std::string sql = "SELECT DISTINCT step FROM tensor_stats WHERE run_id = ?1 AND step BETWEEN ?4 AND ?5";
  if (role) sql += " AND role = ?2";
  if (layer) sql += " AND layer = ?3";
  statement s(*db_, (sql + " ORDER BY step").c_str());
  s.bind(1, run).bind(4, steps.first).bind(5, steps.last);
  if (role) s.bind(2, std::string_view(*role));
  if (layer) s.bind(3, std::string_view(*layer));
  std::vector<std::int64_t> out;
  while (s.step()) out.push_back(s.column_int(0));
  return out;
}

std::optional<std::vector<stats_bucket>> reader::histogram_buckets(run_id run, std::string_view layer,
                                                                   std::string_view role, std::int64_t from_step) {
  if (!has_buckets()) return std::nullopt;
  statement s(*db_,
      // CROSS JOIN keeps the histograms outside: their key leads with the layer.
      "SELECT b.first_step, b.last_step, b.steps, h.hist_first_exponent, h.histogram "
      "FROM tensor_stats_bucket_histograms h CROSS JOIN tensor_stats_buckets b "
      "ON b.run_id = h.run_id AND b.role = h.role AND b.bucket = h.bucket AND b.layer = h.layer "
      "WHERE h.run_id = ?1 AND h.layer = ?2 AND h.role = ?3 AND h.bucket >= ?4 ORDER BY h.bucket");
  s.bind(1, run).bind(2, layer).bind(3, role).bind(4, detail::bucket_of(from_step));
  std::vector<stats_bucket> out;
  while (s.step()) {
    auto h = detail::decode_histogram(s.column_int(3), s.column_blob(4));
    if (!h) damaged(*db_, "malformed summed histogram of " + std::string(layer) + "/" + std::string(role));
    out.push_back({s.column_int(0), s.column_int(1), s.column_int(2), std::move(*h)});
  }
  return out;
}

std::vector<event_record> reader::events(run_id run, step_range range) {
  statement s(*db_, "SELECT run_id, step, kind, layer, message FROM events WHERE run_id = ?1 AND step BETWEEN ?2 AND ?3 "
                    "ORDER BY step, id");
  s.bind(1, run).bind(2, range.first).bind(3, range.last);
  std::vector<event_record> out;
  while (s.step()) {
    event_record e;
    e.run = s.column_int(0);
    e.step = s.column_int(1);
    const std::string kind = s.column_text(2);
    const auto parsed = parse_event_kind(kind);
    if (!parsed) damaged(*db_, "event of unknown kind '" + kind + "'");
    e.kind = *parsed;
    e.layer = s.column_text(3);
    e.message = s.column_text(4);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<evaluation_record> reader::evaluations(run_id run, step_range range) {
  statement s(*db_, "SELECT run_id, epoch, step, loss, accuracy FROM evaluations WHERE run_id = ?1 AND step BETWEEN ?2 "
                    "AND ?3 ORDER BY step, id");
  s.bind(1, run).bind(2, range.first).bind(3, range.last);
  std::vector<evaluation_record> out;
  while (s.step()) {
    evaluation_record e;
    e.run = s.column_int(0);
    e.epoch = s.column_int(1);
    e.step = s.column_int(2);
    e.loss = s.column_optional_double(3).value_or(std::numeric_limits<double>::quiet_NaN());
    e.accuracy = s.column_optional_double(4);
    out.push_back(e);
  }
  return out;
}

std::vector<shadow_error_record> reader::shadow_errors(run_id run, std::optional<std::string> layer) {
  statement s(*db_, layer ? "SELECT run_id, step, layer, role, rel_error FROM shadow_errors "
                            "WHERE run_id = ?1 AND layer = ?2 ORDER BY step, id"
                          : "SELECT run_id, step, layer, role, rel_error FROM shadow_errors "
                            "WHERE run_id = ?1 ORDER BY step, id");
  s.bind(1, run);
  if (layer) s.bind(2, std::string_view(*layer));
  std::vector<shadow_error_record> out;
  while (s.step()) {
    out.push_back({s.column_int(0), s.column_int(1), s.column_text(2), s.column_text(3),
                   s.column_double(4)});
  }
  return out;
}

std::optional<format_info> reader::format(std::string_view name) {
  statement s(*db_, "SELECT name, precision, emin, emax, subnormals, infinities FROM formats WHERE name = ?1");
  s.bind(1, name);
  if (!s.step()) return builtin_format(name);
  const auto narrow = [&](int column) {
    const std::int64_t v = s.column_int(column);
    if (v < -100000 || v > 100000) damaged(*db_, "format " + std::string(name) + " has absurd parameters");
    return static_cast<int>(v);
  };
  return format_info{s.column_text(0), narrow(1), narrow(2), narrow(3), s.column_int(4) != 0,
                     s.column_int(5) != 0};
}

std::vector<std::string> reader::table_names() {
  return {exportable_tables.begin(), exportable_tables.end()};
}

table reader::read_table(std::string_view name, std::optional<run_id> run) {
  if (std::find(exportable_tables.begin(), exportable_tables.end(), name) == exportable_tables.end()) {
    std::string known;
    for (auto t : exportable_tables) known += (known.empty() ? "" : ", ") + std::string(t);
    throw error(path_.string() + ": no table '" + std::string(name) + "' (tables: " + known + ")");
  }
  table out;
  // A table added after the file's version reads as empty; in a file of this
  // version a missing table is damage, which the query below reports.
  if (version_ < rundb::schema_version && !detail::has_table(*db_, name)) {
    out.columns = detail::schema_columns(name);
    return out;
  }
  // The name is one of the fixed identifiers above, never user text.
  std::string sql = "SELECT * FROM " + std::string(name);
  const bool by_run = run && name != "formats";
  if (by_run) sql += " WHERE run_id = ?1";
  statement s(*db_, sql.c_str());
  if (by_run) s.bind(1, *run);
  for (int c = 0; c < s.column_count(); ++c) out.columns.push_back(s.column_name(c));
  while (s.step()) {
    std::vector<cell> row;
    for (int c = 0; c < s.column_count(); ++c) {
      switch (s.column_type(c)) {
        case SQLITE_NULL: row.emplace_back(std::monostate{}); break;
        case SQLITE_INTEGER: row.emplace_back(s.column_int(c)); break;
        case SQLITE_FLOAT: row.emplace_back(s.column_double(c)); break;
        case SQLITE_BLOB: {
          if (out.columns[static_cast<std::size_t>(c)] == "amax_history") {
            auto reals = detail::decode_reals(s.column_blob(c));
            if (!reals) damaged(*db_, "malformed blob in table " + std::string(name));
            row.emplace_back(std::move(*reals));
            break;
          }
          auto counts = detail::decode_counts(s.column_blob(c));
          if (!counts) damaged(*db_, "malformed blob in table " + std::string(name));
          row.emplace_back(std::move(*counts));
          break;
        }
        default: row.emplace_back(s.column_text(c)); break;
      }
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

std::int64_t reader::data_version() { return db_->query_int("PRAGMA data_version"); }

void reader::check_integrity() {
  statement s(*db_, "PRAGMA quick_check");
  while (s.step()) {
    const std::string result = s.column_text(0);
    if (result != "ok") damaged(*db_, result);
  }
}

}  // namespace rundb
