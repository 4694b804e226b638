// Text reports for `numlab inspect`: a run summary and one layer's history.
#include "rundb/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rundb/errors.hpp"

namespace rundb {
namespace {

std::string number(double value, const char* format = "%.6g") {
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), format, value);
  return text.data();
}

std::string optional_number(const std::optional<double>& value) {
  return value ? number(*value) : std::string("-");
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0) return "-";
  return number(100.0 * static_cast<double>(part) / static_cast<double>(whole), "%.4g%%");
}

// Loss scales are powers of two in practice; show them as such when they are.
std::string scale_text(double scale) {
  int exponent = 0;
  if (scale > 0 && std::frexp(scale, &exponent) == 0.5) return "2^" + std::to_string(exponent - 1);
  return number(scale);
}

void write_config(const run_info& run, std::ostream& out) {
  out << "config:\n";
  if (run.config_yaml.empty()) out << "  (none recorded)\n";
  std::size_t begin = 0;
  while (begin < run.config_yaml.size()) {
    const std::size_t end = std::min(run.config_yaml.find('\n', begin), run.config_yaml.size());
    out << "  " << run.config_yaml.substr(begin, end - begin) << "\n";
    begin = end + 1;
  }
}

void write_final_metrics(reader& db, run_id run, std::ostream& out) {
  const auto last = db.last_step(run);
  out << "steps: " << db.step_count(run);
  if (last) out << " (last step " << last->step << ", epoch " << last->epoch << ")";
  out << "\n";
  if (last) {
    out << "final: loss " << optional_number(last->loss) << ", lr " << optional_number(last->lr)
        << ", grad norm " << optional_number(last->grad_norm) << ", loss scale "
        << (last->loss_scale ? scale_text(*last->loss_scale) : "-");
    if (last->wall_time) out << ", wall time " << number(*last->wall_time, "%.1f") << " s";
    out << "\n";
  }
  const auto evaluations = db.evaluations(run);
  if (!evaluations.empty()) {
    const auto& e = evaluations.back();
    out << "final evaluation (epoch " << e.epoch << ", step " << e.step << "): loss " << number(e.loss)
        << ", accuracy " << optional_number(e.accuracy) << "\n";
  }
}

void write_skipped(reader& db, run_id run, std::ostream& out, std::size_t max_reasons) {
  const auto skipped = db.skipped_steps(run);
  out << "skipped steps: " << skipped.size() << "\n";
  struct cause {
    std::size_t count = 0;
    std::int64_t first = 0;
  };
  std::map<std::string, cause> causes;
  for (const auto& s : skipped) {
    auto& c = causes[s.skip_reason.empty() ? "(no reason recorded)" : s.skip_reason];
    if (c.count++ == 0) c.first = s.step;
  }
  std::vector<std::pair<std::string, cause>> ranked(causes.begin(), causes.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  for (std::size_t i = 0; i < ranked.size() && i < max_reasons; ++i) {
    out << "  " << ranked[i].second.count << " x " << ranked[i].first << " (first at step "
        << ranked[i].second.first << ")\n";
  }
  if (ranked.size() > max_reasons) out << "  ... " << ranked.size() - max_reasons << " more causes\n";
}

void write_ranking(const std::vector<layer_totals>& totals, const char* title,
                   const std::function<std::uint64_t(const layer_totals&)>& metric, std::size_t top,
                   std::ostream& out) {
  std::vector<const layer_totals*> ranked;
  for (const auto& t : totals)
    if (metric(t) > 0) ranked.push_back(&t);
  std::stable_sort(ranked.begin(), ranked.end(), [&](auto* a, auto* b) { return metric(*a) > metric(*b); });
  out << title << ":";
  if (ranked.empty()) out << " none";
  out << "\n";
  for (std::size_t i = 0; i < ranked.size() && i < top; ++i) {
    const auto& t = *ranked[i];
    out << "  " << t.layer << " / " << t.role << ": " << metric(t) << " of " << t.count << " values ("
        << percent(metric(t), t.count) << ")\n";
  }
}

void write_scale_history(reader& db, run_id run, std::ostream& out, std::size_t max_changes) {
  std::vector<std::pair<std::int64_t, double>> changes;
  double low = 0, high = 0;
  for (const auto& s : db.steps(run)) {
    if (!s.loss_scale) continue;
    if (changes.empty()) low = high = *s.loss_scale;
    low = std::min(low, *s.loss_scale);
    high = std::max(high, *s.loss_scale);
    if (changes.empty() || changes.back().second != *s.loss_scale) changes.emplace_back(s.step, *s.loss_scale);
  }
  if (changes.empty()) {
    out << "loss scale: not recorded\n";
    return;
  }
  out << "loss scale: " << changes.size() - 1 << " changes, range " << scale_text(low) << " .. "
      << scale_text(high) << "\n  ";
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (i == max_changes / 2 && changes.size() > max_changes) {
      out << " ... (" << changes.size() - max_changes << " more) ...";
      i = changes.size() - max_changes / 2;
    }
    out << (i ? " -> " : "") << scale_text(changes[i].second) << " @" << changes[i].first;
  }
  out << "\n";
}

}  // namespace

void write_run_summary(reader& db, run_id run, std::ostream& out, summary_options options) {
  const run_info info = db.run(run);
  out << "run " << info.id << ": " << info.name << " [" << to_string(info.status) << "]\n";
  out << "started " << info.start_time;
  if (!info.end_time.empty()) out << ", ended " << info.end_time;
  out << " on " << info.host << ", numlab " << info.numlab_version << "\n";
  write_config(info, out);
  write_final_metrics(db, run, out);
  write_skipped(db, run, out, options.skip_reasons);
  const auto totals = db.totals_by_layer(run);
  write_ranking(totals, "most overflow", [](const layer_totals& t) { return t.overflows + t.nans; },
                options.top_layers, out);
  write_ranking(totals, "most underflow", [](const layer_totals& t) { return t.underflows; },
                options.top_layers, out);
  write_ranking(totals, "most swamping", [](const layer_totals& t) { return t.swamped + t.partially_swamped; },
                options.top_layers, out);
  write_scale_history(db, run, out, options.scale_changes);
  write_scale_summary(db, run, out, options.scaled_operands);
  const auto events = db.events(run);
  std::map<std::string, std::size_t> by_kind;
  for (const auto& e : events) ++by_kind[std::string(to_string(e.kind))];
  out << "events: " << events.size();
  for (const auto& [kind, count] : by_kind) out << ", " << count << " " << kind;
  out << "\n";
}

void write_layer_history(reader& db, run_id run, std::string_view layer, std::ostream& out) {
  const auto rows = db.tensor_stats({.run = run, .layer = std::string(layer)});
  if (rows.empty()) {
    std::string known;
    for (const auto& l : db.layers(run)) known += (known.empty() ? "" : ", ") + l;
    throw error(db.path().string() + ": run " + std::to_string(run) + " has no layer '" +
                std::string(layer) + "' (layers: " + (known.empty() ? "none" : known) + ")");
  }
  out << "layer " << layer << " of run " << run << ": " << rows.size() << " records\n";
  std::array<char, 256> line{};
  std::snprintf(line.data(), line.size(), "%10s %-14s %-10s %10s %9s %9s %9s %7s %11s %11s %9s\n", "step",
                "role", "format", "count", "overflow", "underflow", "subnormal", "nan", "max|x|", "rms",
                "swamped");
  out << line.data();
  for (const auto& r : rows) {
    std::snprintf(line.data(), line.size(), "%10lld %-14s %-10s %10llu %9llu %9llu %9llu %7llu %11.4g %11.4g %9llu\n",
                  static_cast<long long>(r.step), r.role.c_str(), r.format.c_str(),
                  static_cast<unsigned long long>(r.count), static_cast<unsigned long long>(r.overflows),
                  static_cast<unsigned long long>(r.underflows), static_cast<unsigned long long>(r.subnormals),
                  static_cast<unsigned long long>(r.nans), r.max_abs, r.rms,
                  static_cast<unsigned long long>(r.swamped));
    out << line.data();
  }
}

void write_first_nonfinite(reader& db, run_id run, std::ostream& out, std::size_t chain) {
  const run_info info = db.run(run);
  out << "run " << run << " (" << info.name << "), status " << to_string(info.status) << "\n";
  std::vector<event_record> bad;
  for (auto& e : db.events(run))
    if (e.kind == event_kind::nan || e.kind == event_kind::overflow) bad.push_back(std::move(e));
  if (bad.empty()) {
    out << "  no NaN or infinity recorded\n";
    return;
  }
  const auto first_of = [&](event_kind kind) {
    return std::find_if(bad.begin(), bad.end(), [&](const event_record& e) { return e.kind == kind; });
  };
  for (const auto kind : {event_kind::overflow, event_kind::nan}) {
    const auto e = first_of(kind);
    out << (kind == event_kind::nan ? "  first NaN:          " : "  first inf/overflow: ");
    if (e == bad.end()) {
      out << "none\n";
      continue;
    }
    out << "step " << e->step << ", " << e->layer << ": " << e->message << "\n";
    stats_query q;
    q.run = run;
    q.steps = {e->step, e->step};
    const auto step_stats = db.tensor_stats(q);  // in recording order
    const auto print = [&](const tensor_stats_record& t) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "    %s %s [%s] in %s: %llu values, %llu NaN, %llu inf, %llu overflowed, max |x| %.6g, "
                      "rms %.6g\n",
                      t.layer.c_str(), t.op.c_str(), t.role.c_str(), t.format.c_str(),
                      static_cast<unsigned long long>(t.count), static_cast<unsigned long long>(t.nans),
                      static_cast<unsigned long long>(t.infs), static_cast<unsigned long long>(t.overflows),
                      t.max_abs, t.rms);
        out << line;
    };
    const auto at = std::find_if(step_stats.begin(), step_stats.end(), [&](const tensor_stats_record& t) {
      return t.layer == e->layer && (kind == event_kind::nan ? t.nans > 0 : t.infs + t.overflows > 0);
    });
    if (at == step_stats.end()) continue;
    // What fed it: the tensors recorded just before it in that step.
    const auto from = at - std::min<std::ptrdiff_t>(at - step_stats.begin(), 3);
    if (from != at) out << "    after:\n";
    for (auto t = from; t != at; ++t) {
      out << "  ";
      print(*t);
    }
    out << "    it:\n  ";
    print(*at);
  }
  out << "  chain (each tensor's first non-finite values, in order):\n";
  for (std::size_t i = 0; i < bad.size() && i < chain; ++i)
    out << "    step " << bad[i].step << "  " << bad[i].layer << ": " << bad[i].message << "\n";
  if (bad.size() > chain) out << "    ... " << bad.size() - chain << " more\n";
}

}  // namespace rundb
