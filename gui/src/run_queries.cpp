// Loaders from a run database into view data; see run_queries.hpp.
#include "run_queries.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include <libnum/scaled_array.hpp>
#include <libnum/scaled_format.hpp>

#include "live_queries.hpp"


namespace numlab_gui {

rundb::reader open_run_database(const QString& file, const interrupt_flag& interrupt) {
  return rundb::reader(file.toStdString(), &interrupt);
}

namespace {

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

}  // namespace

QString metric_name(map_metric metric) {
  switch (metric) {
    case map_metric::overflow: return "overflow";
    case map_metric::underflow: return "underflow";
    case map_metric::subnormal: return "subnormal";
    case map_metric::nan: return "NaN";
    case map_metric::swamped: return "swamped";
    case map_metric::partially_swamped: return "partially swamped";
    case map_metric::block_underflow: return "block underflow";
    case map_metric::saturated: return "saturated";
  }
  return {};
}

rundb::counted_stat counted_stat_of(map_metric metric) {
  switch (metric) {
    case map_metric::overflow: return rundb::counted_stat::overflows;
    case map_metric::underflow: return rundb::counted_stat::underflows;
    case map_metric::subnormal: return rundb::counted_stat::subnormals;
    case map_metric::nan: return rundb::counted_stat::nans;
    case map_metric::swamped: return rundb::counted_stat::swamped;
    case map_metric::partially_swamped: return rundb::counted_stat::partially_swamped;
    case map_metric::block_underflow: return rundb::counted_stat::block_underflow;
    case map_metric::saturated: return rundb::counted_stat::saturated;
  }
  return rundb::counted_stat::overflows;
}

namespace {

// The waterfall's rows: the binades of every histogram given, between the
// underflow and the overflow row.
template <typename Histograms>
void size_waterfall(histogram_data& data, const Histograms& histograms) {
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
  for (const rundb::histogram& h : histograms) {
    if (h.bins.size() < 2) continue;
    lo = std::min<std::int64_t>(lo, h.first_exponent);
    hi = std::max<std::int64_t>(hi, h.first_exponent + static_cast<std::int64_t>(h.binade_count()));
  }
  if (lo > hi) return;
  data.waterfall_first_exponent = static_cast<std::int32_t>(lo);
  data.waterfall_rows = static_cast<std::size_t>(hi - lo) + 2;
  data.waterfall_columns = data.waterfall_starts.size();
  data.waterfall.assign(data.waterfall_columns * data.waterfall_rows, 0.0);
}

// Calls add(row, count) for each bin of `h` in the waterfall's row layout.
template <typename Add>
void for_each_row(const histogram_data& data, const rundb::histogram& h, Add add) {
  if (h.bins.size() < 2) return;
  add(std::size_t{0}, h.bins.front());
  add(data.waterfall_rows - 1, h.bins.back());
  const auto offset = static_cast<std::size_t>(h.first_exponent - data.waterfall_first_exponent);
  for (std::size_t i = 0; i < h.binade_count(); ++i) add(1 + offset + i, h.bins[1 + i]);
}

// Done here, on the worker: a history of thousands of steps is millions of cells.
void fill_waterfall_from_records(histogram_data& data) {
  const auto& history = data.history;
  const std::size_t n = history.size();
  const std::size_t columns = std::min(n, histogram_data::max_waterfall_columns);
  data.waterfall_starts.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t column = n <= columns ? i : i * columns / n;
    if (data.waterfall_starts.size() == column) data.waterfall_starts.push_back(history[i].step);
  }
  std::vector<std::reference_wrapper<const rundb::histogram>> all;
  for (const auto& r : history) all.emplace_back(r.hist);
  size_waterfall(data, all);
  for (std::size_t i = 0; i < n && data.waterfall_rows > 0; ++i) {
    double* column = &data.waterfall[data.waterfall_column(i) * data.waterfall_rows];
    // Count magnitudes span decades: colour by log so small tails stay visible.
    for_each_row(data, history[i].hist, [&](std::size_t row, std::uint64_t count) {
      column[row] = std::max(column[row], std::log10(1.0 + static_cast<double>(count)));
    });
  }
}

// Long runs: consecutive summary buckets share a column, the mean count per recorded step.
void fill_waterfall_from_buckets(histogram_data& data, const std::vector<rundb::stats_bucket>& buckets) {
  const std::size_t per_column = buckets.size() / histogram_data::max_waterfall_columns + 1;
  data.waterfall_starts.clear();
  for (std::size_t b = 0; b < buckets.size(); b += per_column) data.waterfall_starts.push_back(buckets[b].first_step);
  std::vector<std::reference_wrapper<const rundb::histogram>> all;
  for (const auto& b : buckets) all.emplace_back(b.hist);
  size_waterfall(data, all);
  if (data.waterfall_rows == 0) return;
  std::vector<double> steps(data.waterfall_columns, 0.0);
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    const std::size_t c = b / per_column;
    steps[c] += static_cast<double>(buckets[b].steps);
    for_each_row(data, buckets[b].hist, [&](std::size_t row, std::uint64_t count) {
      data.waterfall[c * data.waterfall_rows + row] += static_cast<double>(count);
    });
  }
  for (std::size_t c = 0; c < data.waterfall_columns; ++c)
    for (std::size_t r = 0; r < data.waterfall_rows; ++r) {
      double& cell = data.waterfall[c * data.waterfall_rows + r];
      cell = std::log10(1.0 + (steps[c] > 0 ? cell / steps[c] : 0.0));
    }
}

// The scaled format's band at each history step, from the scale statistics
// of the same layer, role and step (none when the run used no scaled format).
void fill_scaled_bands(rundb::reader& db, rundb::run_id run, histogram_data& data) {
  if (data.history.empty()) return;
  const auto scales = db.scale_stats({.run = run,
                                      .layer = data.layer,
                                      .role = data.role,
                                      .steps = {data.history.front().step, data.history.back().step},
                                      .with_histograms = true});
  if (scales.empty()) return;
  data.scaled_format = scales.back().scaled_format;
  const auto range = scaled_range(data.scaled_format);
  data.scaled_bands.assign(data.history.size(), std::nullopt);
  if (!range) return;
  auto at = scales.begin();
  for (std::size_t i = 0; i < data.history.size(); ++i) {
    const auto step = data.history[i].step;
    while (at != scales.end() && at->step < step) ++at;
    if (at == scales.end() || at->step != step) continue;
    double low = 0, high = 0;
    if (!range->block_scaled && at->scale && *at->scale > 0) {
      low = high = std::log2(*at->scale);
    } else {
      // Block formats: the populated binades of the block scales (NVFP4's
      // include its tensor scale; bins[0] and the last bin lie outside the
      // recorded range, and MX's smallest scale holds the all-zero blocks:
      // all three are skipped).
      const auto& bins = at->scale_hist.bins;
      bool any = false;
      for (std::size_t b = 1; b + 1 < bins.size(); ++b) {
        const int binade = at->scale_hist.first_exponent + static_cast<int>(b - 1);
        if (bins[b] == 0 || binade == range->floor_scale_binade) continue;
        if (!any) low = binade;
        high = binade + 1;
        any = true;
      }
      if (!any) continue;
    }
    data.scaled_bands[i] =
        histogram_data::scaled_band{std::log2(range->smallest_element) + low, std::log2(range->largest_element) + high};
  }
}

// The loss scale at each history step, in one pass over the steps table.
void fill_loss_scales(rundb::reader& db, rundb::run_id run, histogram_data& data) {
  data.loss_scales.clear();
  if (data.history.empty()) return;
  const auto steps = db.steps(run, {data.history.front().step, data.history.back().step});
  auto at = steps.begin();
  for (const auto& h : data.history) {
    while (at != steps.end() && at->step < h.step) ++at;
    data.loss_scales.push_back(at != steps.end() && at->step == h.step ? at->loss_scale : std::nullopt);
  }
}

}  // namespace

overview_series load_overview(const run_ref& run, std::size_t max_points, const interrupt_flag& interrupt) {
  auto db = open_run_database(run.file, interrupt);
  overview_series series;
  series.run = run;
  if (const auto extent = db.step_extent(run.id)) {
    series.width = rundb::merged_width(extent->first, extent->last, max_points);
    series.buckets = db.step_buckets(run.id, {}, series.width);
  }
  for (const auto& b : series.buckets) {
    series.steps.push_back(b.point());
    series.total_steps += b.steps;
  }
  series.skipped = db.skipped_steps(run.id);
  series.evaluations = db.evaluations(run.id);
  series.rows_read = db.rows_read();
  return series;
}

map_grid load_map(const run_ref& run, const std::string& role, map_metric metric, std::size_t max_columns,
                  const interrupt_flag& interrupt) {
  auto db = open_run_database(run.file, interrupt);
  map_grid grid;
  const auto table = rundb::table_of(counted_stat_of(metric));
  grid.roles = db.roles(run.id, {}, table);
  grid.skipped = db.skipped_steps(run.id);
  grid.overflow_events = overflow_events(db, run.id);
  grid.role = role == all_roles ? std::string() : preferred_role(grid.roles, role);
  if (grid.roles.empty()) return grid;
  const rundb::column_width width = db.map_column_width(run.id, grid.role, table, max_columns);
  map_grid cells = grid_of(db.counts_by_layer_and_step(run.id, grid.role, counted_stat_of(metric), width), width.steps);
  grid.layers = std::move(cells.layers);
  grid.steps = std::move(cells.steps);
  grid.fractions = std::move(cells.fractions);
  grid.worst_steps = std::move(cells.worst_steps);
  grid.cell_roles = std::move(cells.cell_roles);
  grid.column_steps = width.steps;
  grid.rows_read = db.rows_read();
  return grid;
}

histogram_data load_histogram(const run_ref& run, const std::vector<std::string>& known_layers,
                              const std::string& layer, const std::string& role, std::int64_t step,
                              const interrupt_flag& interrupt) {
  auto db = open_run_database(run.file, interrupt);
  histogram_data data;
  data.requested_step = step;
  data.layers = known_layers.empty() ? db.layers(run.id) : known_layers;
  data.layer = contains(data.layers, layer) ? layer : (data.layers.empty() ? std::string() : data.layers.front());
  if (data.layer.empty()) return data;
  // Only the roles this layer recorded, so no choice leads to an empty plot.
  data.roles = db.roles(run.id, data.layer);
  data.role = preferred_role(data.roles, role);
  if (data.role.empty()) return data;
  // From an index alone; the records themselves only when few.
  data.steps = db.stats_steps(run.id, data.role, data.layer);
  if (data.steps.empty()) return data;
  const auto buckets = data.steps.size() > histogram_data::max_waterfall_columns
                           ? db.histogram_buckets(run.id, data.layer, data.role)
                           : std::nullopt;
  data.selected = step >= 0 ? data.index_of(step) : data.steps.size() - 1;
  if (buckets) {
    data.history_first = data.selected;
    if (auto r = db.histogram(run.id, data.layer, data.role, data.steps[data.selected])) data.history.push_back(std::move(*r));
    data.buckets = std::move(*buckets);
    fill_waterfall_from_buckets(data, data.buckets);
  } else {
    data.history = db.tensor_stats({.run = run.id, .layer = data.layer, .role = data.role, .with_histograms = true});
    // A step may hold several records of the layer and role: a slider position each.
    data.steps.clear();
    for (const auto& r : data.history) data.steps.push_back(r.step);
    data.selected = step >= 0 ? data.index_of(step) : data.steps.size() - 1;
    fill_waterfall_from_records(data);
  }
  if (data.history.empty()) return data;
  if (const auto newest = db.histogram(run.id, data.layer, data.role, data.steps.back())) data.format = db.format(newest->format);
  fill_loss_scales(db, run.id, data);
  fill_scaled_bands(db, run.id, data);
  data.rows_read = db.rows_read();
  return data;
}

histogram_data refresh_histogram(histogram_data held, const run_ref& run, const interrupt_flag& interrupt) {
  const auto reload = [&] {
    return load_histogram(run, held.layers, held.layer, held.role, held.requested_step, interrupt);
  };
  if (held.layer.empty() || held.role.empty() || held.steps.empty() || held.history.empty()) return reload();
  auto db = open_run_database(run.file, interrupt);
  const auto select = [&] {
    held.selected = held.requested_step >= 0 ? held.index_of(held.requested_step) : held.steps.size() - 1;
  };
  if (held.buckets.empty()) {
    // Every record held: those from the last held step on (more of that
    // step's may have come), with the loss scales and bands of the new ones.
    const std::size_t before = held.history.size();
    append_tail(held.history, db.tensor_stats({.run = run.id, .layer = held.layer, .role = held.role,
                                               .steps = tail_range(held.history), .with_histograms = true}));
    held.rows_read = db.rows_read();
    if (held.history.size() == before) return held;
    for (std::size_t i = before; i < held.history.size(); ++i) held.steps.push_back(held.history[i].step);
    // Past max_waterfall_columns steps the waterfall comes from the summaries: read once.
    std::size_t distinct = 0;
    for (std::size_t i = 0; i < held.steps.size(); ++i) distinct += i == 0 || held.steps[i] != held.steps[i - 1];
    if (distinct > histogram_data::max_waterfall_columns && db.schema_version() >= 4) return reload();
    histogram_data tail;
    tail.layer = held.layer;
    tail.role = held.role;
    tail.history.assign(held.history.begin() + static_cast<std::ptrdiff_t>(before), held.history.end());
    fill_loss_scales(db, run.id, tail);
    fill_scaled_bands(db, run.id, tail);
    held.loss_scales.insert(held.loss_scales.end(), tail.loss_scales.begin(), tail.loss_scales.end());
    if (!tail.scaled_bands.empty() || !held.scaled_bands.empty()) {
      held.scaled_bands.resize(before, std::nullopt);
      tail.scaled_bands.resize(tail.history.size(), std::nullopt);
      held.scaled_bands.insert(held.scaled_bands.end(), tail.scaled_bands.begin(), tail.scaled_bands.end());
    }
    if (!tail.scaled_format.empty()) held.scaled_format = tail.scaled_format;
    select();
    fill_waterfall_from_records(held);
  } else {
    // Long runs: the steps since the last held one, the last summary bucket
    // again and the new ones; the shown record only when the selection moved.
    const auto fresh_steps = db.stats_steps(run.id, held.role, held.layer, {.first = held.steps.back() + 1});
    held.steps.insert(held.steps.end(), fresh_steps.begin(), fresh_steps.end());
    const std::int64_t from = held.buckets.back().first_step;
    held.buckets.pop_back();
    if (auto fresh = db.histogram_buckets(run.id, held.layer, held.role, from))
      held.buckets.insert(held.buckets.end(), std::make_move_iterator(fresh->begin()), std::make_move_iterator(fresh->end()));
    fill_waterfall_from_buckets(held, held.buckets);
    const std::size_t shown = held.selected;
    select();
    if (held.selected != shown || !held.selected_record()) {
      held.history.clear();
      held.loss_scales.clear();
      held.scaled_bands.clear();
      held.history_first = held.selected;
      if (auto r = db.histogram(run.id, held.layer, held.role, held.steps[held.selected])) held.history.push_back(std::move(*r));
      fill_loss_scales(db, run.id, held);
      fill_scaled_bands(db, run.id, held);
    }
  }
  held.rows_read = db.rows_read();
  return held;
}

histogram_step load_histogram_step(const run_ref& run, const std::string& layer, const std::string& role,
                                   std::size_t index, std::int64_t step, const interrupt_flag& interrupt) {
  auto db = open_run_database(run.file, interrupt);
  histogram_data one;
  one.layer = layer;
  one.role = role;
  if (auto r = db.histogram(run.id, layer, role, step); r && r->step == step) one.history.push_back(std::move(*r));
  fill_loss_scales(db, run.id, one);
  fill_scaled_bands(db, run.id, one);
  histogram_step out{layer, role, index, {}, {}, {}};
  if (one.history.empty()) return out;
  out.record = std::move(one.history.front());
  out.loss_scale = one.loss_scales.front();
  if (!one.scaled_bands.empty()) out.scaled_band = one.scaled_bands.front();
  return out;
}

void fill_swamping_series(rundb::reader& db, rundb::run_id run, swamping_data& data) {
  data.layers.clear();
  const map_grid& swamped = data.swamped;
  const map_grid& partial = data.partially_swamped;
  const auto fraction = [](const map_grid& grid, std::size_t at) {
    return at < grid.fractions.size() && !std::isnan(grid.fractions[at]) ? grid.fractions[at] : 0.0;
  };
  for (std::size_t l = 0; l < swamped.layers.size(); ++l) {
    swamping_data::layer_series series{swamped.layers[l], {}, {}, {}, {}, -1};
    for (std::size_t c = 0; c < swamped.steps.size(); ++c) {
      const std::size_t at = l * swamped.steps.size() + c;
      if (swamped.worst_steps[at] < 0) continue;
      series.steps.push_back(static_cast<double>(swamped.steps[c]));
      series.swamped.push_back(fraction(swamped, at));
      series.partially_swamped.push_back(fraction(partial, at));
    }
    // The newest |δ|/ulp(w) histogram: the one thing a live refresh reads per layer, not per step.
    const auto newest = db.histogram(run, series.layer, "update", std::numeric_limits<std::int64_t>::max());
    if (newest && !newest->ulp_ratio.bins.empty()) {
      series.ulp_ratio = newest->ulp_ratio;
      series.ulp_ratio_step = newest->step;
    }
    data.layers.push_back(std::move(series));
  }
}

swamping_data load_swamping(const run_ref& run, std::size_t max_points, const interrupt_flag& interrupt) {
  auto db = open_run_database(run.file, interrupt);
  swamping_data data;
  // Both fractions from one scan of the update records.
  const auto width = db.map_column_width(run.id, "update", rundb::stats_table::tensor_stats, max_points);
  const auto cells = db.counts_by_layer_and_step(run.id, "update", swamping_stats, width);
  data.swamped = grid_of(cells[0], width.steps);
  data.partially_swamped = grid_of(cells[1], width.steps);
  fill_swamping_series(db, run.id, data);
  data.rows_read = db.rows_read();
  return data;
}

std::size_t scales_data::index_of(std::int64_t step) const {
  if (history.empty() || step < 0) return history.empty() ? 0 : history.size() - 1;
  const auto after = std::upper_bound(history.begin(), history.end(), step,
                                      [](std::int64_t s, const rundb::scale_stats_record& r) { return s < r.step; });
  return after == history.begin() ? 0 : static_cast<std::size_t>(after - history.begin() - 1);
}

std::optional<scaled_value_range> scaled_range(const std::string& scaled_format) {
  num::scaled_format format{};
  try {
    format = num::parse_scaled_format(scaled_format);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  scaled_value_range range;
  const auto grid = num::element_value_grid(format.element);
  // MX INT8 (no value grid): steps of its implicit scale 2^-6 (OCP MX §5.3.4).
  range.smallest_element = grid ? grid->min_subnormal() : std::ldexp(1.0, -6);
  range.largest_element = num::element_max(format.element);
  range.block_scaled = format.block != num::whole_tensor_block;
  switch (num::scale_type_of(format.rule)) {
    case num::scale_type::e8m0:
      range.floor_scale_binade = static_cast<int>(std::lround(std::log2(num::scale_value(num::scale_type::e8m0, 0))));
      break;
    case num::scale_type::ue4m3:
      // 0x7E: UE4M3's largest finite code (0x7F is NaN).
      range.largest_block_scale = num::scale_value(num::scale_type::ue4m3, 0x7E);
      break;
    case num::scale_type::fp32: break;
  }
  return range;
}

scales_data load_scales(const run_ref& run, const std::string& layer, const std::string& role, std::int64_t step,
                        const interrupt_flag& interrupt) {
  auto db = open_run_database(run.file, interrupt);
  constexpr auto table = rundb::stats_table::scale_stats;
  scales_data data;
  data.requested_step = step;
  data.layers = db.layers(run.id, table);
  data.layer = contains(data.layers, layer) ? layer : (data.layers.empty() ? std::string() : data.layers.front());
  if (data.layer.empty()) return data;
  data.roles = db.roles(run.id, data.layer, table);
  data.role = contains(data.roles, role) ? role : data.roles.front();
  data.history = db.scale_stats({.run = run.id, .layer = data.layer, .role = data.role});
  for (const auto& r : data.history)
    if (!contains(data.ops, r.op)) data.ops.push_back(r.op);
  if (!data.history.empty()) {
    if (const auto range = scaled_range(data.history.back().scaled_format))
      data.largest_per_tensor_scale = range->largest_element * range->largest_block_scale;
  }
  data.rows_read = db.rows_read();
  return data;
}

scale_detail load_scale_detail(const run_ref& run, const std::string& layer, const std::string& role,
                               std::int64_t step, const interrupt_flag& interrupt) {
  auto db = open_run_database(run.file, interrupt);
  scale_detail detail;
  detail.requested_step = step;
  const auto newest = db.scale_histogram(run.id, layer, role, step < 0 ? std::numeric_limits<std::int64_t>::max() : step);
  if (!newest) return detail;
  detail.records = db.scale_stats(
      {.run = run.id, .layer = layer, .role = role, .steps = {newest->step, newest->step}, .with_histograms = true});
  for (auto& r : detail.records) {
    std::uint64_t zero = 0;
    auto& bins = r.scale_hist.bins;
    // bins[0]: scales below the first binade, which the trainer records only
    // for zero scales; bin i: binade first_exponent + i - 1.
    if (!bins.empty()) zero += std::exchange(bins.front(), 0);
    const auto range = scaled_range(r.scaled_format);
    if (range && range->floor_scale_binade) {
      const std::int64_t at = std::int64_t{*range->floor_scale_binade} - r.scale_hist.first_exponent + 1;
      if (at >= 1 && at + 1 < static_cast<std::int64_t>(bins.size())) zero += std::exchange(bins[static_cast<std::size_t>(at)], 0);
    }
    detail.zero_blocks.push_back(zero);
  }
  return detail;
}

event_list load_events(const run_ref& run, const interrupt_flag& interrupt, rundb::step_range range) {
  auto db = open_run_database(run.file, interrupt);
  event_list list{db.events(run.id, range)};
  list.rows_read = db.rows_read();
  return list;
}

}  // namespace numlab_gui
