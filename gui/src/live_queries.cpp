// Live refreshes that read only appended rows; see live_queries.hpp.
#include "live_queries.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "run_queries.hpp"

namespace numlab_gui {

overview_series refresh_overview(overview_series held, std::size_t max_points, const interrupt_flag& interrupt) {
  if (held.buckets.empty()) return load_overview(held.run, max_points, interrupt);
  rundb::reader db(held.run.file.toStdString(), &interrupt);
  // Aligned, so no earlier bucket's steps are read again.
  const rundb::step_range since{.first = held.buckets.back().index * held.width};
  held.buckets.pop_back();
  auto fresh = db.step_buckets(held.run.id, since, held.width);
  held.buckets.insert(held.buckets.end(), std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
  if (held.buckets.empty()) return load_overview(held.run, max_points, interrupt);
  // The last bucket's aligned start stands for the last step: at this width
  // and every wider one both lie in the same bucket.
  const std::int64_t needed = rundb::merged_width(held.buckets.front().first.step,
                                                  held.buckets.back().index * held.width, max_points);
  for (; held.width < needed; held.width *= 2) rundb::double_width(held.buckets);
  held.steps.clear();
  held.total_steps = 0;
  for (const auto& b : held.buckets) {
    held.steps.push_back(b.point());
    held.total_steps += b.steps;
  }
  append_tail(held.skipped, db.skipped_steps(held.run.id, since));
  append_tail(held.evaluations, db.evaluations(held.run.id, tail_range(held.evaluations)));
  held.rows_read = db.rows_read();
  return held;
}

namespace {

// `held` with `cells` (read from its last column on, at its width) in place
// of that column, its columns merged pairwise while they span more than
// max_columns; nullopt when a full read must replace it: a new layer
// changes the rows' order, and a grid of a column per step that outgrows
// max_columns (of one role: its columns are its distinct steps) is read
// merged once.
std::optional<map_grid> extended(const map_grid& held, const std::vector<rundb::layer_step_cell>& cells,
                                 std::size_t max_columns) {
  std::vector<std::int64_t> fresh_steps;
  for (const auto& c : cells) {
    if (std::find(held.layers.begin(), held.layers.end(), c.layer) == held.layers.end()) return std::nullopt;
    if (fresh_steps.empty() || fresh_steps.back() != c.step) fresh_steps.push_back(c.step);
  }
  const std::size_t kept = held.steps.size() - 1;
  if (held.column_steps == 1 && kept + fresh_steps.size() > max_columns) return std::nullopt;
  map_grid grid;
  grid.layers = held.layers;
  grid.role = held.role;
  grid.column_steps = held.column_steps;
  grid.steps.assign(held.steps.begin(), held.steps.begin() + static_cast<std::ptrdiff_t>(kept));
  grid.steps.insert(grid.steps.end(), fresh_steps.begin(), fresh_steps.end());
  grid.clear_cells();
  for (std::size_t l = 0; l < grid.layers.size(); ++l) {
    for (std::size_t c = 0; c < kept; ++c) {
      const std::size_t to = l * grid.steps.size() + c, from = l * held.steps.size() + c;
      grid.fractions[to] = held.fractions[from];
      grid.worst_steps[to] = held.worst_steps[from];
      grid.cell_roles[to] = held.cell_roles[from];
    }
  }
  grid.place(cells, kept);
  if (grid.column_steps > 1 && !grid.steps.empty()) {
    // Columns start at their bucket's aligned step (the first at the first
    // recorded one): the last start stands for the last step, as in refresh_overview.
    const std::int64_t needed = rundb::merged_width(grid.steps.front(), grid.steps.back(), max_columns);
    while (grid.column_steps < needed) grid.double_column_width();
  }
  return grid;
}

}  // namespace

map_grid refresh_map(const map_grid& held, const run_ref& run, map_metric metric, std::size_t max_columns,
                     const interrupt_flag& interrupt) {
  const std::string asked = held.role.empty() ? std::string(all_roles) : held.role;
  const auto reload = [&] { return load_map(run, asked, metric, max_columns, interrupt); };
  if (held.steps.empty()) return reload();
  rundb::reader db(run.file.toStdString(), &interrupt);
  const auto stat = counted_stat_of(metric);
  // From the last held column on: its records may have been read before all were written.
  const rundb::step_range since{.first = held.steps.back()};
  const auto cells = db.counts_by_layer_and_step(run.id, held.role, stat, rundb::column_width{held.column_steps}, since);
  // Every role: reader::map_column_width sums each role's distinct steps, which the columns do not show.
  if (held.role.empty() && held.column_steps == 1 &&
      db.map_column_width(run.id, held.role, rundb::table_of(stat), max_columns).steps > 1) {
    return reload();
  }
  auto grid = extended(held, cells, max_columns);
  if (!grid) return reload();
  grid->roles = db.roles(run.id, {}, rundb::table_of(stat));
  grid->skipped = held.skipped;
  append_tail(grid->skipped, db.skipped_steps(run.id, since));
  grid->overflow_events = held.overflow_events;
  append_tail(grid->overflow_events, overflow_events(db, run.id, since));
  grid->rows_read = db.rows_read();
  return std::move(*grid);
}

swamping_data refresh_swamping(const swamping_data& held, const run_ref& run, std::size_t max_points,
                               const interrupt_flag& interrupt) {
  if (held.swamped.steps.empty()) return load_swamping(run, max_points, interrupt);
  rundb::reader db(run.file.toStdString(), &interrupt);
  const rundb::step_range since{.first = held.swamped.steps.back()};
  const auto cells = db.counts_by_layer_and_step(run.id, "update", swamping_stats,
                                                 rundb::column_width{held.swamped.column_steps}, since);
  auto swamped = extended(held.swamped, cells[0], max_points);
  auto partial = extended(held.partially_swamped, cells[1], max_points);
  if (!swamped || !partial) return load_swamping(run, max_points, interrupt);
  swamping_data data;
  data.swamped = std::move(*swamped);
  data.partially_swamped = std::move(*partial);
  fill_swamping_series(db, run.id, data);
  data.rows_read = db.rows_read();
  return data;
}

scales_data refresh_scales(scales_data held, const run_ref& run, const interrupt_flag& interrupt) {
  if (held.layer.empty() || held.history.empty())
    return load_scales(run, held.layer, held.role, held.requested_step, interrupt);
  rundb::reader db(run.file.toStdString(), &interrupt);
  const std::size_t before = held.history.size();
  append_tail(held.history,
              db.scale_stats({.run = run.id, .layer = held.layer, .role = held.role, .steps = tail_range(held.history)}));
  for (std::size_t i = before; i < held.history.size(); ++i)
    if (std::find(held.ops.begin(), held.ops.end(), held.history[i].op) == held.ops.end()) held.ops.push_back(held.history[i].op);
  held.rows_read = db.rows_read();
  return held;
}

}  // namespace numlab_gui
