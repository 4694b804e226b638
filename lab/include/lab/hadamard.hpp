// The 16x16 random Hadamard transform of the NVFP4 training recipe (NVIDIA,
// "Pretraining Large Language Models with NVFP4", 2025): the wgrad GEMM's two
// inputs are both multiplied, along their reduction dimension, by the
// orthogonal matrix Q = D·H16/4 (D a diagonal of random signs, H16 the
// Sylvester Hadamard matrix, H16[i][j] = (-1)^popcount(i & j)). As Q·Qᵀ = I
// the product is unchanged in exact arithmetic, while outliers spread over
// 16 values before the 4-bit quantization.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace lab {

/// The transform's size.
inline constexpr std::size_t hadamard_size = 16;

/// The diagonal D: 16 values +1 or -1 drawn from num::random_stream(seed,
/// stream 0x48414441) word i, sign bit = lowest bit. Fixed for a run, as
/// TransformerEngine fixes its sign vector.
std::array<float, hadamard_size> hadamard_signs(std::uint64_t seed);

/// Replaces each run x of 16 consecutive values in every row of a row-major
/// rows x k matrix by x·Q (see the file comment), in fp32: signs applied
/// (exact), then the four butterfly stages h = 1, 2, 4, 8 of the fast
/// Walsh-Hadamard transform (a, b) -> (a + b, a - b), each sum rounded to
/// nearest even, then × 1/4. A last run shorter than 16 stays as it is (the
/// identity on it keeps the product exact).
void hadamard_transform_rows(std::span<float> values, std::size_t k, std::span<const float, hadamard_size> signs);
/// The same out of place: `out` (in.size() values; `in` itself, or not overlapping it)
/// becomes the transform of `in`, bit for bit what the in-place call makes
/// of a copy of `in` (a last run shorter than 16 is copied as it is).
void hadamard_transform_rows(std::span<const float> in, std::span<float> out, std::size_t k,
                             std::span<const float, hadamard_size> signs);

}  // namespace lab
