// The run tracer's report of quantized GEMM operands (scale_trace.hpp).
#include "lab/scale_trace.hpp"

#include "lab/run_tracer.hpp"
#include "lab/scaled_gemm.hpp"

namespace lab {

std::string_view gemm_name(tensor_role gemm_role) {
  switch (gemm_role) {
    case tensor_role::grad_input: return "dgrad";
    case tensor_role::grad_weight: return "wgrad";
    default: return "forward";
  }
}

void run_tracer::observe_quantized(const site& where, const quantized_operand& q) {
  if (!enabled_ || scale_sink_ == nullptr || !scale_sink_->wants(where.layer, q.operand, step_)) return;
  scale_observation o;
  o.layer = std::string(where.layer);
  o.gemm = gemm_name(q.gemm_role);
  o.operand = q.operand;
  o.step = step_;
  o.part = q.part;
  // The statistics of the quantization the GEMM used, not of a second one;
  // their pass over the values also finds the amax.
  o.stats = num::scaled_stats_of(q.values, q.shape, q.options.format, q.scales, q.result, q.dequantized);
  o.amax = o.stats.amax;
  const auto& f = q.options.format;
  if (f.rule == num::scale_rule::fp32_given)
    o.scale = q.options.given_scale;
  else if (f.rule == num::scale_rule::nvfp4)
    o.scale = q.result.tensor_scale;
  o.amax_history.assign(q.amax_history.rbegin(), q.amax_history.rend());
  scale_sink_->on_scale(o);
}

}  // namespace lab
