// Live refreshes that read only what a run appended since the view's last
// read (issue 18, defect 1): the Overview's curves, skipped steps and
// evaluations, and the Events table. A run database only ever appends to
// these tables, so the rows a view holds stay valid and only the rows from
// its last step on need reading; a refresh after k new steps reads O(k) rows
// whatever the run's length. Like every loader, each call opens its own
// reader and closes it before returning: no read transaction outlives it.
#pragma once

#include "async_query.hpp"
#include "run_data.hpp"

#include <cstddef>
#include <vector>

namespace numlab_gui {

/// The steps a live refresh re-reads for rows held in step order: from the
/// last held row's step on (more rows of that step may have been written
/// after it was read), or every step when nothing is held.
template <typename Row>
rundb::step_range tail_range(const std::vector<Row>& held) {
  if (held.empty()) return {};
  return {.first = held.back().step};
}

/// Appends to `held` the rows of `fresh` it lacks. `fresh` was read, in the
/// same order, from tail_range of `held` or of an earlier, shorter `held`
/// (a refresh asked for before the previous one was applied): its rows
/// before held's last step are dropped, and of its rows at that step the
/// first ones, which `held` already has (the tables only append).
template <typename Row>
void append_tail(std::vector<Row>& held, std::vector<Row> fresh) {
  std::size_t first_new = 0;
  if (!held.empty()) {
    const auto last = held.back().step;
    std::size_t known = 0;
    for (auto row = held.rbegin(); row != held.rend() && row->step == last; ++row) ++known;
    while (first_new < fresh.size() && fresh[first_new].step < last) ++first_new;
    for (; known > 0 && first_new < fresh.size() && fresh[first_new].step == last; --known) ++first_new;
  }
  held.insert(held.end(), std::make_move_iterator(fresh.begin() + static_cast<std::ptrdiff_t>(first_new)),
              std::make_move_iterator(fresh.end()));
}

/// `held` (a load_overview result) with the steps, skipped steps and
/// evaluations written since. Its buckets are kept: the steps are read from
/// the start of its last bucket on (more of that bucket's steps may have
/// been written after it was read), merged at held's width, and the
/// buckets merged pairwise while they span more than `max_points` (the
/// width doubles as the run grows: rundb/merged_steps.hpp). A refresh after
/// k new steps reads fewer than k + width + (skipped steps among them)
/// rows, plus the evaluations from the last held one, whatever the run's
/// length, and equals a fresh load_overview.
overview_series refresh_overview(overview_series held, std::size_t max_points, const interrupt_flag& interrupt);

/// `held` (a load_map result of `run` for `metric`) with the steps recorded
/// since: the records from its last column on, pooled at held's column
/// width, columns merged pairwise while they span more than `max_columns`.
/// It equals a fresh load_map; it is one, instead, when a new layer appears
/// (the rows' order changes) or when a map of one column per step outgrows
/// max_columns (once per run). rows_read says which.
map_grid refresh_map(const map_grid& held, const run_ref& run, map_metric metric, std::size_t max_columns,
                     const interrupt_flag& interrupt);

/// `held` (a load_swamping result of `run`) with the steps recorded since,
/// as refresh_map extends a map (both fractions in one scan), and each
/// layer's newest |δ|/ulp(w) histogram read again (a row per layer).
swamping_data refresh_swamping(const swamping_data& held, const run_ref& run, std::size_t max_points,
                               const interrupt_flag& interrupt);

/// `held` (a load_scales result of `run`) with the scale statistics of its
/// layer and role from its last step on; its layers, roles and format
/// limits are kept (load_scales again to list new ones).
scales_data refresh_scales(scales_data held, const run_ref& run, const interrupt_flag& interrupt);

}  // namespace numlab_gui
