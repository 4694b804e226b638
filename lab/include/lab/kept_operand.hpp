// A GEMM operand's quantization kept for the GEMM's next parts (conv2d's
// image chunks, which all multiply the whole weight): scaled_gemm quantizes
// the weight once per pass and GEMM role instead of once per chunk.
//
// Reuse is bit-identical by construction: a kept quantization is reused only
// where the operand's stored values are bit for bit the kept ones and the
// quantization options equal the kept ones in everything but the random
// stream, which only stochastic rounding reads, so operands rounded
// stochastically (a stream of their own in every part) are never kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include <libnum/scaled_array.hpp>

#include "lab/op_context.hpp"

namespace lab {

/// One operand's quantization as scaled_gemm multiplies it.
struct kept_quantization {
  // What was quantized: the operand as the op stored it (dense copy), where
  // it stood in the GEMM, and how.
  bool is_a = true, trans = false;
  std::size_t stored_rows = 0, stored_cols = 0;
  std::vector<float> source;
  num::scaled_options options;
  // The quantization (scaled_gemm.hpp's layouts): rows x k values (empty:
  // the source is laid out so), their block scales, dequantized values rows
  // x k and in the stored layout (empty: that is rows x k).
  num::tensor_shape shape;
  std::vector<float> values, dequantized, stored;
  std::vector<std::uint32_t> scales;
  std::size_t stored_ld = 0;
  num::scaled_result result;
  std::span<const float> values_view() const { return values.empty() ? source : values; }
  const float* stored_data() const { return stored.empty() ? dequantized.data() : stored.data(); }
};

/// Whether options a and b quantize alike apart from the random stream
/// (seed, stream, first_index): as any non-stochastic rounding does.
bool quantize_alike(const num::scaled_options& a, const num::scaled_options& b);

/// The latest kept quantization of one operand slot (a layer's weight in one
/// GEMM role). Thread-safe: conv2d's workers find and keep at once.
class operand_keeper {
 public:
  /// The kept quantization if operand is_a / b of g, stored as g says, holds
  /// the kept values and `options` quantizes alike; null otherwise.
  [[nodiscard]] std::shared_ptr<const kept_quantization> find(const gemm_args& g, bool is_a,
                                                              const num::scaled_options& options) const;
  /// Keeps q, replacing the one kept before.
  void keep(std::shared_ptr<kept_quantization> q);
  /// The kept quantization, taken out of the keeper for its storage to be
  /// reused, where nothing else holds it (no GEMM part still reads it); null
  /// otherwise. The keeper then holds none until the next keep().
  [[nodiscard]] std::shared_ptr<kept_quantization> take_unshared();

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<kept_quantization> kept_;
};

/// The stored matrix of operand is_a / b of g: rows x cols with row stride ld.
struct stored_operand {
  const float* data;
  std::size_t rows, cols, ld;
};
stored_operand stored_operand_of(const gemm_args& g, bool is_a);

}  // namespace lab
