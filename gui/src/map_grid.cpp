// map_grid's cell bookkeeping: sizing, placing the reader's cells, and
// merging columns pairwise when a live map's column width doubles.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "run_data.hpp"

namespace numlab_gui {

std::size_t map_grid::column_of(std::int64_t step) const {
  const auto after = std::upper_bound(steps.begin(), steps.end(), step);
  return after == steps.begin() ? 0 : static_cast<std::size_t>(after - steps.begin() - 1);
}

void map_grid::clear_cells() {
  const std::size_t size = layers.size() * steps.size();
  fractions.assign(size, std::numeric_limits<double>::quiet_NaN());
  worst_steps.assign(size, -1);
  cell_roles.assign(size, {});
}

void map_grid::place(const std::vector<rundb::layer_step_cell>& cells, std::size_t first_column) {
  std::size_t column = first_column;
  for (const auto& c : cells) {
    while (steps[column] != c.step) ++column;
    const auto layer = static_cast<std::size_t>(std::find(layers.begin(), layers.end(), c.layer) - layers.begin());
    const std::size_t at = layer * steps.size() + column;
    fractions[at] = c.values > 0 ? c.counted / c.values : std::numeric_limits<double>::quiet_NaN();
    worst_steps[at] = c.worst_step;
    cell_roles[at] = c.role;
  }
}

void map_grid::double_column_width() {
  if (steps.empty()) return;
  const std::int64_t width = 2 * column_steps;
  // Columns start at their aligned first step, the first at the first recorded one.
  std::vector<std::int64_t> merged_steps;
  std::vector<std::size_t> into(steps.size());  // new column of each old one
  for (std::size_t c = 0; c < steps.size(); ++c) {
    const std::int64_t start = std::max(steps.front(), rundb::bucket_index(steps[c], width) * width);
    if (merged_steps.empty() || merged_steps.back() != start) merged_steps.push_back(start);
    into[c] = merged_steps.size() - 1;
  }
  map_grid merged;
  merged.layers = layers;
  merged.steps = std::move(merged_steps);
  merged.clear_cells();
  // The reader pools by the fraction (0 for a record of no values), the
  // earlier step on ties: the same order here, so any grouping agrees.
  const auto key = [](double fraction) { return std::isnan(fraction) ? 0.0 : fraction; };
  for (std::size_t l = 0; l < layers.size(); ++l) {
    for (std::size_t c = 0; c < steps.size(); ++c) {
      const std::size_t from = l * steps.size() + c, to = l * merged.steps.size() + into[c];
      if (worst_steps[from] < 0) continue;
      const bool empty = merged.worst_steps[to] < 0;
      const double now = key(fractions[from]), before = key(merged.fractions[to]);
      if (empty || now > before || (now == before && worst_steps[from] < merged.worst_steps[to])) {
        merged.fractions[to] = fractions[from];
        merged.worst_steps[to] = worst_steps[from];
        merged.cell_roles[to] = cell_roles[from];
      }
    }
  }
  steps = std::move(merged.steps);
  fractions = std::move(merged.fractions);
  worst_steps = std::move(merged.worst_steps);
  cell_roles = std::move(merged.cell_roles);
  column_steps = width;
}

map_grid grid_of(const std::vector<rundb::layer_step_cell>& cells, std::int64_t column_steps) {
  map_grid grid;
  grid.column_steps = column_steps;
  std::set<std::string, std::less<>> known;
  for (const auto& c : cells) {
    if (known.insert(c.layer).second) grid.layers.push_back(c.layer);
    if (grid.steps.empty() || grid.steps.back() != c.step) grid.steps.push_back(c.step);  // cells come by step
  }
  grid.clear_cells();
  grid.place(cells, 0);
  return grid;
}

}  // namespace numlab_gui
