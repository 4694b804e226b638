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
/// evaluations written since, reading only those rows while every step is
/// plotted and still fits in `max_points`; otherwise (a long run's merged
/// points change with its length) load_overview again. rows_read says which.
/// Skipped steps are looked for from the last plotted step on, not from the
/// last skipped one: they are a filter on the steps table, whose scan from
/// an old skip would cost the whole run since.
overview_series refresh_overview(overview_series held, std::size_t max_points, const interrupt_flag& interrupt);

}  // namespace numlab_gui
