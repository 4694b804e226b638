// The GPU's conversions and arithmetic, as plain C functions (gpu_kernels.cu).
#pragma once

#include <cstdint>

enum gpu_conversion {
  gpu_f32_to_f16_rn, gpu_f32_to_f16_rz, gpu_f32_to_f16_ru, gpu_f32_to_f16_rd,
  gpu_f32_to_bf16_rn, gpu_f32_to_bf16_rz, gpu_f32_to_bf16_ru, gpu_f32_to_bf16_rd,
  gpu_f32_to_e4m3_satfinite, gpu_f32_to_e4m3_nosat, gpu_f32_to_e5m2_satfinite, gpu_f32_to_e5m2_nosat,
  gpu_f32_to_tf32_rna,
};
enum gpu_binary { gpu_f16_add, gpu_f16_mul, gpu_f16_div, gpu_bf16_add, gpu_bf16_mul, gpu_f16_fma_one, gpu_bf16_fma_one };
enum gpu_unary { gpu_f16_sqrt, gpu_bf16_sqrt, gpu_f16_rint };

extern "C" {
/// Converts the floats with bit patterns first .. first+n-1 on the GPU.
void gpu_convert_block(gpu_conversion op, std::uint64_t first, std::uint64_t n, std::uint32_t* host_out);
/// Applies op to the operand pairs (k >> 16, k & 0xffff) for k = first .. first+n-1.
void gpu_binary_block(gpu_binary op, std::uint64_t first, std::uint64_t n, std::uint16_t* host_out);
/// Applies op to all 2^16 16-bit patterns.
void gpu_unary_all(gpu_unary op, std::uint16_t* host_out);
const char* gpu_name();
}
