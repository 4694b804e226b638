#include "lab/kept_operand.hpp"

#include <bit>
#include <cstring>
#include <utility>

namespace lab {

bool quantize_alike(const num::scaled_options& a, const num::scaled_options& b) {
  // Every field of num::scaled_options but seed, stream and first_index; a
  // field added to it changes its size and stops the build here until it is
  // compared too.
  static_assert(sizeof(num::scaled_options) == 88, "num::scaled_options changed: compare its new fields here");
  return a.format == b.format && a.spec == b.spec && a.layout == b.layout && a.specials == b.specials &&
         a.int8_symmetric == b.int8_symmetric && a.margin == b.margin &&
         std::bit_cast<std::uint32_t>(a.given_scale) == std::bit_cast<std::uint32_t>(b.given_scale) &&
         std::bit_cast<std::uint32_t>(a.tensor_amax) == std::bit_cast<std::uint32_t>(b.tensor_amax) &&
         a.path == b.path;
}

stored_operand stored_operand_of(const gemm_args& g, bool is_a) {
  // op(A) = A is m x k, Aᵀ stored k x m; op(B) = B is stored k x n, Bᵀ stored n x k.
  const bool trans = is_a ? g.trans_a : g.trans_b;
  const std::size_t outer = is_a ? g.m : g.n;
  const std::size_t rows = is_a ? (trans ? g.k : outer) : (trans ? outer : g.k);
  const std::size_t cols = is_a ? (trans ? outer : g.k) : (trans ? g.k : outer);
  return {is_a ? g.a : g.b, rows, cols, is_a ? g.lda : g.ldb};
}

std::shared_ptr<const kept_quantization> operand_keeper::find(const gemm_args& g, bool is_a,
                                                              const num::scaled_options& options) const {
  std::shared_ptr<const kept_quantization> q;
  {
    const std::lock_guard lock(mutex_);
    q = kept_;
  }
  if (!q || options.spec.mode == num::rounding::stochastic) return nullptr;
  const stored_operand s = stored_operand_of(g, is_a);
  if (q->is_a != is_a || q->trans != (is_a ? g.trans_a : g.trans_b) || q->stored_rows != s.rows ||
      q->stored_cols != s.cols || !quantize_alike(q->options, options))
    return nullptr;
  // Bit for bit (memcmp): -0 is not +0 and a NaN is its own payload here.
  for (std::size_t r = 0; r < s.rows; ++r)
    if (std::memcmp(q->source.data() + r * s.cols, s.data + r * s.ld, s.cols * sizeof(float)) != 0) return nullptr;
  return q;
}

void operand_keeper::keep(std::shared_ptr<kept_quantization> q) {
  const std::lock_guard lock(mutex_);
  kept_ = std::move(q);
}

std::shared_ptr<kept_quantization> operand_keeper::take_unshared() {
  // Copies of kept_ are made only under the lock (find), so a count of 1
  // seen here cannot grow: no other thread holds or can obtain it.
  const std::lock_guard lock(mutex_);
  if (!kept_ || kept_.use_count() != 1) return nullptr;
  return std::exchange(kept_, nullptr);
}

}  // namespace lab
