// Human-readable reports of a run, printed by `numlab inspect`.
#pragma once

#include <ostream>
#include <string_view>

#include "rundb/reader.hpp"

namespace rundb {

/// How many entries the rankings and histories of a summary list.
struct summary_options {
  std::size_t top_layers = 5;         ///< layers listed per ranking
  std::size_t scale_changes = 12;     ///< loss-scale changes listed before eliding
  std::size_t skip_reasons = 8;       ///< distinct skip reasons listed
};

/// Prints one run: identity and status, config, step range, final metrics,
/// skipped steps by cause, layers with the most overflow / underflow /
/// swamping, and the loss-scale history in brief.
void write_run_summary(reader& db, run_id run, std::ostream& out, summary_options options = {});

/// Prints one layer's statistics at every recorded step, one line per role
/// and step. Throws rundb::error when the run has no such layer.
void write_layer_history(reader& db, run_id run, std::string_view layer, std::ostream& out);

}  // namespace rundb
