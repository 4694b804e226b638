// What a run's tracer reports of a scaled recipe: for each GEMM operand it
// quantized, libnum's statistics of that very quantization
// (num::scaled_stats_of) with the per-tensor amax, scale and amax history the
// recipe used. A scale_sink receives them (the run database's, or a test's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <libnum/scaled_stats.hpp>

#include "lab/scaled_recipe.hpp"

namespace lab {

/// The GEMM of a dense or conv2d op: "forward", "dgrad" (input gradient) or
/// "wgrad" (weight gradient), by the role of its output.
std::string_view gemm_name(tensor_role gemm_role);

/// One quantized GEMM operand at one step (one part of it where conv2d splits
/// its batch into several GEMMs: gemm_args::part).
struct scale_observation {
  std::string layer;                ///< the op's layer
  std::string_view gemm;            ///< gemm_name()
  gemm_operand operand = gemm_operand::activation;
  std::uint64_t step = 0;
  std::size_t part = 0;
  num::scaled_stats stats;          ///< counts, block-scale binades, signal and noise energy
  /// The largest finite |x| of the operand now (delayed scaling's scale came
  /// from amax_history instead).
  double amax = 0.0;
  /// The per-tensor decode scale: fp32 per-tensor scaling's, or NVFP4's
  /// second level; nullopt for pure block formats.
  std::optional<double> scale;
  std::vector<double> amax_history;  ///< delayed scaling's history, most recent first
};

/// Receives scale_observations from a run_tracer.
class scale_sink {
 public:
  virtual ~scale_sink() = default;
  /// Whether statistics of this operand at this step are wanted (they cost a
  /// pass over the operand, so the tracer asks first).
  [[nodiscard]] virtual bool wants(std::string_view layer, gemm_operand operand, std::uint64_t step) const = 0;
  virtual void on_scale(const scale_observation& observation) = 0;
};

}  // namespace lab
