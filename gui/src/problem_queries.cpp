// The loaders of the Problems and Runs views (what went wrong in a run, and
// where to look); see run_queries.hpp, which declares every loader.
#include "run_queries.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace numlab_gui {
namespace {

// The role of `layer` at `step` whose statistics show `bad` values, so a
// problem opens the histogram that shows it.
std::string role_showing(rundb::reader& db, rundb::run_id run, const std::string& layer, std::int64_t step,
                         bool (*bad)(const rundb::tensor_stats_record&)) {
  if (layer.empty()) return {};
  const auto at_step = db.tensor_stats({.run = run, .layer = layer, .steps = {step, step}});
  for (const auto& r : at_step)
    if (bad(r)) return r.role;
  return {};
}

bool overflowing(const rundb::tensor_stats_record& r) { return r.overflows + r.infs > 0; }
bool not_a_number(const rundb::tensor_stats_record& r) { return r.nans > 0; }
// What makes a step skip: an inf or a NaN in a gradient.
bool not_finite(const rundb::tensor_stats_record& r) { return overflowing(r) || not_a_number(r); }

// The earlier of two candidate sites; on a tie the one that names a layer.
void keep_earliest(std::optional<problem_site>& kept, problem_site candidate) {
  if (!kept || candidate.step < kept->step || (candidate.step == kept->step && kept->layer.empty())) {
    kept = std::move(candidate);
  }
}

}  // namespace

std::vector<rundb::event_record> overflow_events(rundb::reader& db, rundb::run_id run, rundb::step_range range) {
  auto events = db.events(run, range);
  std::erase_if(events, [](const rundb::event_record& e) { return e.kind != rundb::event_kind::overflow; });
  return events;
}

run_trouble_counts trouble_counts(rundb::reader& db, rundb::run_id run) {
  run_trouble_counts counts;
  counts.steps = db.step_count(run);
  counts.skipped = static_cast<std::int64_t>(db.skipped_steps(run).size());
  for (const auto& e : db.events(run)) {
    if (e.kind == rundb::event_kind::overflow) ++counts.overflow_events;
    if (e.kind == rundb::event_kind::nan) ++counts.nan_events;
  }
  return counts;
}

file_listing load_listing(const QString& file, const interrupt_flag& interrupt) {
  auto db = open_run_database(file, interrupt);
  file_listing listing{file, db.runs(), {}};
  for (const auto& run : listing.runs) listing.counts.push_back(trouble_counts(db, run.id));
  return listing;
}

problem_summary load_problems(const run_ref& run, const interrupt_flag& interrupt) {
  auto db = open_run_database(run.file, interrupt);
  problem_summary summary;
  summary.run = run;
  summary.counts = trouble_counts(db, run.id);
  summary.skipped = db.skipped_steps(run.id);
  for (const auto& s : summary.skipped) {
    keep_earliest(summary.first_skip, {s.step, {}, {}, s.skip_reason});
  }
  if (summary.first_skip) keep_earliest(summary.first_overflow, *summary.first_skip);
  for (const auto& e : db.events(run.id)) {
    problem_site site{e.step, e.layer, {}, e.message};
    if (e.kind == rundb::event_kind::overflow) keep_earliest(summary.first_overflow, site);
    if (e.kind == rundb::event_kind::nan || e.kind == rundb::event_kind::trap) keep_earliest(summary.first_nan, site);
    // A skipped step's event may name the layer its reason blames.
    if (e.kind == rundb::event_kind::skipped && summary.first_skip && e.step == summary.first_skip->step &&
        summary.first_skip->layer.empty()) {
      summary.first_skip->layer = e.layer;
      if (summary.first_overflow && summary.first_overflow->step == e.step && summary.first_overflow->layer.empty())
        summary.first_overflow->layer = e.layer;
    }
  }
  if (summary.first_overflow) {
    auto& site = *summary.first_overflow;
    site.role = role_showing(db, run.id, site.layer, site.step, overflowing);
  }
  if (summary.first_nan) {
    auto& site = *summary.first_nan;
    site.role = role_showing(db, run.id, site.layer, site.step, not_a_number);
  }
  if (summary.first_skip) {
    auto& site = *summary.first_skip;
    site.role = role_showing(db, run.id, site.layer, site.step, not_finite);
  }
  return summary;
}

namespace {

// The sites of `totals` that underflowed, most (by fraction) first, ties in
// totals_by_layer's order.
std::vector<rundb::layer_totals> ranked_by_underflow(std::vector<rundb::layer_totals> totals) {
  const auto fraction = [](const rundb::layer_totals& t) {
    return t.count > 0 ? static_cast<double>(t.underflows) / static_cast<double>(t.count) : 0.0;
  };
  std::erase_if(totals, [](const rundb::layer_totals& t) { return t.underflows == 0; });
  std::stable_sort(totals.begin(), totals.end(), [&](const auto& a, const auto& b) { return fraction(a) > fraction(b); });
  return totals;
}

}  // namespace

file_underflows load_file_underflows(const QString& file, const std::vector<rundb::run_id>& runs,
                                     const interrupt_flag& interrupt) {
  auto db = open_run_database(file, interrupt);
  file_underflows out{file, {}};
  for (const auto run : runs) {
    auto ranked = ranked_by_underflow(db.totals_by_layer(run));
    out.worst.emplace_back(run, ranked.empty() ? std::nullopt : std::optional(std::move(ranked.front())));
  }
  return out;
}

underflow_ranking load_underflow_ranking(const run_ref& run, const interrupt_flag& interrupt) {
  auto db = open_run_database(run.file, interrupt);
  underflow_ranking ranking;
  ranking.worst = ranked_by_underflow(db.totals_by_layer(run.id));
  if (ranking.worst.size() > 5) ranking.worst.resize(5);
  if (ranking.worst.empty()) return ranking;
  const auto& top = ranking.worst.front();
  // The worst step of that layer and role: one map column over the whole run,
  // the step whose underflow fraction (summed over its records) is the
  // largest, the earliest on ties; from schema v4's summaries or, in older
  // files, from the records summed in SQL: the same step either way.
  for (const auto& c : db.counts_by_layer_and_step(run.id, top.role, rundb::counted_stat::underflows, 1)) {
    if (c.layer != top.layer) continue;
    ranking.worst_step = problem_site{c.worst_step, top.layer, top.role,
                                      std::to_string(static_cast<std::uint64_t>(c.counted)) + " of " +
                                          std::to_string(static_cast<std::uint64_t>(c.values)) +
                                          " values underflowed to zero"};
  }
  return ranking;
}

}  // namespace numlab_gui
