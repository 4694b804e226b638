// Live refreshes that read only appended rows; see live_queries.hpp.
#include "live_queries.hpp"

#include <utility>

#include "run_queries.hpp"

namespace numlab_gui {

overview_series refresh_overview(overview_series held, std::size_t max_points, const interrupt_flag& interrupt) {
  // Merged points (more steps than max_points) are re-bucketed as the run grows: read again.
  const bool every_step_held = static_cast<std::int64_t>(held.steps.size()) == held.total_steps;
  if (!every_step_held) return load_overview(held.run, max_points, interrupt);
  rundb::reader db(held.run.file.toStdString(), &interrupt);
  const rundb::step_range after_plotted = tail_range(held.steps);
  append_tail(held.steps, db.steps(held.run.id, after_plotted));
  if (held.steps.size() > max_points) return load_overview(held.run, max_points, interrupt);
  held.total_steps = static_cast<std::int64_t>(held.steps.size());
  append_tail(held.skipped, db.skipped_steps(held.run.id, after_plotted));
  append_tail(held.evaluations, db.evaluations(held.run.id, tail_range(held.evaluations)));
  held.rows_read = db.rows_read();
  return held;
}

}  // namespace numlab_gui
