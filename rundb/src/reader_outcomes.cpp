// reader::run_outcomes: what comparing a sweep's runs needs of every run, in
// one statement per table. Reading it run by run (six indexed queries and a
// grouped, sorted step query each) cost a comparison of 1000 runs about a
// second of CPU, mostly SQLite sorting each run's steps into buckets; here
// the steps are read once in primary-key order and bucketed as they stream by.
// run_outcomes_without_curves (numlab inspect --compare) counts the steps in
// SQL instead: streaming a million steps through C++ for curves nobody draws
// made it slower than the three per-run queries it replaced.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "rundb/reader.hpp"
#include "sqlite.hpp"

namespace rundb {
namespace {

using detail::statement;

// A deferred read transaction: every statement of run_outcomes sees the same
// snapshot, even while a writer appends. It lasts one call (well under a
// second on a 1000-run file), so it never holds back a writer's checkpoints for long.
class read_snapshot {
 public:
  explicit read_snapshot(detail::database& db) : db_(db) { db_.exec("BEGIN"); }
  ~read_snapshot() { sqlite3_exec(db_.handle(), "COMMIT", nullptr, nullptr, nullptr); }
  read_snapshot(const read_snapshot&) = delete;
  read_snapshot& operator=(const read_snapshot&) = delete;

 private:
  detail::database& db_;
};

struct recorded_step {
  std::int64_t step = 0;
  std::optional<double> loss;
};

// The curve reader::steps(run, {}, max_points) draws, less its points
// without a loss: buckets of merged_width(first, last, max_points) steps,
// aligned to multiples of it, each at its first step with the mean of its
// recorded losses (added here in step order, there pairwise: the means may
// differ in the last bits).
std::vector<loss_point> loss_curve(const std::vector<recorded_step>& steps, std::size_t max_points) {
  std::vector<loss_point> out;
  const std::int64_t width = steps.empty() ? 1 : merged_width(steps.front().step, steps.back().step, max_points);
  if (width == 1) {
    for (const auto& s : steps)
      if (s.loss) out.push_back({s.step, *s.loss});
    return out;
  }
  for (std::size_t i = 0; i < steps.size();) {
    const std::int64_t bucket = bucket_index(steps[i].step, width);
    const std::int64_t at = steps[i].step;
    double sum = 0;
    std::size_t losses = 0;
    for (; i < steps.size() && bucket_index(steps[i].step, width) == bucket; ++i) {
      if (!steps[i].loss) continue;
      sum += *steps[i].loss;
      ++losses;
    }
    if (losses > 0) out.push_back({at, sum / static_cast<double>(losses)});
  }
  return out;
}

// A run's outcome in `out` (ordered by id, as runs() reads them), found by
// binary search; nullptr for an id the runs table lacks.
auto outcome_slot(std::vector<run_outcome>& out) {
  return [&out](run_id id) -> run_outcome* {
    const auto at = std::lower_bound(out.begin(), out.end(), id,
                                     [](const run_outcome& o, run_id i) { return o.run.id < i; });
    return at != out.end() && at->run.id == id ? &*at : nullptr;
  };
}

}  // namespace

std::vector<run_outcome> reader::run_outcomes(std::size_t max_points, const outcome_progress& progress) {
  read_snapshot snapshot(*db_);
  auto out = outcomes_but_steps();
  const auto slot = outcome_slot(out);
  // Rows of a run id the runs table lacks (a damaged file) are passed over.
  statement steps(*db_, "SELECT run_id, step, loss, skipped FROM steps ORDER BY run_id, step");
  std::vector<recorded_step> run_steps;
  run_outcome* current = nullptr;
  const auto close_run = [&] {
    if (current != nullptr && !run_steps.empty()) {
      current->steps = static_cast<std::int64_t>(run_steps.size());
      current->final_loss = run_steps.back().loss;
      current->loss_curve = loss_curve(run_steps, max_points);
      // Steps come in run id order: every run up to this one is read.
      if (progress) progress(static_cast<std::size_t>(current - out.data()) + 1, out.size());
    }
    run_steps.clear();
  };
  std::optional<run_id> current_id;
  while (steps.step()) {
    const run_id id = steps.column_int(0);
    if (id != current_id) {
      close_run();
      current_id = id;
      current = slot(id);
    }
    if (current == nullptr) continue;
    run_steps.push_back({steps.column_int(1), steps.column_optional_double(2)});
    if (steps.column_int(3) != 0) ++current->skipped_steps;
  }
  close_run();
  if (progress) progress(out.size(), out.size());
  return out;
}

std::vector<run_outcome> reader::run_outcomes_without_curves() {
  read_snapshot snapshot(*db_);
  auto out = outcomes_but_steps();
  const auto slot = outcome_slot(out);
  // Counted in SQL, in primary-key order (no sorter), no row passing through
  // C++; the final loss is one primary-key seek per run. (Taking it in the
  // counting scan, as the bare column beside max(step), made that scan 60%
  // slower on the 1000-run file.)
  statement counts(*db_, "SELECT run_id, count(*), sum(skipped != 0) FROM steps GROUP BY run_id");
  while (counts.step()) {
    if (auto* o = slot(counts.column_int(0))) {
      o->steps = counts.column_int(1);
      o->skipped_steps = counts.column_int(2);
    }
  }
  statement last(*db_,
      "SELECT id, (SELECT loss FROM steps WHERE run_id = runs.id ORDER BY step DESC LIMIT 1) FROM runs");
  while (last.step())
    if (auto* o = slot(last.column_int(0))) o->final_loss = last.column_optional_double(1);
  return out;
}

// Runs, coordinates, events and evaluations: what both run_outcomes read alike.
std::vector<run_outcome> reader::outcomes_but_steps() {
  std::vector<run_outcome> out;
  for (auto& info : runs()) {
    out.emplace_back();
    out.back().run = std::move(info);
  }
  const auto slot = outcome_slot(out);
  for (auto& [id, list] : all_coordinates())
    if (auto* o = slot(id)) o->coordinates = std::move(list);
  statement events(*db_,
      "SELECT run_id, sum(kind = 'overflow'), sum(kind = 'nan') FROM events GROUP BY run_id");
  while (events.step()) {
    if (auto* o = slot(events.column_int(0))) {
      o->overflow_events = events.column_int(1);
      o->nan_events = events.column_int(2);
    }
  }
  // The last evaluation (by step, then insertion) that recorded an accuracy.
  statement evaluations(*db_,
      "SELECT run_id, accuracy FROM evaluations WHERE accuracy IS NOT NULL ORDER BY run_id, step, id");
  while (evaluations.step())
    if (auto* o = slot(evaluations.column_int(0))) o->final_accuracy = evaluations.column_optional_double(1);
  return out;
}

}  // namespace rundb
