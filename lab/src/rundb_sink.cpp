#include "lab/rundb_sink.hpp"

#include "lab/run_tracer.hpp"

#include <libnum/format.hpp>

namespace lab {
namespace {

rundb::histogram to_histogram(std::span<const std::uint64_t> bins, int first_exponent) {
  return {first_exponent, std::vector<std::uint64_t>(bins.begin(), bins.end())};
}

}  // namespace

rundb_sink::rundb_sink(rundb::writer& db, rundb::run_id run, bool histograms, labeller label)
    : db_(db), run_(run), histograms_(histograms), label_(std::move(label)) {}

rundb_sink::~rundb_sink() {
  try {
    flush();
  } catch (...) {  // a writer failure is reported by the writer's next call
  }
}

void rundb_sink::flush() {
  if (!pending_update_) return;
  db_.add_tensor_stats(std::move(*pending_update_));
  pending_update_.reset();
}

site_label rundb_sink::label_of(std::string_view site) const {
  if (label_)
    if (auto known = label_(site)) return *std::move(known);
  return {std::string(site), {}};
}

rundb::tensor_stats_record rundb_sink::row(std::string_view site, std::string_view role, std::uint64_t step,
                                           const num::format& f) {
  rundb::tensor_stats_record r;
  r.run = run_;
  r.step = static_cast<std::int64_t>(step);
  site_label label = label_of(site);
  r.layer = std::move(label.layer);
  r.op = std::move(label.op);
  r.role = role;
  r.format = num::format_name(f);
  if (!declared_formats_.contains(r.format)) {
    declared_formats_.insert(r.format);
    db_.declare_format({r.format, f.precision, f.emin, f.emax, f.subnormals, f.infinities});
  }
  return r;
}

namespace {

// Names only the counts that are nonzero, and says what "overflow" means, so
// that the event reads the same as the step's skip reason: values beyond the
// format's largest finite value are what became inf there ("0 inf and 67
// overflowing values" read as a contradiction of "inf in grad_weight").
std::string overflow_text(const rundb::tensor_stats_record& r) {
  std::string text;
  if (r.infs > 0) text = std::to_string(r.infs) + " inf";
  if (r.overflows > 0)
    text += (text.empty() ? "" : " and ") + std::to_string(r.overflows) + " finite value" +
            (r.overflows == 1 ? "" : "s") + " beyond " + r.format + "'s largest finite value";
  return text + " in " + r.role + " (" + r.format + ", first occurrence at this site)";
}

}  // namespace

void rundb_sink::report_non_finite(const rundb::tensor_stats_record& r) {
  const std::string key = r.layer + "/" + r.role;
  if (r.nans > 0 && reported_nan_.insert(key).second)
    db_.add_event({run_, r.step, rundb::event_kind::nan, r.layer,
                   std::to_string(r.nans) + " NaN in " + r.role + " (first occurrence at this site)"});
  if (r.infs + r.overflows > 0 && reported_overflow_.insert(key).second)
    db_.add_event({run_, r.step, rundb::event_kind::overflow, r.layer, overflow_text(r)});
}

void rundb_sink::on_stats(const num::stats_record& record) {
  flush();
  const auto& s = record.stats;
  rundb::tensor_stats_record r = row(record.site, record.role.name, record.step, s.target);
  r.count = s.count;
  r.zeros = s.zeros;
  r.subnormals = s.subnormals;
  r.underflows = s.underflows;
  r.overflows = s.overflows;
  r.nans = s.nans;
  r.infs = s.infs;
  r.min_abs = s.min_abs;
  r.min_nonzero_abs = s.min_nonzero_abs;
  r.max_abs = s.max_abs;
  r.mean = s.mean();
  r.rms = s.rms();
  if (histograms_) r.hist = to_histogram(s.bins(), s.lowest_binade());
  report_non_finite(r);
  if (record.role.id == trace_tag(tensor_role::update).id) {
    pending_update_ = std::move(r);  // joined by the swamping statistics that follow
    return;
  }
  db_.add_tensor_stats(std::move(r));
}

void rundb_sink::on_swamping(const num::swamping_record& record) {
  const auto& s = record.stats;
  const bool joins = pending_update_ && pending_update_->step == static_cast<std::int64_t>(record.step) &&
                     label_of(record.site).layer == pending_update_->layer;
  if (!joins) {
    flush();
    pending_update_ = row(record.site, record.role.name, record.step, s.target);
    pending_update_->count = s.count;
  }
  pending_update_->swamped = s.total_swamped;
  pending_update_->partially_swamped = s.partially_swamped;
  if (histograms_) pending_update_->ulp_ratio = to_histogram(s.ratio_histogram, num::swamping_ratio_log2_min);
  flush();
}

}  // namespace lab
