// Grouped comparison of runs (rundb/compare.hpp).
#include "rundb/compare.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "rundb/errors.hpp"

namespace rundb {
namespace {

// Numbers compare as numbers ("2" before "10"), anything else as text.
bool value_less(const std::string& a, const std::string& b) {
  double x = 0, y = 0;
  const auto ra = std::from_chars(a.data(), a.data() + a.size(), x);
  const auto rb = std::from_chars(b.data(), b.data() + b.size(), y);
  const bool na = ra.ec == std::errc() && ra.ptr == a.data() + a.size();
  const bool nb = rb.ec == std::errc() && rb.ptr == b.data() + b.size();
  if (na && nb && x != y) return x < y;
  if (na != nb) return na;
  return a < b;
}

std::string format_mean_sd(const mean_sd& m, const char* format) {
  if (m.n == 0) return "-";
  char text[64];
  std::snprintf(text, sizeof text, format, m.mean);
  std::string out = text;
  if (m.n > 1) {
    std::snprintf(text, sizeof text, format, m.sd);
    out.append(" ± ").append(text);
  }
  return out;
}

}  // namespace

mean_sd mean_and_sd(std::span<const double> values) {
  mean_sd m;
  m.n = values.size();
  if (m.n == 0) return m;
  for (double v : values) m.mean += v;
  m.mean /= static_cast<double>(m.n);
  if (m.n < 2) return m;
  double squares = 0;
  for (double v : values) squares += (v - m.mean) * (v - m.mean);
  m.sd = std::sqrt(squares / static_cast<double>(m.n - 1));
  return m;
}

std::vector<run_group> compare_runs(reader& db, std::span<const std::string> keys) {
  const auto outcomes = db.run_outcomes_without_curves();
  std::set<std::string> known;
  for (const auto& o : outcomes)
    for (const auto& c : o.coordinates) known.insert(c.key);
  if (std::none_of(keys.begin(), keys.end(), [&](const std::string& k) { return known.count(k) > 0; })) {
    std::string have;
    for (const auto& k : known) have += (have.empty() ? "" : ", ") + k;
    throw error(db.path().string() + ": no run has a coordinate '" + (keys.empty() ? "" : keys.front()) +
                "' (sweep keys here: " + (have.empty() ? "none, not a sweep" : have) + ")");
  }
  return group_outcomes(outcomes, keys);
}

std::vector<run_group> group_outcomes(std::span<const run_outcome> outcomes, std::span<const std::string> keys) {
  struct samples {
    run_group group;
    std::vector<double> accuracy, overflows, skipped;
  };
  const auto less = [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), value_less);
  };
  std::map<std::vector<std::string>, samples, decltype(less)> groups(less);
  for (const auto& outcome : outcomes) {
    std::vector<std::string> values;
    for (const auto& key : keys) {
      std::string value = "-";
      for (const auto& c : outcome.coordinates)
        if (c.key == key) value = c.value;
      values.push_back(value);
    }
    auto& g = groups[values];
    g.group.values = values;
    ++g.group.runs;
    const auto status = outcome.run.status;
    if (status == run_status::diverged) {
      ++g.group.diverged;
      continue;  // reported as diverged, never scored
    }
    if (status != run_status::finished) {
      ++g.group.other;
      continue;
    }
    ++g.group.finished;
    if (outcome.final_accuracy) g.accuracy.push_back(*outcome.final_accuracy);
    g.overflows.push_back(static_cast<double>(outcome.overflow_events));
    g.skipped.push_back(static_cast<double>(outcome.skipped_steps));
  }
  std::vector<run_group> out;
  for (auto& [values, g] : groups) {
    g.group.final_accuracy = mean_and_sd(g.accuracy);
    g.group.overflow_events = mean_and_sd(g.overflows);
    g.group.skipped_steps = mean_and_sd(g.skipped);
    out.push_back(std::move(g.group));
  }
  return out;
}

void write_comparison(std::span<const std::string> keys, std::span<const run_group> groups, std::ostream& out) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header(keys.begin(), keys.end());
  for (const char* h : {"runs", "finished", "diverged", "other", "final accuracy", "overflow events", "skipped steps"})
    header.push_back(h);
  rows.push_back(header);
  for (const auto& g : groups) {
    auto row = g.values;
    for (std::size_t n : {g.runs, g.finished, g.diverged, g.other}) row.push_back(std::to_string(n));
    row.push_back(format_mean_sd(g.final_accuracy, "%.4f"));
    row.push_back(format_mean_sd(g.overflow_events, "%.1f"));
    row.push_back(format_mean_sd(g.skipped_steps, "%.1f"));
    rows.push_back(std::move(row));
  }
  // Column widths in characters; "±" is one character of two bytes.
  const auto width = [](const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  };
  std::vector<std::size_t> widths(header.size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], width(row[c]));
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      out << (c ? "  " : "") << row[c];
      if (c + 1 < row.size()) out << std::string(widths[c] - width(row[c]), ' ');
    }
    out << "\n";
  }
  out << "mean ± sd over the finished runs of each group; diverged and other runs are counted, never scored\n";
}

}  // namespace rundb
