// The run database's scale sink: turns the tracer's scale_observations into
// rundb::scale_stats_record rows (table scale_stats, schema version 3; see
// rundb/SCHEMA.md). Where conv2d splits a GEMM into parts, the parts of one
// operand at one step become one row (counts and energies summed, block-scale
// binades merged, amax the largest part's and scale that same part's, the
// first such, so that amax and scale describe the same values; history part
// 0's), merged in the order of their part numbers whichever worker reported
// them first, so the row does not depend on thread timing.
//
// Columns: layer = the op's layer, op = the GEMM ("forward", "dgrad",
// "wgrad"), role = the operand ("activation", "weight", "gradient"),
// scaled_format = num::scaled_format_name of the format quantize ran with
// (per-tensor scaling shows as "<element>/fp32-given/tensor").
#pragma once

#include <map>
#include <string>
#include <tuple>

#include <libnum/hooks.hpp>
#include <rundb/writer.hpp>

#include "lab/scale_trace.hpp"

namespace lab {

/// Writes scale_stats rows for the steps and sites `filter` accepts: the
/// site "<layer>.<operand>" (e.g. "conv1.weight"), the operand's role
/// (activation, weight, grad_input for the gradient).
class rundb_scale_sink : public scale_sink {
 public:
  /// Writes into `run` of `db` (not owned; must outlive the sink).
  rundb_scale_sink(rundb::writer& db, rundb::run_id run, num::sink_filter filter);
  /// Writes what is pending.
  ~rundb_scale_sink() override;

  [[nodiscard]] bool wants(std::string_view layer, gemm_operand operand, std::uint64_t step) const override;
  void on_scale(const scale_observation& observation) override;
  /// Writes the rows gathered so far (call after each step).
  void flush();

 private:
  rundb::writer& db_;
  rundb::run_id run_;
  num::sink_filter filter_;
  // (step, layer, gemm, operand, part) -> that part, until flush() merges them.
  std::map<std::tuple<std::uint64_t, std::string, std::string, gemm_operand, std::size_t>, scale_observation> pending_;
};

/// The scale_stats row of one observation (histogram: floor(log2(block
/// decode scale)) per binade, zero scales in the first bin).
rundb::scale_stats_record scale_stats_row(rundb::run_id run, const scale_observation& o);

}  // namespace lab
