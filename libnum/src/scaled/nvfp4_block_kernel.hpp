// Internal: the AVX-512 path of NVFP4 quantization (1x16 blocks along a row,
// E2M1 elements under an E4M3 block scale times the fp32 tensor scale, one
// element per byte or two, every rounding mode), a row's partial last block
// included. Blocks holding NaN or inf are left to the scalar path, which
// gives the same results bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "left_blocks.hpp"
#include "libnum/rounding.hpp"
#include "libnum/scaled_array.hpp"

namespace num::scaled_detail {

/// Consecutive 1x16 blocks along one row: `blocks` whole ones, then (where
/// `tail` is nonzero) the row's partial last block of `tail` elements.
struct nvfp4_run {
  const float* in = nullptr;
  std::uint8_t* codes = nullptr;    ///< the byte of in[0]'s code (an even element when packed)
  std::uint32_t* scales = nullptr;  ///< one unsigned-E4M3 code per block, the partial one included
  std::size_t blocks = 0;
  std::size_t tail = 0;  ///< 0..15 (even when packed)
  std::uint64_t first_word = 0;  ///< the random word of in[0]
  /// Where set, the blocks' dequantized values (element × S, then × the
  /// tensor scale, in fp32, as dequantize() gives them) go here, for in[0]
  /// on, instead of their codes.
  float* values = nullptr;
};

/// The call's rounding, tensor decode scale and random stream.
struct nvfp4_kernel_setup {
  round_spec spec{};
  float tensor_scale = 1.0f;
  std::uint64_t seed = 0, stream = 0;
  bool packed_fp4 = false;  ///< codes two per byte (element_layout::packed)
};

/// Whether the kernel can run now: false where the MXCSR flushes subnormals
/// (FTZ or DAZ), since its block thresholds may be fp32 subnormals.
bool nvfp4_kernel_usable();

/// Quantizes the run's blocks with the tensor's decode scale, adding their
/// counts and flags to `result`. Each block it leaves to the scalar path is
/// appended to `left` (its index in the run, `blocks` for the partial one)
/// with nothing of it written.
void nvfp4_blocks_avx512(const nvfp4_kernel_setup& setup, const nvfp4_run& run, scaled_result& result,
                         left_blocks& left);

/// The rows of one 2-D block (NVFP4 16x16; at a tensor's right edge
/// narrower), its scale already found (finite values, a nonzero E4M3 scale).
struct nvfp4_tile {
  const float* in = nullptr;      ///< the block's first element
  std::uint8_t* codes = nullptr;  ///< the byte of in[0]'s code (an even element when packed)
  std::size_t stride = 0;         ///< elements from one row to the next (even when packed)
  std::size_t rows = 0;
  std::size_t cols = 16;  ///< 1..16 (even when packed)
  double d = 0;                  ///< the decode scale S·s (exact in double)
  std::uint64_t first_word = 0;  ///< the random word of in[0]
};

/// Rounds a 2-D block's elements as the 1x16 kernel rounds a block's,
/// adding elements, counts and flags (not the block itself) to `result`.
void nvfp4_tile_avx512(const nvfp4_kernel_setup& setup, const nvfp4_tile& tile, scaled_result& result);

/// The AVX2 kernel (nvfp4_avx2.cpp), as nvfp4_blocks_avx512; it leaves more
/// blocks to the scalar path (outside stochastic rounding, those with a lane
/// near a rounding boundary, which the AVX-512 kernel rounds on an exact
/// path of its own).
void nvfp4_blocks_avx2(const nvfp4_kernel_setup& setup, const nvfp4_run& run, scaled_result& result,
                       left_blocks& left);

/// nvfp4_tile_avx512 on the AVX2 kernel: false, with nothing written or
/// counted, where the block needs the scalar path (a lane near a rounding
/// boundary, as nvfp4_blocks_avx2 leaves a block; never under stochastic
/// rounding).
bool nvfp4_tile_avx2(const nvfp4_kernel_setup& setup, const nvfp4_tile& tile, scaled_result& result);

/// Whether the AVX2 kernel can run now: not where the MXCSR rounds other
/// than to nearest or flushes subnormals (FTZ or DAZ), since its arithmetic
/// takes the MXCSR's rounding.
bool nvfp4_avx2_usable();

/// What a block's scale is computed from: the largest finite |x| of its
/// values (0 when none), and whether NaN or inf is among them.
struct amax_scan {
  float amax = 0;
  bool special = false;
};
/// amax_scan of in[0..n), as the scalar loop gives it.
amax_scan scan_amax_avx512(const float* in, std::size_t n);
/// scan_amax_avx512 on AVX2 (amax_avx2.cpp).
amax_scan scan_amax_avx2(const float* in, std::size_t n);

}  // namespace num::scaled_detail
