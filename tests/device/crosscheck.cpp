// GPU cross-check: libnum's emulation against a real NVIDIA GPU's fp16, bf16,
// FP8 and TF32 conversions and arithmetic, over every input of each domain
// (2^32 floats, 2^32 operand pairs, 2^16 unary inputs). libnum runs under
// the cuda_canonical NaN convention, so NaNs compare bit for bit too (CUDA
// returns its canonical NaN where libnum's default keeps payloads).
//
// Not part of the CI suite (CI has no GPU): built and run by run_crosscheck.sh
// on a machine with CUDA. Prints one line per check and exits 1 on any mismatch.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <libnum/libnum.hpp>

#include "gpu_kernels.hpp"

namespace {

constexpr std::uint64_t block_size = std::uint64_t{1} << 26;

struct outcome {
  std::uint64_t checked = 0;
  std::uint64_t mismatches = 0;
  std::vector<std::string> examples;
};

// Compares expected(k) with got[k - first] over a block, on all cores.
template <class Got>
void compare_block(std::uint64_t first, std::uint64_t n, const Got* got,
                   const std::function<bool(std::uint64_t, std::uint32_t, std::string&)>& agrees, outcome& total) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<outcome> parts(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      outcome& o = parts[t];
      std::string why;
      for (std::uint64_t i = t; i < n; i += threads) {
        ++o.checked;
        if (!agrees(first + i, got[i], why)) {
          ++o.mismatches;
          if (o.examples.size() < 3) o.examples.push_back(why);
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& o : parts) {
    total.checked += o.checked;
    total.mismatches += o.mismatches;
    for (auto& e : o.examples) {
      if (total.examples.size() < 6) total.examples.push_back(e);
    }
  }
}


std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

void report(const char* name, const outcome& o, int& failures) {
  std::printf("%-44s %12llu checked  %10llu mismatches\n", name, static_cast<unsigned long long>(o.checked),
              static_cast<unsigned long long>(o.mismatches));
  for (const auto& e : o.examples) std::printf("    %s\n", e.c_str());
  std::fflush(stdout);
  if (o.mismatches != 0) ++failures;
}

num::round_spec spec(num::rounding m, num::overflow_mode ovf = num::overflow_mode::ieee) {
  num::round_spec s;
  s.mode = m;
  s.overflow = ovf;
  s.nans = num::nan_convention::cuda_canonical;
  return s;
}

void check_conversion(const char* name, gpu_conversion op, const num::format& f, num::round_spec s,
                      std::uint64_t stride, int& failures) {
  outcome total;
  std::vector<std::uint32_t> got(block_size);
  const bool tf32_as_float = f == num::tf32;
  for (std::uint64_t first = 0; first < (std::uint64_t{1} << 32); first += block_size * stride) {
    gpu_convert_block(op, first, block_size, got.data());
    compare_block<std::uint32_t>(first, block_size, got.data(),
        [&](std::uint64_t k, std::uint32_t g, std::string& why) {
          const float x = std::bit_cast<float>(static_cast<std::uint32_t>(k));
          const num::rounded r = num::from_float(f, x, s);
          std::uint32_t expected = r.bits;
          if (tf32_as_float) {  // the GPU delivers TF32 as an fp32 pattern with 13 zero low bits
            // cvt.rna.tf32.f32 rounds NaN bit patterns like numbers: a NaN whose
            // payload lies in the 13 dropped bits comes out as an infinity. libnum
            // keeps NaNs NaN (IEEE); that difference is documented, not a mismatch.
            const float gf = std::bit_cast<float>(g);
            if (num::is_nan(f, expected)) return std::isnan(gf) || std::isinf(gf);
            expected = std::bit_cast<std::uint32_t>(num::to_float(f, r.bits));
            if (expected == g) return true;
          } else if (expected == g) {
            return true;
          }
          why = "x=" + hex(k) + " libnum " + hex(expected) + " gpu " + hex(g);
          return false;
        }, total);
  }
  report(name, total, failures);
}

void check_binary(const char* name, gpu_binary op,
                  const std::function<std::uint32_t(std::uint32_t, std::uint32_t)>& emulate, std::uint64_t stride,
                  int& failures) {
  outcome total;
  std::vector<std::uint16_t> got(block_size);
  for (std::uint64_t first = 0; first < (std::uint64_t{1} << 32); first += block_size * stride) {
    gpu_binary_block(op, first, block_size, got.data());
    compare_block<std::uint16_t>(first, block_size, got.data(),
        [&](std::uint64_t k, std::uint32_t g, std::string& why) {
          const auto a = static_cast<std::uint32_t>(k >> 16), b = static_cast<std::uint32_t>(k & 0xffff);
          const std::uint32_t expected = emulate(a, b);
          if (expected == g) return true;
          why = "a=" + hex(a) + " b=" + hex(b) + " libnum " + hex(expected) + " gpu " + hex(g);
          return false;
        }, total);
  }
  report(name, total, failures);
}

void check_unary(const char* name, gpu_unary op,
                 const std::function<std::uint32_t(std::uint32_t)>& emulate, int& failures) {
  outcome total;
  std::vector<std::uint16_t> got(65536);
  gpu_unary_all(op, got.data());
  compare_block<std::uint16_t>(0, 65536, got.data(),
      [&](std::uint64_t k, std::uint32_t g, std::string& why) {
        const std::uint32_t expected = emulate(static_cast<std::uint32_t>(k));
        if (expected == g) return true;
        why = "a=" + hex(k) + " libnum " + hex(expected) + " gpu " + hex(g);
        return false;
      }, total);
  report(name, total, failures);
}

}  // namespace

int main(int argc, char** argv) {
  // Options: --stride N checks every N-th block of 2^26 inputs (default 1: all);
  // --conversions / --arithmetic restrict the run to one half.
  std::uint64_t stride = 1;
  bool conversions = true, arithmetic = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--stride" && i + 1 < argc) stride = std::stoull(argv[++i]);
    else if (a == "--conversions") arithmetic = false;
    else if (a == "--arithmetic") conversions = false;
    else {
      std::fprintf(stderr, "gpu_crosscheck: unknown option '%s'\n", a.c_str());
      return 2;
    }
  }
  std::printf("GPU: %s, CPU threads: %u\n", gpu_name(), std::thread::hardware_concurrency());
  using num::rounding;
  int failures = 0;
  const auto ne = spec(rounding::nearest_even);
  if (conversions) {
  check_conversion("f32->f16 RN  (__float2half_rn)", gpu_f32_to_f16_rn, num::binary16, ne, stride, failures);
  check_conversion("f32->f16 RZ  (__float2half_rz)", gpu_f32_to_f16_rz, num::binary16, spec(rounding::toward_zero), stride, failures);
  check_conversion("f32->f16 RU  (__float2half_ru)", gpu_f32_to_f16_ru, num::binary16, spec(rounding::toward_positive), stride, failures);
  check_conversion("f32->f16 RD  (__float2half_rd)", gpu_f32_to_f16_rd, num::binary16, spec(rounding::toward_negative), stride, failures);
  check_conversion("f32->bf16 RN (__float2bfloat16_rn)", gpu_f32_to_bf16_rn, num::bfloat16_format, ne, stride, failures);
  check_conversion("f32->bf16 RZ (__float2bfloat16_rz)", gpu_f32_to_bf16_rz, num::bfloat16_format, spec(rounding::toward_zero), stride, failures);
  check_conversion("f32->bf16 RU (__float2bfloat16_ru)", gpu_f32_to_bf16_ru, num::bfloat16_format, spec(rounding::toward_positive), stride, failures);
  check_conversion("f32->bf16 RD (__float2bfloat16_rd)", gpu_f32_to_bf16_rd, num::bfloat16_format, spec(rounding::toward_negative), stride, failures);
  check_conversion("f32->e4m3 RN satfinite", gpu_f32_to_e4m3_satfinite, num::fp8_e4m3,
                   spec(rounding::nearest_even, num::overflow_mode::saturate), stride, failures);
  check_conversion("f32->e4m3 RN nosat", gpu_f32_to_e4m3_nosat, num::fp8_e4m3, ne, stride, failures);
  check_conversion("f32->e5m2 RN satfinite", gpu_f32_to_e5m2_satfinite, num::fp8_e5m2,
                   spec(rounding::nearest_even, num::overflow_mode::saturate), stride, failures);
  check_conversion("f32->e5m2 RN nosat", gpu_f32_to_e5m2_nosat, num::fp8_e5m2, ne, stride, failures);
  check_conversion("f32->tf32 RNA (cvt.rna.tf32.f32)", gpu_f32_to_tf32_rna, num::tf32, spec(rounding::nearest_away), stride, failures);
  }

  const num::format h = num::binary16, b = num::bfloat16_format;
  if (arithmetic) {
  check_unary("f16 sqrt (hsqrt)", gpu_f16_sqrt, [&](std::uint32_t a) { return num::sqrt(h, a, ne).bits; }, failures);
  check_unary("bf16 sqrt (hsqrt)", gpu_bf16_sqrt, [&](std::uint32_t a) { return num::sqrt(b, a, ne).bits; }, failures);
  check_unary("f16 round-to-integral (hrint)", gpu_f16_rint,
              [&](std::uint32_t a) { return num::round_to_integral(h, a, ne).bits; }, failures);
    check_binary("f16 add (__hadd_rn)", gpu_f16_add, [&](std::uint32_t x, std::uint32_t y) { return num::add(h, x, y, ne).bits; }, stride, failures);
    check_binary("f16 mul (__hmul_rn)", gpu_f16_mul, [&](std::uint32_t x, std::uint32_t y) { return num::mul(h, x, y, ne).bits; }, stride, failures);
    check_binary("f16 div (__hdiv)", gpu_f16_div, [&](std::uint32_t x, std::uint32_t y) { return num::div(h, x, y, ne).bits; }, stride, failures);
    check_binary("f16 fma a*b+1 (__hfma)", gpu_f16_fma_one,
                 [&](std::uint32_t x, std::uint32_t y) { return num::fma(h, x, y, 0x3c00, ne).bits; }, stride, failures);
    check_binary("bf16 add (__hadd_rn)", gpu_bf16_add, [&](std::uint32_t x, std::uint32_t y) { return num::add(b, x, y, ne).bits; }, stride, failures);
    check_binary("bf16 mul (__hmul_rn)", gpu_bf16_mul, [&](std::uint32_t x, std::uint32_t y) { return num::mul(b, x, y, ne).bits; }, stride, failures);
    check_binary("bf16 fma a*b+1 (__hfma)", gpu_bf16_fma_one,
                 [&](std::uint32_t x, std::uint32_t y) { return num::fma(b, x, y, 0x3f80, ne).bits; }, stride, failures);
  }
  std::printf("%s\n", failures == 0 ? "all checks agree" : "SOME CHECKS DISAGREE");
  return failures == 0 ? 0 : 1;
}
