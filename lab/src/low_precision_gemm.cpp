#include "lab/low_precision_gemm.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <libnum/array.hpp>

#include "low_precision_gemm_kernels.hpp"
#include "precision_sum.hpp"

namespace lab {
namespace {

// About this many partial sums are rounded per libnum call: long enough to
// amortise the call, short enough to stay in L1.
constexpr std::size_t target_block_elements = 2048;

// op(B) as a contiguous k x n row-major matrix.
struct b_rows {
  std::vector<float> copy;
  const float* data = nullptr;
  std::size_t ld = 0;
};

b_rows rows_of_b(const gemm_args& g) {
  b_rows out;
  if (!g.trans_b) {
    out.data = g.b;
    out.ld = g.ldb;
    return out;
  }
  out.copy.resize(g.k * g.n);
  for (std::size_t j = 0; j < g.n; ++j)
    for (std::size_t p = 0; p < g.k; ++p) out.copy[p * g.n + j] = g.b[j * g.ldb + p];
  out.data = out.copy.data();
  out.ld = g.n;
  return out;
}

// The starting partial sums beta * C of rows [i0, i0 + rows), packed n per row.
void load_start(const gemm_args& g, std::size_t i0, std::size_t rows, std::vector<float>& out) {
  out.assign(rows * g.n, 0.0f);
  if (g.beta == 0.0f) return;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < g.n; ++j) out[r * g.n + j] = g.beta * g.c[(i0 + r) * g.ldc + j];
}

// Writes packed rows back into C.
void store_rows(const gemm_args& g, std::size_t i0, std::size_t rows, const std::vector<float>& in) {
  for (std::size_t r = 0; r < rows; ++r)
    std::copy(in.begin() + static_cast<std::ptrdiff_t>(r * g.n), in.begin() + static_cast<std::ptrdiff_t>((r + 1) * g.n),
              g.c + (i0 + r) * g.ldc);
}

float a_at(const gemm_args& g, std::size_t i, std::size_t p) {
  return g.trans_a ? g.a[p * g.lda + i] : g.a[i * g.lda + p];
}

// The portable engine for one block of rows [i0, i0 + rows).
class row_block {
 public:
  row_block(const gemm_args& g, const b_rows& b, const low_accumulation& acc, std::size_t i0, std::size_t rows)
      : g_(g), b_(b), acc_(acc), i0_(i0), rows_(rows), len_(rows * g.n), exact_(len_) {
    options_.target = acc.format;
    options_.spec = acc.spec;
    options_.seed = acc.seed;
    options_.stream = acc.stream;
  }

  void run() {
    std::vector<float> c;
    load_start(g_, i0_, rows_, c);
    if (acc_.block == 0) {
      for (std::size_t p = 0; p < g_.k; ++p) add_products(c, p);
    } else {
      std::vector<float> inner(len_);
      for (std::size_t p0 = 0, blk = 0; p0 < g_.k; p0 += acc_.block, ++blk) {
        std::fill(inner.begin(), inner.end(), 0.0f);
        for (std::size_t p = p0; p < std::min(g_.k, p0 + acc_.block); ++p) add_products(inner, p);
        for (std::size_t e = 0; e < len_; ++e) exact_[e] = detail::sum_to_odd(c[e], inner[e]);
        round_into(c, g_.k * g_.m * g_.n + blk * g_.m * g_.n);
      }
    }
    store_rows(g_, i0_, rows_, c);
  }

 private:
  // partial <- round(partial + a[i,p] * b[p,:]) for every row of the block.
  void add_products(std::vector<float>& partial, std::size_t p) {
    const float* brow = b_.data + p * b_.ld;
    for (std::size_t r = 0; r < rows_; ++r) {
      const double a = a_at(g_, i0_ + r, p);
      const float* c = partial.data() + r * g_.n;
      double* s = exact_.data() + r * g_.n;
      for (std::size_t j = 0; j < g_.n; ++j) s[j] = detail::sum_to_odd(c[j], a * static_cast<double>(brow[j]));
    }
    round_into(partial, p * g_.m * g_.n);
  }

  void round_into(std::vector<float>& out, std::uint64_t first_word) {
    options_.first_index = first_word + i0_ * g_.n;
    num::round_array(std::span<const double>(exact_), std::span<float>(out), options_);
  }

  const gemm_args& g_;
  const b_rows& b_;
  const low_accumulation& acc_;
  std::size_t i0_, rows_, len_;
  std::vector<double> exact_;
  num::array_options options_;
};

std::size_t rows_per_block(const gemm_args& g) {
  return std::clamp<std::size_t>(target_block_elements / std::max<std::size_t>(1, g.n), 1, std::max<std::size_t>(1, g.m));
}

}  // namespace

void gemm_low_accumulation_portable(const gemm_args& g, const low_accumulation& acc) {
  if (!low_accumulation_is_exact(acc.format, acc.spec))
    throw std::invalid_argument("gemm_low_accumulation: stochastic rounding with " +
                                std::to_string(acc.spec.random_bits) + " random bits into " +
                                num::format_name(acc.format) +
                                " reads more bits than a double holds (needs p + r + 1 <= 53)");
  if (g.m == 0 || g.n == 0) return;
  const b_rows b = rows_of_b(g);
  const std::size_t step = rows_per_block(g);
  for (std::size_t i0 = 0; i0 < g.m; i0 += step) row_block(g, b, acc, i0, std::min(step, g.m - i0)).run();
}

bool low_accumulation_fast_path(const low_accumulation& acc) {
  return acc.format == num::binary16 && acc.spec.mode == num::rounding::nearest_even &&
         acc.spec.overflow == num::overflow_mode::ieee && acc.spec.tiny == num::tininess::after_rounding &&
         detail::fp16_kernel_supported();
}

void gemm_low_accumulation(const gemm_args& g, const low_accumulation& acc) {
  if (!low_accumulation_fast_path(acc)) {
    gemm_low_accumulation_portable(g, acc);
    return;
  }
  if (g.m == 0 || g.n == 0) return;
  const b_rows b = rows_of_b(g);
  const std::size_t step = rows_per_block(g);
  std::vector<float> partial, inner;
  for (std::size_t i0 = 0; i0 < g.m; i0 += step) {
    const std::size_t rows = std::min(step, g.m - i0);
    load_start(g, i0, rows, partial);
    const detail::fp16_block blk{g.trans_a ? g.a + i0 : g.a + i0 * g.lda,
                                 g.trans_a ? std::size_t{1} : g.lda,
                                 g.trans_a ? g.lda : std::size_t{1},
                                 b.data, b.ld, rows, g.n};
    if (acc.block == 0) {
      detail::fp16_accumulate(blk, 0, g.k, partial.data());
    } else {
      inner.resize(rows * g.n);
      for (std::size_t p0 = 0; p0 < g.k; p0 += acc.block) {
        std::fill(inner.begin(), inner.end(), 0.0f);
        detail::fp16_accumulate(blk, p0, std::min(g.k, p0 + acc.block), inner.data());
        detail::fp16_add(partial.data(), inner.data(), rows * g.n);
      }
    }
    store_rows(g, i0, rows, partial);
  }
}

}  // namespace lab
