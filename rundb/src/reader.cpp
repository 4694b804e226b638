// The run-database reader: read-only queries returning plain records.
#include "rundb/reader.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <utility>

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

// SQLite's total() is a double; clamp before converting so damaged data
// cannot make the conversion undefined.
std::uint64_t total_as_count(double total) {
  if (!(total > 0)) return 0;
  if (total >= 18446744073709551615.0) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(total);
}

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
}

reader::~reader() = default;
reader::reader(reader&&) noexcept = default;
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

std::vector<step_record> reader::steps(run_id run, step_range range, std::size_t max_points) {
  std::vector<step_record> out;
  if (max_points > 0) {
    statement extent(*db_,
        "SELECT count(*), min(step), max(step) FROM steps WHERE run_id = ?1 AND step BETWEEN ?2 AND ?3");
    extent.bind(1, run).bind(2, range.first).bind(3, range.last);
    if (!extent.step() || extent.column_int(0) == 0) return out;
    if (static_cast<std::uint64_t>(extent.column_int(0)) > max_points) {
      const std::int64_t first = extent.column_int(1);
      // Unsigned arithmetic: the span of a damaged file may not fit in int64.
      const std::uint64_t span =
          static_cast<std::uint64_t>(extent.column_int(2)) - static_cast<std::uint64_t>(first);
      const auto bucket = static_cast<std::int64_t>(std::min<std::uint64_t>(
          span / max_points + 1, std::numeric_limits<std::int64_t>::max()));
      statement s(*db_,
          "SELECT run_id, min(step), min(epoch), avg(loss), min(loss_scale), max(skipped), "
          "max(skip_reason), avg(lr), avg(grad_norm), max(wall_time) FROM steps "
          "WHERE run_id = ?1 AND step BETWEEN ?2 AND ?3 GROUP BY (step - ?4) / ?5 ORDER BY 2");
      s.bind(1, run).bind(2, range.first).bind(3, range.last).bind(4, first).bind(5, bucket);
      while (s.step()) out.push_back(read_step(s));
      return out;
    }
  }
  statement s(*db_, (std::string(step_columns) +
                     " WHERE run_id = ?1 AND step BETWEEN ?2 AND ?3 ORDER BY step").c_str());
  s.bind(1, run).bind(2, range.first).bind(3, range.last);
  while (s.step()) out.push_back(read_step(s));
  return out;
}

std::vector<step_record> reader::skipped_steps(run_id run) {
  statement s(*db_, (std::string(step_columns) + " WHERE run_id = ?1 AND skipped != 0 ORDER BY step").c_str());
  s.bind(1, run);
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

std::vector<std::int64_t> reader::stats_steps(run_id run, std::optional<std::string> role) {
  statement s(*db_, role ? "SELECT DISTINCT step FROM tensor_stats WHERE run_id = ?1 AND role = ?2 ORDER BY step"
                         : "SELECT DISTINCT step FROM tensor_stats WHERE run_id = ?1 ORDER BY step");
  s.bind(1, run);
  if (role) s.bind(2, std::string_view(*role));
  std::vector<std::int64_t> out;
  while (s.step()) out.push_back(s.column_int(0));
  return out;
}

namespace {

// The distinct values of `column` among a run's rows of a statistics table (with
// `layer` fixed when given), ascending, by a skip-scan: one index seek per
// value instead of a scan of the run's millions of rows. `column` is a fixed
// identifier, never user text.
std::vector<std::string> distinct_values(detail::database& db, std::string_view table, run_id run, const char* column,
                                         const std::optional<std::string>& layer) {
  const std::string where = std::string("run_id = ?1") + (layer ? " AND layer = ?2" : "");
  const std::string from = std::string(") FROM ") + std::string(table) + " WHERE ";
  const std::string sql = std::string("WITH RECURSIVE v(x) AS (SELECT (SELECT min(") + column + from + where +
                          ") UNION ALL SELECT (SELECT min(" + column + from + where + " AND " + column +
                          " > v.x) FROM v WHERE v.x IS NOT NULL) SELECT x FROM v WHERE x IS NOT NULL";
  statement s(db, sql.c_str());
  s.bind(1, run);
  if (layer) s.bind(2, std::string_view(*layer));
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

}  // namespace

std::string_view table_name(stats_table table) {
  return table == stats_table::scale_stats ? "scale_stats" : "tensor_stats";
}

stats_table table_of(counted_stat stat) {
  return stat >= counted_stat::block_underflow ? stats_table::scale_stats : stats_table::tensor_stats;
}

bool reader::has_table(stats_table table) const {
  return table == stats_table::tensor_stats || has_v3_tables();
}

std::vector<std::string> reader::layers(run_id run, stats_table table) {
  if (!has_table(table)) return {};
  const std::string_view name = table_name(table);
  // Order of first appearance: by each layer's first recorded step, then the
  // smallest row id at that step (the writer's order within a step); each
  // found with index seeks per (layer, role).
  struct first_seen {
    std::int64_t step = std::numeric_limits<std::int64_t>::max();
    std::int64_t id = std::numeric_limits<std::int64_t>::max();
    std::string layer{};
  };
  std::vector<first_seen> seen;
  const std::string first_sql = "SELECT step, min(id) FROM " + std::string(name) +
                                " WHERE run_id = ?1 AND layer = ?2 AND role = ?3 AND step = (SELECT min(step) FROM " +
                                std::string(name) + " WHERE run_id = ?1 AND layer = ?2 AND role = ?3)";
  statement first(*db_, first_sql.c_str());
  for (auto& layer : distinct_values(*db_, name, run, "layer", std::nullopt)) {
    first_seen f;
    for (const auto& role : distinct_values(*db_, name, run, "role", layer)) {
      first.reset();
      first.bind(1, run).bind(2, std::string_view(layer)).bind(3, std::string_view(role));
      if (!first.step() || first.is_null(0)) continue;
      const std::pair candidate{first.column_int(0), first.column_int(1)};
      if (candidate < std::pair{f.step, f.id}) std::tie(f.step, f.id) = candidate;
    }
    f.layer = std::move(layer);
    seen.push_back(std::move(f));
  }
  std::sort(seen.begin(), seen.end(),
            [](const first_seen& a, const first_seen& b) { return std::pair{a.step, a.id} < std::pair{b.step, b.id}; });
  std::vector<std::string> out;
  out.reserve(seen.size());
  for (auto& f : seen) out.push_back(std::move(f.layer));
  return out;
}

std::vector<std::string> reader::roles(run_id run, std::optional<std::string> layer, stats_table table) {
  if (!has_table(table)) return {};
  return distinct_values(*db_, table_name(table), run, "role", layer);
}

namespace {

// The steps one role recorded: where they start and end, and how many.
struct step_extent {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  std::uint64_t distinct = 0;
};

// `distinct` counts at most `count_up_to` + 1 steps (at least one): callers
// only ask whether there are more than that, and counting every distinct
// step of a 100,000-step role costs a scan of its index.
step_extent role_extent(detail::database& db, run_id run, const std::string& role, std::uint64_t count_up_to = 0,
                        std::string_view table = "tensor_stats") {
  const std::string from = " FROM " + std::string(table) + " WHERE run_id = ?1 AND role = ?2";
  statement bounds(db, ("SELECT min(step), max(step)" + from).c_str());
  bounds.bind(1, run).bind(2, std::string_view(role));
  if (!bounds.step() || bounds.is_null(0)) return {};
  step_extent extent{bounds.column_int(0), bounds.column_int(1), 0};
  statement distinct(db, ("SELECT count(*) FROM (SELECT DISTINCT step" + from + " LIMIT ?3)").c_str());
  const auto limit = static_cast<std::int64_t>(std::min<std::uint64_t>(count_up_to, 1ULL << 62) + 1);
  distinct.bind(1, run).bind(2, std::string_view(role)).bind(3, limit);
  extent.distinct = distinct.step() ? static_cast<std::uint64_t>(distinct.column_int(0)) : 0;
  return extent;
}

// Whole-run aggregates read one role and one slice of steps per statement.
// Each statement is its own short read transaction, so a scan of a run of any
// size never pins one WAL snapshot for long: a live writer's checkpoints keep
// up and its WAL stays bounded. Slices follow the (run_id, role, step) index.
constexpr std::uint64_t slices_per_role = 64;

template <typename Visit>
void for_each_slice(const step_extent& extent, Visit visit) {
  if (extent.distinct == 0) return;
  const std::uint64_t span = static_cast<std::uint64_t>(extent.last) - static_cast<std::uint64_t>(extent.first);
  const std::uint64_t width = span / slices_per_role + 1;
  for (std::uint64_t from = 0; from <= span; from += width) {
    const auto lo = static_cast<std::int64_t>(static_cast<std::uint64_t>(extent.first) + from);
    const std::uint64_t to = std::min(span, from + width - 1);
    visit(lo, static_cast<std::int64_t>(static_cast<std::uint64_t>(extent.first) + to));
    if (to == span) break;
  }
}

}  // namespace

std::vector<layer_step_cell> reader::counts_by_layer_and_step(run_id run, std::string_view role, counted_stat stat,
                                                              std::size_t max_columns) {
  const std::array<counted_stat, 1> one{stat};
  return std::move(counts_by_layer_and_step(run, role, one, max_columns).front());
}

std::vector<std::vector<layer_step_cell>> reader::counts_by_layer_and_step(run_id run, std::string_view role,
                                                                           std::span<const counted_stat> stats,
                                                                           std::size_t max_columns) {
  // Fixed identifiers, never user text.
  static constexpr std::array<const char*, 11> columns{
      "zeros", "subnormals", "underflows", "overflows", "nans", "infs", "swamped", "partially_swamped",
      "block_underflow", "underflow_to_zero", "saturated"};
  std::vector<std::vector<layer_step_cell>> out(stats.size());
  if (stats.empty()) return out;
  const stats_table table = table_of(stats.front());
  for (const counted_stat stat : stats) {
    if (table_of(stat) != table) throw error("counts_by_layer_and_step: the counted stats come from different tables");
  }
  if (!has_table(table)) return out;
  const std::string_view from = table_name(table);
  const std::vector<std::string> role_list =
      role.empty() ? roles(run, std::nullopt, table) : std::vector<std::string>{std::string(role)};
  std::vector<step_extent> extents;
  step_extent all;
  for (const auto& r : role_list) {
    extents.push_back(role_extent(*db_, run, r, max_columns, from));
    all.first = std::min(all.first, extents.back().first);
    all.last = std::max(all.last, extents.back().last);
    all.distinct += extents.back().distinct;  // an upper bound of the union when roles differ
  }
  if (all.distinct == 0) return out;
  const std::int64_t first = all.first;
  std::int64_t bucket = 1;
  if (max_columns > 0 && all.distinct > max_columns) {
    const std::uint64_t span = static_cast<std::uint64_t>(all.last) - static_cast<std::uint64_t>(first);
    bucket = static_cast<std::int64_t>(
        std::min<std::uint64_t>(span / max_columns + 1, std::numeric_limits<std::int64_t>::max()));
  }
  // SQL sums the records of one step, layer and role; the pooling into
  // buckets keeps the worst of those sums (max is associative, so roles and
  // slices merge in any order). (step, layer) follows the
  // (run_id, role, step, ...) index, so SQLite neither sorts nor, with the
  // covering indexes of schema v3, reads the table.
  std::string sql = "SELECT layer, step, min(id), total(count)";
  for (const counted_stat stat : stats) sql += std::string(", total(") + columns.at(static_cast<std::size_t>(stat)) + ")";
  sql += " FROM " + std::string(from) +
         " WHERE run_id = ?1 AND role = ?2 AND step BETWEEN ?3 AND ?4 GROUP BY step, layer ORDER BY step, layer";
  // Millions of rows pass through here: layers become small indices and each
  // layer's cells a vector in bucket order (rows come by step), so a row
  // costs a few comparisons, not string-keyed map lookups.
  struct kept {
    std::int64_t bucket = 0;  // bucket index
    std::int64_t worst_step = 0;
    std::size_t role = 0;
    double counted = 0, values = 0;
  };
  std::vector<std::string> layer_names;
  std::vector<std::int64_t> first_id;  // per layer: smallest row id, the order of first appearance
  std::map<std::string, std::size_t, std::less<>> layer_of;
  std::vector<std::vector<std::vector<kept>>> cells(stats.size());  // [stat][layer] -> cells by bucket
  const auto fraction = [](double counted, double values) { return values > 0 ? counted / values : 0.0; };
  for (std::size_t r = 0; r < role_list.size(); ++r) {
    for_each_slice(extents[r], [&](std::int64_t lo, std::int64_t hi) {
      statement s(*db_, sql.c_str());
      s.bind(1, run).bind(2, std::string_view(role_list[r])).bind(3, lo).bind(4, hi);
      std::size_t layer = 0;
      std::string_view last_name;
      bool have_last = false;
      while (s.step()) {
        const std::string_view name = s.column_text_view(0);
        if (!have_last || name != last_name) {
          auto at = layer_of.find(name);
          if (at == layer_of.end()) {
            at = layer_of.emplace(std::string(name), layer_names.size()).first;
            layer_names.emplace_back(name);
            first_id.push_back(std::numeric_limits<std::int64_t>::max());
            for (auto& per_stat : cells) per_stat.emplace_back();
          }
          layer = at->second;
          last_name = at->first;  // stays valid: the map owns it
          have_last = true;
        }
        const std::int64_t step = s.column_int(1);
        first_id[layer] = std::min(first_id[layer], s.column_int(2));
        const double values = s.column_double(3);
        // Unsigned arithmetic, wrapping instead of overflowing on damaged steps.
        const auto offset = static_cast<std::uint64_t>(step) - static_cast<std::uint64_t>(first);
        const auto index = static_cast<std::int64_t>(offset / static_cast<std::uint64_t>(bucket));
        for (std::size_t k = 0; k < stats.size(); ++k) {
          const kept c{index, step, r, s.column_double(static_cast<int>(4 + k)), values};
          auto& row = cells[k][layer];
          auto at = row.end();
          if (row.empty() || row.back().bucket < index) {
            row.push_back(c);
            continue;
          }
          if (row.back().bucket == index) {
            at = row.end() - 1;
          } else {  // a later role revisits earlier buckets
            at = std::lower_bound(row.begin(), row.end(), index,
                                  [](const kept& a, std::int64_t b) { return a.bucket < b; });
            if (at == row.end() || at->bucket != index) {
              row.insert(at, c);
              continue;
            }
          }
          // Ties keep the earlier step, then the role listed first.
          const double now = fraction(c.counted, c.values), before = fraction(at->counted, at->values);
          if (now > before || (now == before && c.worst_step < at->worst_step)) *at = c;
        }
      }
    });
  }
  std::vector<std::size_t> layer_order(layer_names.size());
  for (std::size_t l = 0; l < layer_order.size(); ++l) layer_order[l] = l;
  std::sort(layer_order.begin(), layer_order.end(), [&](std::size_t a, std::size_t b) { return first_id[a] < first_id[b]; });
  std::vector<std::size_t> rank(layer_names.size());
  for (std::size_t i = 0; i < layer_order.size(); ++i) rank[layer_order[i]] = i;
  for (std::size_t k = 0; k < stats.size(); ++k) {
    struct placed {
      std::int64_t bucket;
      std::size_t layer;
      const kept* cell;
    };
    std::vector<placed> all;
    for (std::size_t l = 0; l < cells[k].size(); ++l)
      for (const auto& c : cells[k][l]) all.push_back({c.bucket, l, &c});
    // By bucket, then layer in order of first appearance.
    std::sort(all.begin(), all.end(), [&](const placed& a, const placed& b) {
      return a.bucket != b.bucket ? a.bucket < b.bucket : rank[a.layer] < rank[b.layer];
    });
    out[k].reserve(all.size());
    for (const auto& p : all) {
      // Every layer of a bucket reports the same step: the bucket's start.
      const auto start = static_cast<std::int64_t>(static_cast<std::uint64_t>(first) +
                                                   static_cast<std::uint64_t>(p.bucket) * static_cast<std::uint64_t>(bucket));
      out[k].push_back({layer_names[p.layer], start, p.cell->worst_step, role_list[p.cell->role], p.cell->counted,
                        p.cell->values});
    }
  }
  return out;
}

std::vector<layer_totals> reader::totals_by_layer(run_id run) {
  struct accumulated {
    layer_totals totals;
    std::int64_t first_id;
    double count = 0, underflows = 0, overflows = 0, subnormals = 0, nans = 0, infs = 0, swamped = 0, partial = 0;
  };
  std::map<std::pair<std::string, std::string>, accumulated> by_site;
  for (const auto& role : roles(run)) {
    for_each_slice(role_extent(*db_, run, role), [&](std::int64_t lo, std::int64_t hi) {
      statement s(*db_,
          "SELECT layer, count(*), total(count), total(underflows), total(overflows), total(subnormals), "
          "total(nans), total(infs), total(swamped), total(partially_swamped), min(id) FROM tensor_stats "
          "WHERE run_id = ?1 AND role = ?2 AND step BETWEEN ?3 AND ?4 GROUP BY layer");
      s.bind(1, run).bind(2, std::string_view(role)).bind(3, lo).bind(4, hi);
      while (s.step()) {
        auto [at, added] = by_site.try_emplace({s.column_text(0), role});
        auto& a = at->second;
        if (added) {
          a.totals.layer = s.column_text(0);
          a.totals.role = role;
          a.first_id = s.column_int(10);
        }
        a.first_id = std::min(a.first_id, s.column_int(10));
        a.totals.records += s.column_int(1);
        a.count += s.column_double(2);
        a.underflows += s.column_double(3);
        a.overflows += s.column_double(4);
        a.subnormals += s.column_double(5);
        a.nans += s.column_double(6);
        a.infs += s.column_double(7);
        a.swamped += s.column_double(8);
        a.partial += s.column_double(9);
      }
    });
  }
  std::vector<accumulated*> ordered;
  for (auto& [key, a] : by_site) ordered.push_back(&a);
  std::sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) { return a->first_id < b->first_id; });
  std::vector<layer_totals> out;
  for (auto* a : ordered) {
    layer_totals t = std::move(a->totals);
    t.count = total_as_count(a->count);
    t.underflows = total_as_count(a->underflows);
    t.overflows = total_as_count(a->overflows);
    t.subnormals = total_as_count(a->subnormals);
    t.nans = total_as_count(a->nans);
    t.infs = total_as_count(a->infs);
    t.swamped = total_as_count(a->swamped);
    t.partially_swamped = total_as_count(a->partial);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<event_record> reader::events(run_id run) {
  statement s(*db_, "SELECT run_id, step, kind, layer, message FROM events WHERE run_id = ?1 ORDER BY step, id");
  s.bind(1, run);
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

std::vector<evaluation_record> reader::evaluations(run_id run) {
  statement s(*db_, "SELECT run_id, epoch, step, loss, accuracy FROM evaluations WHERE run_id = ?1 ORDER BY step, id");
  s.bind(1, run);
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
