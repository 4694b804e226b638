// The run database's statistics sink: turns libnum's stats_record and
// swamping_record into rundb::tensor_stats_record rows and queues them on a
// rundb::writer (which commits off the calling thread). It is the only part
// of tracing that knows the database; the tracer and the trainer do not.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <libnum/hooks.hpp>
#include <rundb/writer.hpp>

#include "lab/run_tracer.hpp"

namespace lab {

/// Writes every statistics announcement it receives as one tensor_stats row.
/// An update's delta statistics (on_stats, role update) and the swamping of
/// the same write (on_swamping, same site and step) become one row. The first
/// time a site shows NaNs (or infinities / overflows) it also writes a nan
/// (overflow) event. Formats are declared in the database on first use.
class rundb_sink : public num::stats_sink {
 public:
  /// Names a site's layer and op columns; by default the site name and "".
  using labeller = std::function<std::optional<site_label>(std::string_view site)>;

  /// Writes into `run` of `db` (not owned; must outlive the sink).
  rundb_sink(rundb::writer& db, rundb::run_id run, bool histograms, labeller label = {});
  /// Writes a pending update row.
  ~rundb_sink() override;

  void on_stats(const num::stats_record& record) override;
  void on_swamping(const num::swamping_record& record) override;
  /// Writes a pending update row that has not met its swamping statistics yet.
  void flush();

 private:
  [[nodiscard]] site_label label_of(std::string_view site) const;
  rundb::tensor_stats_record row(std::string_view site, std::string_view role, std::uint64_t step,
                                 const num::format& f);
  void report_non_finite(const rundb::tensor_stats_record& r);

  rundb::writer& db_;
  rundb::run_id run_;
  bool histograms_;
  labeller label_;
  std::optional<rundb::tensor_stats_record> pending_update_;
  std::set<std::string, std::less<>> declared_formats_;
  std::set<std::string, std::less<>> reported_nan_, reported_overflow_;
};

}  // namespace lab
