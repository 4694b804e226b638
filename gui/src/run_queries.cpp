// Loaders from a run database into view data; see run_queries.hpp.
#include "run_queries.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace numlab_gui {
namespace {

rundb::reader open(const QString& file) { return rundb::reader(file.toStdString()); }

template <typename T>
bool contains(const std::vector<T>& values, const T& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// Gradients are what a precision study looks at first.
std::string preferred_role(const std::vector<std::string>& roles, const std::string& wanted) {
  if (!wanted.empty() && contains(roles, wanted)) return wanted;
  if (contains(roles, std::string("grad_weight"))) return "grad_weight";
  return roles.empty() ? std::string() : roles.front();
}

rundb::counted_stat counted(map_metric metric) {
  switch (metric) {
    case map_metric::overflow: return rundb::counted_stat::overflows;
    case map_metric::underflow: return rundb::counted_stat::underflows;
    case map_metric::subnormal: return rundb::counted_stat::subnormals;
    case map_metric::nan: return rundb::counted_stat::nans;
    case map_metric::swamped: return rundb::counted_stat::swamped;
    case map_metric::partially_swamped: return rundb::counted_stat::partially_swamped;
  }
  return rundb::counted_stat::overflows;
}

std::uint64_t metric_count(const rundb::tensor_stats_record& s, map_metric metric) {
  switch (metric) {
    case map_metric::overflow: return s.overflows;
    case map_metric::underflow: return s.underflows;
    case map_metric::subnormal: return s.subnormals;
    case map_metric::nan: return s.nans;
    case map_metric::swamped: return s.swamped;
    case map_metric::partially_swamped: return s.partially_swamped;
  }
  return 0;
}

}  // namespace

QString metric_name(map_metric metric) {
  switch (metric) {
    case map_metric::overflow: return "overflow";
    case map_metric::underflow: return "underflow";
    case map_metric::subnormal: return "subnormal";
    case map_metric::nan: return "NaN";
    case map_metric::swamped: return "swamped";
    case map_metric::partially_swamped: return "partially swamped";
  }
  return {};
}

double metric_fraction(const rundb::tensor_stats_record& stats, map_metric metric) {
  if (stats.count == 0) return 0;
  return static_cast<double>(metric_count(stats, metric)) / static_cast<double>(stats.count);
}

file_listing load_listing(const QString& file) {
  auto db = open(file);
  file_listing listing{file, db.runs(), {}};
  for (const auto& run : listing.runs) listing.step_counts.push_back(db.step_count(run.id));
  return listing;
}

overview_series load_overview(const run_ref& run, std::size_t max_points) {
  auto db = open(run.file);
  overview_series series;
  series.run = run;
  series.total_steps = db.step_count(run.id);
  series.steps = db.steps(run.id, {}, max_points);
  series.skipped = db.skipped_steps(run.id);
  series.evaluations = db.evaluations(run.id);
  return series;
}

map_grid load_map(const run_ref& run, const std::string& role, map_metric metric, std::size_t max_columns) {
  auto db = open(run.file);
  map_grid grid;
  grid.roles = db.roles(run.id);
  const std::string chosen = preferred_role(grid.roles, role);
  if (chosen.empty()) return grid;
  const auto cells = db.counts_by_layer_and_step(run.id, chosen, counted(metric), max_columns);
  std::map<std::string, std::size_t> layer_index;
  for (const auto& c : cells) {
    if (layer_index.emplace(c.layer, grid.layers.size()).second) grid.layers.push_back(c.layer);
    if (grid.steps.empty() || grid.steps.back() != c.step) grid.steps.push_back(c.step);  // cells come by step
  }
  grid.fractions.assign(grid.layers.size() * grid.steps.size(), std::numeric_limits<double>::quiet_NaN());
  std::size_t column = 0;
  for (const auto& c : cells) {
    while (grid.steps[column] != c.step) ++column;
    // Several ops of one layer may report the same role: the cell pools them.
    grid.fractions[layer_index[c.layer] * grid.steps.size() + column] =
        c.values > 0 ? c.counted / c.values : std::numeric_limits<double>::quiet_NaN();
  }
  return grid;
}

histogram_data load_histogram(const run_ref& run, const std::string& layer, const std::string& role,
                              std::int64_t step) {
  auto db = open(run.file);
  histogram_data data;
  data.layers = db.layers(run.id);
  data.roles = db.roles(run.id);
  data.role = preferred_role(data.roles, role);
  data.layer = contains(data.layers, layer) ? layer : (data.layers.empty() ? std::string() : data.layers.front());
  if (data.role.empty() || data.layer.empty()) return data;
  data.history = db.tensor_stats({.run = run.id, .layer = data.layer, .role = data.role, .with_histograms = true});
  if (data.history.empty()) return data;
  data.format = db.format(data.history.back().format);
  // One pass over the steps table beats a query per recorded step.
  const auto steps = db.steps(run.id, {data.history.front().step, data.history.back().step});
  auto at = steps.begin();
  for (const auto& h : data.history) {
    while (at != steps.end() && at->step < h.step) ++at;
    data.loss_scales.push_back(at != steps.end() && at->step == h.step ? at->loss_scale : std::nullopt);
  }
  // The largest recorded step <= the requested one (the first when none is).
  data.selected = data.history.size() - 1;
  if (step >= 0) {
    const auto after = std::upper_bound(data.history.begin(), data.history.end(), step,
                                        [](std::int64_t s, const rundb::tensor_stats_record& r) { return s < r.step; });
    data.selected = after == data.history.begin() ? 0 : static_cast<std::size_t>(after - data.history.begin() - 1);
  }
  return data;
}

swamping_data load_swamping(const run_ref& run) {
  auto db = open(run.file);
  swamping_data data;
  std::map<std::string, std::size_t> index;
  for (auto& r : db.tensor_stats({.run = run.id, .role = std::string("update"), .with_histograms = true})) {
    const auto [it, added] = index.emplace(r.layer, data.layers.size());
    if (added) data.layers.push_back({r.layer, {}, {}, {}, {}, -1});
    auto& series = data.layers[it->second];
    series.steps.push_back(static_cast<double>(r.step));
    series.swamped.push_back(metric_fraction(r, map_metric::swamped));
    series.partially_swamped.push_back(metric_fraction(r, map_metric::partially_swamped));
    if (!r.ulp_ratio.bins.empty()) {  // rows come by step: the last one seen is the newest
      series.ulp_ratio = std::move(r.ulp_ratio);
      series.ulp_ratio_step = r.step;
    }
  }
  return data;
}

event_list load_events(const run_ref& run) {
  auto db = open(run.file);
  return {db.events(run.id)};
}

}  // namespace numlab_gui
