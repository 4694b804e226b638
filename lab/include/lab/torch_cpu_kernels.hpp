// Which elements of a bf16 tensor PyTorch 1.13's CPU elementwise kernels
// compute in their scalar loop rather than their vectorised body.
//
// TensorIterator's cpu_kernel_vec (aten/src/ATen/native/cpu/Loops.h) walks
// each contiguous range it is given in blocks of two vectors
// (2 * Vectorized<BFloat16>::size() elements) and hands the elements after
// the last whole block to a scalar loop. The two compute one op differently
// where the op multiplies by a scalar and adds: add(b, alpha=s)'s body is
// fmadd(b, s, a) in float, rounded once to bf16; its scalar loop is
// BFloat16's `a + s * b`, which rounds the product to bf16 before the sum.
// (addcmul and addcdiv convert to float in both paths and agree; mul, div,
// sqrt and add without alpha hold one rounding either way.) Which elements
// those are depends on the build's dispatched CPU capability and on torch's
// thread count, not on the values: at::parallel_for splits a tensor of more
// than its grain (32768 elements) into one chunk per thread, each with its
// own scalar tail. tests/fixtures/pytorch/explain_bf16_tail.py measures it.
//
// Hand-written: this is the layout of another program's loops, which no
// library describes; the capabilities and the grain are PyTorch 1.13's.
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace lab {

/// The CPU capability PyTorch dispatches its kernels to (ATEN_CPU_CAPABILITY,
/// torch.__config__.show()'s "CPU capability usage"). Capability "default"
/// (no SIMD) computes other ops differently too (unfused addcmul) and is not
/// described here.
enum class torch_cpu_capability {
  avx2,    ///< Vectorized<BFloat16> of 16 lanes: blocks of 32 (Debian's build picks it unless told otherwise)
  avx512,  ///< 32 lanes: blocks of 64
};

/// PyTorch 1.13's CPU kernels as a run of torch used them: the capability
/// and torch.get_num_threads(). Value type.
struct torch_cpu_kernels {
  torch_cpu_capability capability = torch_cpu_capability::avx2;
  std::size_t threads = 1;  ///< torch.get_num_threads() of the run being matched (at least 1)

  /// Elements in one block of the vectorised body: 2 * Vectorized<BFloat16>::size().
  [[nodiscard]] std::size_t block() const;
  /// The ranges [first, second) of a contiguous tensor of n elements that the
  /// scalar loop computes, in increasing order: one tail per parallel chunk
  /// (at::parallel_for of 1.13 with OpenMP: min(threads, ceil(n / 32768))
  /// chunks of ceil(n / chunks) elements, one chunk when n <= 32768 or
  /// threads == 1), each the elements after its last whole block.
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> scalar_ranges(std::size_t n) const;
};

/// out[i] <- a[i] + s * b[i] as PyTorch 1.13's a.add(b, alpha=s) computes it
/// on bf16 tensors with `kernels`, before its final rounding to bf16 (which
/// the caller does, to nearest even): fma(s, b[i], a[i]) in float in the
/// vectorised body; in the scalar loop's elements a[i] + bf16(s * b[i]) in
/// float, the product rounded to bf16 (nearest even) first. a, b and s hold
/// bf16 values (their product is exact in float). `out` may alias a or b;
/// all three have a's size.
void torch_bf16_add(const torch_cpu_kernels& kernels, std::span<const float> a, float s, std::span<const float> b,
                    std::span<float> out);

}  // namespace lab
