// The comparison's data and seed bands; see comparison.hpp.
#include "comparison.hpp"

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace numlab_gui {
namespace {

constexpr const char* no_value = "(none)";

// The run's loss at `step`: its latest record at or before it, while the
// step lies within the run's recorded span.
std::optional<double> loss_at(const std::vector<rundb::loss_point>& curve, double step) {
  if (curve.empty() || step < static_cast<double>(curve.front().step) ||
      step > static_cast<double>(curve.back().step))
    return std::nullopt;
  const auto after = std::upper_bound(curve.begin(), curve.end(), step,
                                      [](double s, const rundb::loss_point& p) { return s < static_cast<double>(p.step); });
  const auto& point = *(after - 1);
  if (!std::isfinite(point.loss)) return std::nullopt;
  return point.loss;
}

std::vector<double> thinned(const std::set<std::int64_t>& steps, std::size_t max_points) {
  std::vector<double> all(steps.begin(), steps.end());
  if (max_points < 2 || all.size() <= max_points) return all;
  std::vector<double> out;
  out.reserve(max_points);
  // Evenly spaced indices, first and last kept.
  for (std::size_t i = 0; i < max_points; ++i) out.push_back(all[i * (all.size() - 1) / (max_points - 1)]);
  return out;
}

}  // namespace

std::optional<std::string> compared_run::coordinate(const std::string& key) const {
  for (const auto& c : coordinates)
    if (c.key == key) return c.value;
  return std::nullopt;
}

mean_sd mean_and_sd(const std::vector<double>& values) {
  mean_sd out;
  out.n = values.size();
  if (values.empty()) return out;
  double sum = 0;
  for (const double v : values) sum += v;
  out.mean = sum / static_cast<double>(values.size());
  if (values.size() < 2) return out;
  double squares = 0;
  for (const double v : values) squares += (v - out.mean) * (v - out.mean);
  out.sd = std::sqrt(squares / static_cast<double>(values.size() - 1));
  return out;
}

std::vector<seed_band> group_runs(const comparison_data& data, const std::string& key, std::size_t max_points) {
  std::vector<seed_band> bands;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < data.runs.size(); ++i) {
    const auto& run = data.runs[i];
    const std::string value = key.empty() ? run.run.label.toStdString() : run.coordinate(key).value_or(no_value);
    // Without a key, runs of equal labels in different files stay apart.
    const std::string slot = key.empty() ? std::to_string(i) : value;
    const auto [at, added] = index.emplace(slot, bands.size());
    if (added) {
      bands.emplace_back();
      bands.back().value = value;
    }
    bands[at->second].members.push_back(i);
  }
  for (auto& band : bands) {
    std::set<std::int64_t> steps;
    std::vector<double> accuracies, losses;
    for (const auto m : band.members) {
      const auto& run = data.runs[m];
      if (run.status != rundb::run_status::finished) continue;
      ++band.finished;
      for (const auto& p : run.loss_curve) steps.insert(p.step);
      if (run.final_accuracy) accuracies.push_back(*run.final_accuracy);
      if (run.final_loss && std::isfinite(*run.final_loss)) losses.push_back(*run.final_loss);
    }
    band.final_accuracy = mean_and_sd(accuracies);
    band.final_loss = mean_and_sd(losses);
    band.steps = thinned(steps, max_points);
    std::vector<double> at_step;
    for (const double step : band.steps) {
      at_step.clear();
      for (const auto m : band.members) {
        const auto& run = data.runs[m];
        if (run.status != rundb::run_status::finished) continue;
        if (const auto loss = loss_at(run.loss_curve, step)) at_step.push_back(*loss);
      }
      const auto stats = mean_and_sd(at_step);
      band.mean.push_back(stats.n > 0 ? stats.mean : std::nan(""));
      band.sd.push_back(stats.sd);
      band.n.push_back(stats.n);
    }
  }
  return bands;
}

std::string default_group_key(const comparison_data& data) {
  for (const auto& key : data.keys) {
    if (key == "seed") continue;
    std::set<std::string> values;
    for (const auto& run : data.runs) values.insert(run.coordinate(key).value_or(no_value));
    if (values.size() > 1) return key;
  }
  return data.keys.empty() ? std::string() : data.keys.front();
}

comparison_grouping group_as_asked(const comparison_data& data, const std::optional<std::string>& wanted,
                                   std::size_t max_points) {
  comparison_grouping out;
  const bool known = wanted && (wanted->empty() || std::binary_search(data.keys.begin(), data.keys.end(), *wanted));
  out.key = known ? *wanted : default_group_key(data);
  out.bands = group_runs(data, out.key, max_points);
  return out;
}

int load_progress::permille() const {
  const int total = files.load();
  if (total <= 0) return 0;
  const std::size_t of = runs.load();
  const double within = of == 0 ? 0.0 : static_cast<double>(runs_read.load()) / static_cast<double>(of);
  return std::clamp(static_cast<int>(1000.0 * (file.load() + std::min(within, 1.0)) / total), 0, 1000);
}

comparison_data load_comparison(const QStringList& files, std::size_t max_points, const interrupt_flag& interrupt,
                                load_progress* progress) {
  QElapsedTimer clock;
  clock.start();
  comparison_data data;
  data.files = files;
  std::set<std::string> keys;
  // Labels carry the file name only when runs come from several files.
  const bool several = files.size() > 1;
  if (progress) progress->files = static_cast<int>(files.size());
  rundb::outcome_progress tell;
  if (progress)
    tell = [progress](std::size_t read, std::size_t runs) {
      progress->runs = runs;
      progress->runs_read = read;
    };
  for (int f = 0; f < files.size(); ++f) {
    const QString& file = files[f];
    if (progress) {
      progress->runs_read = 0;
      progress->runs = 0;
      progress->file = f;
    }
    rundb::reader db(file.toStdString(), &interrupt);
    for (auto& outcome : db.run_outcomes(max_points, tell)) {
      compared_run run;
      const auto& info = outcome.run;
      QString label = QString("%1 (#%2)").arg(QString::fromStdString(info.name)).arg(info.id);
      if (several) label += " — " + QFileInfo(file).fileName();
      run.run = {file, info.id, label};
      run.status = info.status;
      run.coordinates = std::move(outcome.coordinates);
      for (const auto& c : run.coordinates) keys.insert(c.key);
      run.loss_curve = std::move(outcome.loss_curve);
      run.final_loss = outcome.final_loss;
      run.final_accuracy = outcome.final_accuracy;
      run.counts = {outcome.steps, outcome.skipped_steps, outcome.overflow_events, outcome.nan_events};
      data.runs.push_back(std::move(run));
    }
  }
  data.keys.assign(keys.begin(), keys.end());
  data.load_ms = clock.elapsed();
  return data;
}

}  // namespace numlab_gui
