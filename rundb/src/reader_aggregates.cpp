// The run-database reader's per-layer aggregates: the layers and roles a run
// has, counts by layer and step (the GUI's maps and curves) and whole-run totals
// per layer, each read in short statements so a live writer can checkpoint.
#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "bucket_summary.hpp"
#include "rundb/merged_steps.hpp"
#include "rundb/errors.hpp"
#include "rundb/reader.hpp"
#include "rundb/schema.hpp"
#include "schema_sql.hpp"
#include "sqlite.hpp"

namespace rundb {
namespace {

using detail::statement;

// SQLite's total() is a double; clamp before converting so damaged data
// cannot make the conversion undefined.
std::uint64_t total_as_count(double total) {
  if (!(total > 0)) return 0;
  if (total >= 18446744073709551615.0) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(total);
}

}  // namespace

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
struct recorded_extent {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  std::uint64_t distinct = 0;
};

// `distinct` counts at most `count_up_to` + 1 steps (at least one): callers
// only ask whether there are more than that, and counting every distinct
// step of a 100,000-step role costs a scan of its index.
recorded_extent role_extent(detail::database& db, run_id run, const std::string& role, std::uint64_t count_up_to = 0,
                        std::string_view table = "tensor_stats", step_range steps = {}) {
  const std::string from = " FROM " + std::string(table) + " WHERE run_id = ?1 AND role = ?2 AND step BETWEEN ?4 AND ?5";
  // Two statements: SQLite answers a lone min() or max() with one index seek,
  // but scans the whole range for both in one (1.4 s for a 2M-row role).
  statement low(db, ("SELECT min(step)" + from).c_str()), high(db, ("SELECT max(step)" + from).c_str());
  low.bind(1, run).bind(2, std::string_view(role)).bind(4, steps.first).bind(5, steps.last);
  high.bind(1, run).bind(2, std::string_view(role)).bind(4, steps.first).bind(5, steps.last);
  if (!low.step() || low.is_null(0) || !high.step() || high.is_null(0)) return {};
  recorded_extent extent{low.column_int(0), high.column_int(0), 0};
  statement distinct(db, ("SELECT count(*) FROM (SELECT DISTINCT step" + from + " LIMIT ?3)").c_str());
  const auto limit = static_cast<std::int64_t>(std::min<std::uint64_t>(count_up_to, 1ULL << 62) + 1);
  distinct.bind(1, run).bind(2, std::string_view(role)).bind(3, limit).bind(4, steps.first).bind(5, steps.last);
  extent.distinct = distinct.step() ? static_cast<std::uint64_t>(distinct.column_int(0)) : 0;
  return extent;
}

// Whole-run aggregates read one role and one slice of steps per statement.
// Each statement is its own short read transaction, so a scan of a run of any
// size never pins one WAL snapshot for long: a live writer's checkpoints keep
// up and its WAL stays bounded. Slices follow the (run_id, role, step) index.
constexpr std::uint64_t slices_per_role = 64;

template <typename Visit>
void for_each_slice(const recorded_extent& extent, Visit visit) {
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
                                                              std::size_t max_columns, step_range steps) {
  const std::array<counted_stat, 1> one{stat};
  return std::move(counts_by_layer_and_step(run, role, one, max_columns, steps).front());
}

std::vector<layer_step_cell> reader::counts_by_layer_and_step(run_id run, std::string_view role, counted_stat stat,
                                                              column_width width, step_range steps) {
  const std::array<counted_stat, 1> one{stat};
  return std::move(counts_by_layer_and_step(run, role, one, width, steps).front());
}

std::vector<std::vector<layer_step_cell>> reader::counts_by_layer_and_step(run_id run, std::string_view role,
                                                                           std::span<const counted_stat> stats,
                                                                           std::size_t max_columns, step_range steps) {
  if (stats.empty()) return {};
  return counts_by_layer_and_step(run, role, stats, map_column_width(run, role, table_of(stats.front()), max_columns, steps),
                                  steps);
}

namespace {

// The steps each role of `role_list` recorded in `steps`, and their union
// (its `distinct` an upper bound when the roles' steps differ).
std::pair<std::vector<recorded_extent>, recorded_extent> role_extents(detail::database& db, run_id run,
                                                                      const std::vector<std::string>& role_list,
                                                                      std::string_view table,
                                                                      std::uint64_t count_up_to, step_range steps) {
  std::pair<std::vector<recorded_extent>, recorded_extent> out;
  auto& [extents, all] = out;
  for (const auto& r : role_list) {
    extents.push_back(role_extent(db, run, r, count_up_to, table, steps));
    all.first = std::min(all.first, extents.back().first);
    all.last = std::max(all.last, extents.back().last);
    all.distinct += extents.back().distinct;
  }
  return out;
}

}  // namespace

column_width reader::map_column_width(run_id run, std::string_view role, stats_table table, std::size_t max_columns,
                                      step_range steps) {
  if (max_columns == 0 || !has_table(table)) return {};
  const std::vector<std::string> role_list =
      role.empty() ? roles(run, std::nullopt, table) : std::vector<std::string>{std::string(role)};
  const auto all = role_extents(*db_, run, role_list, table_name(table), max_columns, steps).second;
  if (all.distinct <= max_columns) return {};
  return {merged_width(all.first, all.last, max_columns)};
}

std::vector<std::vector<layer_step_cell>> reader::counts_by_layer_and_step(run_id run, std::string_view role,
                                                                           std::span<const counted_stat> stats,
                                                                           column_width width, step_range steps) {
  if (width.steps < 1 || (width.steps & (width.steps - 1)) != 0)
    throw error("counts_by_layer_and_step: a column width of " + std::to_string(width.steps) +
                " steps is not a power of two");
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
  const auto [extents, all] = role_extents(*db_, run, role_list, from, 0, steps);
  if (all.distinct == 0) return out;
  // Columns of a power-of-two width aligned to multiples of it
  // (rundb/merged_steps.hpp): as a run grows they only merge pairwise.
  const std::int64_t bucket = width.steps;
  // Schema v4 keeps each summary bucket's worst step per counted column:
  // columns of summary_bucket_steps or more (a power of two, so whole
  // summary buckets) pool those, reading a row per layer and summary bucket
  // instead of one per record. The summaries cover whole buckets: a narrower
  // range of steps reads the records.
  constexpr std::int64_t summary = summary_bucket_steps;
  static_assert((summary & (summary - 1)) == 0, "summary buckets nest in the map's power-of-two columns");
  const bool whole_run = steps.first == step_range{}.first && steps.last == step_range{}.last;
  const bool from_summaries = has_buckets() && table == stats_table::tensor_stats && bucket >= summary && whole_run;
  // A column starts at its aligned first step, but not before the range
  // does (the first recorded step, for the whole run).
  const std::int64_t lower = steps.first == step_range{}.first ? all.first : steps.first;
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
  // Finds (or adds) a layer's index; `last` caches the previous row's.
  std::string_view last_name;
  std::size_t last_layer = 0;
  bool have_last = false;
  const auto layer_index = [&](std::string_view name) {
    if (have_last && name == last_name) return last_layer;
    auto at = layer_of.find(name);
    if (at == layer_of.end()) {
      at = layer_of.emplace(std::string(name), layer_names.size()).first;
      layer_names.emplace_back(name);
      first_id.push_back(std::numeric_limits<std::int64_t>::max());
      for (auto& per_stat : cells) per_stat.emplace_back();
    }
    last_layer = at->second;
    last_name = at->first;  // stays valid: the map owns it
    have_last = true;
    return last_layer;
  };
  // Pools one (step, layer, role) sum, or one summary bucket's worst step, into its column.
  const auto pool = [&](std::size_t layer, std::size_t k, const kept& c) {
    auto& row = cells[k][layer];
    auto at = row.end();
    if (row.empty() || row.back().bucket < c.bucket) {
      row.push_back(c);
      return;
    }
    if (row.back().bucket == c.bucket) {
      at = row.end() - 1;
    } else {  // a later role revisits earlier buckets
      at = std::lower_bound(row.begin(), row.end(), c.bucket, [](const kept& a, std::int64_t b) { return a.bucket < b; });
      if (at == row.end() || at->bucket != c.bucket) {
        row.insert(at, c);
        return;
      }
    }
    // Ties keep the earlier step, then the role listed first.
    const double now = fraction(c.counted, c.values), before = fraction(at->counted, at->values);
    if (now > before || (now == before && c.worst_step < at->worst_step)) *at = c;
  };
  const auto column_of = [&](std::int64_t step) { return bucket_index(step, bucket); };
  if (from_summaries) {
    // Layers in order of first appearance, as the record path orders them by row id.
    std::int64_t order = 0;
    for (const auto& name : layers(run)) first_id[layer_index(name)] = order++;
    std::string sql = "SELECT layer, first_step";
    for (const counted_stat stat : stats) {
      const std::string c = detail::counted_stat_columns.at(static_cast<std::size_t>(stat));
      sql += ", worst_" + c + "_step, worst_" + c + ", worst_" + c + "_count";
    }
    sql += " FROM tensor_stats_buckets WHERE run_id = ?1 AND role = ?2 ORDER BY bucket, layer";
    for (std::size_t r = 0; r < role_list.size(); ++r) {
      statement s(*db_, sql.c_str());
      s.bind(1, run).bind(2, std::string_view(role_list[r]));
      while (s.step()) {
        const std::size_t layer = layer_index(s.column_text_view(0));
        const std::int64_t index = column_of(s.column_int(1));
        for (std::size_t k = 0; k < stats.size(); ++k) {
          const int at = static_cast<int>(2 + 3 * k);
          pool(layer, k, {index, s.column_int(at), r, s.column_double(at + 1), s.column_double(at + 2)});
        }
      }
    }
  } else {
    // SQL sums the records of one step, layer and role; the pooling into
    // buckets keeps the worst of those sums (max is associative, so roles and
    // slices merge in any order). (step, layer) follows the
    // (run_id, role, step, ...) index, so SQLite neither sorts nor, with the
    // covering indexes of schema v3, reads the table.
    std::string sql = "SELECT layer, step, min(id), total(count)";
    // Fixed identifiers, never user text.
    for (const counted_stat stat : stats)
      sql += std::string(", total(") + detail::counted_stat_columns.at(static_cast<std::size_t>(stat)) + ")";
    sql += " FROM " + std::string(from) +
           " WHERE run_id = ?1 AND role = ?2 AND step BETWEEN ?3 AND ?4 GROUP BY step, layer ORDER BY step, layer";
    for (std::size_t r = 0; r < role_list.size(); ++r) {
      for_each_slice(extents[r], [&](std::int64_t lo, std::int64_t hi) {
        statement s(*db_, sql.c_str());
        s.bind(1, run).bind(2, std::string_view(role_list[r])).bind(3, lo).bind(4, hi);
        while (s.step()) {
          const std::size_t layer = layer_index(s.column_text_view(0));
          const std::int64_t step = s.column_int(1);
          first_id[layer] = std::min(first_id[layer], s.column_int(2));
          const double values = s.column_double(3);
          const std::int64_t index = column_of(step);
          for (std::size_t k = 0; k < stats.size(); ++k) pool(layer, k, {index, step, r, s.column_double(static_cast<int>(4 + k)), values});
        }
      });
    }
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
      // floor(step / bucket) * bucket lies between a recorded step and
      // int64's minimum, a multiple of every power of two: no overflow.
      const auto start = std::max(lower, p.bucket * bucket);
      out[k].push_back({layer_names[p.layer], start, p.cell->worst_step, role_list[p.cell->role], p.cell->counted,
                        p.cell->values});
    }
  }
  return out;
}

std::vector<layer_totals> reader::totals_by_layer(run_id run) {
  struct accumulated {
    layer_totals totals;
    double count = 0, underflows = 0, overflows = 0, subnormals = 0, nans = 0, infs = 0, swamped = 0, partial = 0;
    // Adds the totals of count, underflows, overflows, subnormals, nans, infs,
    // swamped and partially_swamped, in that order from column `first`.
    void add(const statement& s, int first) {
      for (double* sum : {&count, &underflows, &overflows, &subnormals, &nans, &infs, &swamped, &partial})
        *sum += s.column_double(first++);
    }
  };
  std::map<std::pair<std::string, std::string>, accumulated> by_site;
  if (has_buckets()) {
    // One row per site, summed over its summary buckets.
    statement s(*db_,
        "SELECT layer, role, total(records), total(count), total(underflows), total(overflows), total(subnormals), "
        "total(nans), total(infs), total(swamped), total(partially_swamped) FROM tensor_stats_buckets "
        "WHERE run_id = ?1 GROUP BY layer, role");
    s.bind(1, run);
    while (s.step()) {
      auto& a = by_site[{s.column_text(0), s.column_text(1)}];
      a.totals.layer = s.column_text(0);
      a.totals.role = s.column_text(1);
      a.totals.records = static_cast<std::int64_t>(total_as_count(s.column_double(2)));
      a.add(s, 3);  // one row per site: added to zeros
    }
  } else {
    for (const auto& role : roles(run)) {
      for_each_slice(role_extent(*db_, run, role), [&](std::int64_t lo, std::int64_t hi) {
        statement s(*db_,
            "SELECT layer, count(*), total(count), total(underflows), total(overflows), total(subnormals), "
            "total(nans), total(infs), total(swamped), total(partially_swamped) FROM tensor_stats "
            "WHERE run_id = ?1 AND role = ?2 AND step BETWEEN ?3 AND ?4 GROUP BY layer");
        s.bind(1, run).bind(2, std::string_view(role)).bind(3, lo).bind(4, hi);
        while (s.step()) {
          auto [at, added] = by_site.try_emplace({s.column_text(0), role});
          auto& a = at->second;
          if (added) {
            a.totals.layer = s.column_text(0);
            a.totals.role = role;
          }
          a.totals.records += s.column_int(1);
          a.add(s, 2);
        }
      });
    }
  }
  // A full key, (layer's rank, role name), so both paths list the sites in
  // one order: rows of one layer tie on the rank, and an unstable sort on it
  // alone scrambled their roles.
  std::map<std::string, std::size_t, std::less<>> layer_rank;
  for (const auto& name : layers(run)) layer_rank.emplace(name, layer_rank.size());
  const auto key = [&](const accumulated* a) {
    const auto rank = layer_rank.find(a->totals.layer);
    return std::pair<std::size_t, std::string_view>{rank == layer_rank.end() ? layer_rank.size() : rank->second,
                                                    a->totals.role};
  };
  std::vector<accumulated*> ordered;
  for (auto& [site, a] : by_site) ordered.push_back(&a);
  std::sort(ordered.begin(), ordered.end(), [&](const auto* a, const auto* b) { return key(a) < key(b); });
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

}  // namespace rundb
