// The statistics hook registry: filters, pattern matching, delivery.
#include "libnum/hooks.hpp"

#include <algorithm>

namespace num {

void stats_sink::on_swamping(const swamping_record&) {}

bool glob_match(std::string_view pattern, std::string_view text) {
  // Greedy matching with backtracking to the last '*': linear in practice.
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool sink_filter::accepts(std::string_view site_name, role_tag role, std::uint64_t step) const {
  return (roles & role_bit(role)) != 0 && accepts_any_role(site_name, step);
}

bool sink_filter::accepts_any_role(std::string_view site_name, std::uint64_t step) const {
  if (roles == 0) return false;
  if (every > 1 && step % every != 0) return false;
  if (site.empty() || site == "*") return true;
  if (site.find_first_of("*?") == std::string::npos) return site_name.substr(0, site.size()) == site;
  return glob_match(site, site_name);
}

stats_hooks::sink_id stats_hooks::attach(std::shared_ptr<stats_sink> sink, sink_filter filter) {
  sinks_.push_back({next_id_, std::move(sink), std::move(filter)});
  return next_id_++;
}

namespace {

// Adapts a function to the sink interface.
class function_sink final : public stats_sink {
 public:
  explicit function_sink(std::function<void(const stats_record&)> f) : f_(std::move(f)) {}
  void on_stats(const stats_record& record) override { f_(record); }

 private:
  std::function<void(const stats_record&)> f_;
};

}  // namespace

stats_hooks::sink_id stats_hooks::attach(std::function<void(const stats_record&)> on_stats, sink_filter filter) {
  return attach(std::make_shared<function_sink>(std::move(on_stats)), std::move(filter));
}

void stats_hooks::detach(sink_id id) {
  std::erase_if(sinks_, [id](const entry& e) { return e.id == id; });
}

bool stats_hooks::wants(std::string_view site, role_tag role, std::uint64_t step) const {
  return std::any_of(sinks_.begin(), sinks_.end(),
                     [&](const entry& e) { return e.filter.accepts(site, role, step); });
}

bool stats_hooks::wants(std::string_view site, std::uint64_t step) const {
  return std::any_of(sinks_.begin(), sinks_.end(), [&](const entry& e) { return e.filter.accepts_any_role(site, step); });
}

const stats_plan& stats_hooks::plan_for(const format& target, const round_spec& spec) {
  for (const stats_plan& plan : plans_) {
    if (plan.target() == target && plan.spec() == spec) return plan;
  }
  plans_.emplace_back(target, spec);
  return plans_.back();
}

void stats_hooks::send(const stats_record& record) {
  for (const entry& e : sinks_) {
    if (e.filter.accepts(record.site, record.role, record.step)) e.sink->on_stats(record);
  }
}

template <typename Deliver>
bool stats_hooks::deliver(std::string_view site, role_tag role, std::uint64_t step, Deliver&& deliver) {
  if (sinks_.empty() || !wants(site, role, step)) return false;
  deliver();
  return true;
}

bool stats_hooks::announce(std::string_view site, role_tag role, std::uint64_t step, const format& target,
                           const round_spec& spec, std::span<const float> values, const stats_options& options) {
  return deliver(site, role, step, [&] {
    const tensor_stats stats = compute_stats(values, plan_for(target, spec), options);
    send({site, role, step, stats});
  });
}

bool stats_hooks::announce(std::string_view site, role_tag role, std::uint64_t step, const format& storage,
                           std::span<const std::uint16_t> encodings) {
  return deliver(site, role, step, [&] {
    const tensor_stats stats = compute_stats(encodings, storage, plan_for(storage, round_spec{}));
    send({site, role, step, stats});
  });
}

bool stats_hooks::announce_update(std::string_view site, role_tag role, std::uint64_t step, const format& target,
                                  std::span<const float> before, std::span<const float> delta,
                                  std::span<const float> after, double tolerance) {
  return deliver(site, role, step, [&] {
    const swamping_stats stats = measure_swamping(before, delta, after, target, tolerance);
    const swamping_record record{site, role, step, stats};
    for (const entry& e : sinks_) {
      if (e.filter.accepts(site, role, step)) e.sink->on_swamping(record);
    }
  });
}

}  // namespace num
