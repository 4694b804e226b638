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
  std::size_t scaled_operands = 12;   ///< scaled GEMM operands listed before eliding
};

/// Prints one run: identity and status, config, step range, final metrics,
/// skipped steps by cause, layers with the most overflow / underflow /
/// swamping, the loss-scale history in brief, and the scaled formats'
/// statistics (write_scale_summary).
void write_run_summary(reader& db, run_id run, std::ostream& out, summary_options options = {});

/// Prints what scaled-format recipes did (table scale_stats), one line per
/// GEMM operand (layer, op, role) over the run, most block underflow first,
/// up to `max_lines`: its format, steps recorded, block underflow, underflow
/// to zero and saturation as shares of the elements, scale under/overflows,
/// mean SNR, the last amax and per-tensor scale. Nothing for a run without.
void write_scale_summary(reader& db, run_id run, std::ostream& out, std::size_t max_lines = 12);

/// Prints one layer's statistics at every recorded step, one line per role
/// and step. Throws rundb::error when the run has no such layer.
void write_layer_history(reader& db, run_id run, std::string_view layer, std::ostream& out);

/// Prints where a run first went non-finite: the first NaN and the first
/// infinity or overflow (from its nan and overflow events, in step and
/// recording order, so the first is the earliest bad tensor), that tensor's
/// statistics, and the chain of tensors that went bad after it, up to
/// `chain` entries. Says so when the run recorded none.
void write_first_nonfinite(reader& db, run_id run, std::ostream& out, std::size_t chain = 12);

}  // namespace rundb
