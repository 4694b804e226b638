// Live refreshes that read only appended rows; see live_queries.hpp.
#include "live_queries.hpp"

#include <algorithm>
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
  std::vector<std::int64_t> fresh_steps;
  for (const auto& c : cells) {
    // A new layer changes the rows' order: read again.
    if (std::find(held.layers.begin(), held.layers.end(), c.layer) == held.layers.end()) return reload();
    if (fresh_steps.empty() || fresh_steps.back() != c.step) fresh_steps.push_back(c.step);
  }
  const std::size_t kept = held.steps.size() - 1;
  // A column per step until the distinct steps outgrow max_columns
  // (reader::map_column_width; for every role it sums each role's, which
  // the columns do not show): then the merged map is read once.
  if (held.column_steps == 1) {
    const bool outgrown = held.role.empty()
                              ? db.map_column_width(run.id, held.role, rundb::table_of(stat), max_columns).steps > 1
                              : kept + fresh_steps.size() > max_columns;
    if (outgrown) return reload();
  }
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
  if (grid.column_steps > 1) {
    // Columns start at their bucket's aligned step (the first at the first
    // recorded one): the last start stands for the last step, as in refresh_overview.
    const std::int64_t needed = rundb::merged_width(grid.steps.front(), grid.steps.back(), max_columns);
    while (grid.column_steps < needed) grid.double_column_width();
  }
  grid.roles = db.roles(run.id, {}, rundb::table_of(stat));
  grid.skipped = held.skipped;
  append_tail(grid.skipped, db.skipped_steps(run.id, since));
  grid.rows_read = db.rows_read();
  return grid;
}

}  // namespace numlab_gui
