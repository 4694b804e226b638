// The GPU's conversions and arithmetic, as plain C functions (gpu_kernels.cu).
#pragma once

#include <cstdint>

enum gpu_conversion {
  gpu_f32_to_f16_rn, gpu_f32_to_f16_rz, gpu_f32_to_f16_ru, gpu_f32_to_f16_rd,
  gpu_f32_to_bf16_rn, gpu_f32_to_bf16_rz, gpu_f32_to_bf16_ru, gpu_f32_to_bf16_rd,
  gpu_f32_to_e4m3_satfinite, gpu_f32_to_e4m3_nosat, gpu_f32_to_e5m2_satfinite, gpu_f32_to_e5m2_nosat,
  gpu_f32_to_tf32_rna,
};
/// OCP MX element conversions (cuda_fp4.h / cuda_fp6.h, CUDA 12.8+): emulated
/// in software on Hopper, which has no FP4/FP6 instructions, but NVIDIA's own
/// reference for the element rounding (nearest-even, saturating to ±max).
enum gpu_element_conversion { gpu_f32_to_e2m1, gpu_f32_to_e2m3, gpu_f32_to_e3m2 };
enum gpu_binary {
  gpu_f16_add, gpu_f16_sub, gpu_f16_mul, gpu_f16_div, gpu_bf16_add, gpu_bf16_sub, gpu_bf16_mul, gpu_bf16_div,
  gpu_f16_fma_one, gpu_bf16_fma_one, gpu_f16_fma_minus_tiny, gpu_bf16_fma_minus_tiny,
};
/// Unary ops over all 2^16 patterns; the FP8 ones take fp16 or bf16 inputs.
enum gpu_unary {
  gpu_f16_sqrt, gpu_bf16_sqrt, gpu_f16_rint,
  gpu_f16_to_e4m3_satfinite, gpu_f16_to_e4m3_nosat, gpu_f16_to_e5m2_satfinite, gpu_f16_to_e5m2_nosat,
  gpu_bf16_to_e4m3_satfinite, gpu_bf16_to_e4m3_nosat, gpu_bf16_to_e5m2_satfinite, gpu_bf16_to_e5m2_nosat,
  gpu_e4m3_to_f16, gpu_e5m2_to_f16,  // inputs: the low byte
};

extern "C" {
/// Converts the floats with bit patterns first .. first+n-1 on the GPU.
void gpu_convert_block(gpu_conversion op, std::uint64_t first, std::uint64_t n, std::uint32_t* host_out);
/// Applies op to the operand pairs (k >> 16, k & 0xffff) for k = first .. first+n-1.
void gpu_binary_block(gpu_binary op, std::uint64_t first, std::uint64_t n, std::uint16_t* host_out);
/// Applies op to the operand pairs (pairs[i] >> 16, pairs[i] & 0xffff).
void gpu_binary_pairs(gpu_binary op, const std::uint32_t* host_pairs, std::uint64_t n, std::uint16_t* host_out);
/// Converts the floats with bit patterns first .. first+n-1 into MX element
/// codes (low bits of each byte); returns false where this CUDA lacks them.
bool gpu_element_block(gpu_element_conversion op, std::uint64_t first, std::uint64_t n, std::uint8_t* host_out);
/// Applies op to all 2^16 16-bit patterns.
void gpu_unary_all(gpu_unary op, std::uint16_t* host_out);
const char* gpu_name();
}
