// CUDA side of the GPU cross-check: the GPU's own conversions and arithmetic
// on every input of a block, written to plain arrays for the host to compare
// with libnum. Exposed through the C functions in gpu_kernels.hpp.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#if CUDART_VERSION >= 12080
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#define NUMLAB_HAVE_FP4_FP6 1
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "gpu_kernels.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(e));
    std::exit(3);
  }
}

__device__ std::uint16_t h_bits(__half h) { return __half_as_ushort(h); }
__device__ std::uint16_t b_bits(__nv_bfloat16 b) { return __bfloat16_as_ushort(b); }

__global__ void convert_from_float(gpu_conversion op, std::uint64_t first, std::uint64_t n, std::uint32_t* out) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const float x = __uint_as_float(static_cast<std::uint32_t>(first + i));
  std::uint32_t r = 0;
  switch (op) {
    case gpu_f32_to_f16_rn: r = h_bits(__float2half_rn(x)); break;
    case gpu_f32_to_f16_rz: r = h_bits(__float2half_rz(x)); break;
    case gpu_f32_to_f16_ru: r = h_bits(__float2half_ru(x)); break;
    case gpu_f32_to_f16_rd: r = h_bits(__float2half_rd(x)); break;
    case gpu_f32_to_bf16_rn: r = b_bits(__float2bfloat16_rn(x)); break;
    case gpu_f32_to_bf16_rz: r = b_bits(__float2bfloat16_rz(x)); break;
    case gpu_f32_to_bf16_ru: r = b_bits(__float2bfloat16_ru(x)); break;
    case gpu_f32_to_bf16_rd: r = b_bits(__float2bfloat16_rd(x)); break;
    case gpu_f32_to_e4m3_satfinite: r = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); break;
    case gpu_f32_to_e4m3_nosat: r = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3); break;
    case gpu_f32_to_e5m2_satfinite: r = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2); break;
    case gpu_f32_to_e5m2_nosat: r = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2); break;
    case gpu_f32_to_tf32_rna: {
      std::uint32_t t;
      asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x));
      r = t;
      break;
    }
  }
  out[i] = r;
}

__device__ std::uint16_t apply_binary(gpu_binary op, std::uint16_t a, std::uint16_t b) {
  const __half ha = __ushort_as_half(a), hb = __ushort_as_half(b);
  const __nv_bfloat16 ba = __ushort_as_bfloat16(a), bb = __ushort_as_bfloat16(b);
  switch (op) {
    case gpu_f16_add: return h_bits(__hadd_rn(ha, hb));
    case gpu_f16_sub: return h_bits(__hsub_rn(ha, hb));
    case gpu_f16_mul: return h_bits(__hmul_rn(ha, hb));
    case gpu_f16_div: return h_bits(__hdiv(ha, hb));
    case gpu_bf16_add: return b_bits(__hadd_rn(ba, bb));
    case gpu_bf16_sub: return b_bits(__hsub_rn(ba, bb));
    case gpu_bf16_mul: return b_bits(__hmul_rn(ba, bb));
    case gpu_bf16_div: return b_bits(__hdiv(ba, bb));
    case gpu_f16_fma_one: return h_bits(__hfma(ha, hb, __ushort_as_half(0x3c00)));
    case gpu_bf16_fma_one: return b_bits(__hfma(ba, bb, __ushort_as_bfloat16(0x3f80)));
    // c = minus the smallest subnormal: cancellation into the subnormal range.
    case gpu_f16_fma_minus_tiny: return h_bits(__hfma(ha, hb, __ushort_as_half(0x8001)));
    case gpu_bf16_fma_minus_tiny: return b_bits(__hfma(ba, bb, __ushort_as_bfloat16(0x8001)));
  }
  return 0;
}

__global__ void binary_op(gpu_binary op, std::uint64_t first, std::uint64_t n, std::uint16_t* out) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t k = first + i;
  out[i] = apply_binary(op, static_cast<std::uint16_t>(k >> 16), static_cast<std::uint16_t>(k));
}

__global__ void binary_op_on_pairs(gpu_binary op, const std::uint32_t* pairs, std::uint64_t n, std::uint16_t* out) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  out[i] = apply_binary(op, static_cast<std::uint16_t>(pairs[i] >> 16), static_cast<std::uint16_t>(pairs[i]));
}

__device__ __half_raw half_raw(std::uint16_t bits) {
  __half_raw h;
  h.x = bits;
  return h;
}
__device__ __nv_bfloat16_raw bf16_raw(std::uint16_t bits) {
  __nv_bfloat16_raw b;
  b.x = bits;
  return b;
}

#ifdef NUMLAB_HAVE_FP4_FP6
__global__ void element_from_float(gpu_element_conversion op, std::uint64_t first, std::uint64_t n, std::uint8_t* out) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const float x = __uint_as_float(static_cast<std::uint32_t>(first + i));
  std::uint8_t r = 0;
  switch (op) {
    case gpu_f32_to_e2m1: r = __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest); break;
    case gpu_f32_to_e2m3: r = __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest); break;
    case gpu_f32_to_e3m2: r = __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest); break;
  }
  out[i] = r;
}
#endif

__global__ void unary_op(gpu_unary op, std::uint16_t* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 65536) return;
  const auto a = static_cast<std::uint16_t>(i);
  std::uint16_t r = 0;
  switch (op) {
    case gpu_f16_sqrt: r = h_bits(hsqrt(__ushort_as_half(a))); break;
    case gpu_bf16_sqrt: r = b_bits(hsqrt(__ushort_as_bfloat16(a))); break;
    case gpu_f16_rint: r = h_bits(hrint(__ushort_as_half(a))); break;
    case gpu_f16_to_e4m3_satfinite: r = __nv_cvt_halfraw_to_fp8(half_raw(a), __NV_SATFINITE, __NV_E4M3); break;
    case gpu_f16_to_e4m3_nosat: r = __nv_cvt_halfraw_to_fp8(half_raw(a), __NV_NOSAT, __NV_E4M3); break;
    case gpu_f16_to_e5m2_satfinite: r = __nv_cvt_halfraw_to_fp8(half_raw(a), __NV_SATFINITE, __NV_E5M2); break;
    case gpu_f16_to_e5m2_nosat: r = __nv_cvt_halfraw_to_fp8(half_raw(a), __NV_NOSAT, __NV_E5M2); break;
    case gpu_bf16_to_e4m3_satfinite: r = __nv_cvt_bfloat16raw_to_fp8(bf16_raw(a), __NV_SATFINITE, __NV_E4M3); break;
    case gpu_bf16_to_e4m3_nosat: r = __nv_cvt_bfloat16raw_to_fp8(bf16_raw(a), __NV_NOSAT, __NV_E4M3); break;
    case gpu_bf16_to_e5m2_satfinite: r = __nv_cvt_bfloat16raw_to_fp8(bf16_raw(a), __NV_SATFINITE, __NV_E5M2); break;
    case gpu_bf16_to_e5m2_nosat: r = __nv_cvt_bfloat16raw_to_fp8(bf16_raw(a), __NV_NOSAT, __NV_E5M2); break;
    case gpu_e4m3_to_f16:
      r = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(a & 0xff), __NV_E4M3).x;
      break;
    case gpu_e5m2_to_f16:
      r = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(a & 0xff), __NV_E5M2).x;
      break;
  }
  out[i] = r;
}

template <class T>
T* device_buffer(std::uint64_t n) {
  T* p = nullptr;
  check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
  return p;
}

}  // namespace

extern "C" void gpu_convert_block(gpu_conversion op, std::uint64_t first, std::uint64_t n, std::uint32_t* host_out) {
  auto* d = device_buffer<std::uint32_t>(n);
  convert_from_float<<<(n + 255) / 256, 256>>>(op, first, n, d);
  check(cudaGetLastError(), "convert kernel");
  check(cudaMemcpy(host_out, d, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost), "copy back");
  cudaFree(d);
}

extern "C" void gpu_binary_block(gpu_binary op, std::uint64_t first, std::uint64_t n, std::uint16_t* host_out) {
  auto* d = device_buffer<std::uint16_t>(n);
  binary_op<<<(n + 255) / 256, 256>>>(op, first, n, d);
  check(cudaGetLastError(), "binary kernel");
  check(cudaMemcpy(host_out, d, n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost), "copy back");
  cudaFree(d);
}

extern "C" void gpu_binary_pairs(gpu_binary op, const std::uint32_t* host_pairs, std::uint64_t n,
                                 std::uint16_t* host_out) {
  auto* pairs = device_buffer<std::uint32_t>(n);
  auto* d = device_buffer<std::uint16_t>(n);
  check(cudaMemcpy(pairs, host_pairs, n * sizeof(std::uint32_t), cudaMemcpyHostToDevice), "copy pairs");
  binary_op_on_pairs<<<(n + 255) / 256, 256>>>(op, pairs, n, d);
  check(cudaGetLastError(), "binary pairs kernel");
  check(cudaMemcpy(host_out, d, n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost), "copy back");
  cudaFree(d);
  cudaFree(pairs);
}

extern "C" bool gpu_element_block(gpu_element_conversion op, std::uint64_t first, std::uint64_t n,
                                  std::uint8_t* host_out) {
#ifdef NUMLAB_HAVE_FP4_FP6
  auto* d = device_buffer<std::uint8_t>(n);
  element_from_float<<<(n + 255) / 256, 256>>>(op, first, n, d);
  check(cudaGetLastError(), "element kernel");
  check(cudaMemcpy(host_out, d, n, cudaMemcpyDeviceToHost), "copy back");
  cudaFree(d);
  return true;
#else
  (void)op, (void)first, (void)n, (void)host_out;
  return false;
#endif
}

extern "C" void gpu_unary_all(gpu_unary op, std::uint16_t* host_out) {
  auto* d = device_buffer<std::uint16_t>(65536);
  unary_op<<<256, 256>>>(op, d);
  check(cudaGetLastError(), "unary kernel");
  check(cudaMemcpy(host_out, d, 65536 * sizeof(std::uint16_t), cudaMemcpyDeviceToHost), "copy back");
  cudaFree(d);
}

extern "C" const char* gpu_name() {
  static cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  return prop.name;
}
