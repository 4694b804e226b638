// GPU cross-check: libnum's emulation against a real NVIDIA GPU's fp16, bf16,
// FP8 and TF32 conversions and arithmetic (and CUDA's FP4/FP6 element conversions), over every input of each domain
// (2^32 floats, 2^32 operand pairs, 2^16 unary inputs). NaNs compare by class
// (CUDA returns its canonical NaN, libnum keeps payloads by default).
//
// With --nans cuda, libnum runs under nan_convention::cuda_canonical and every
// result, NaN included, must match bit for bit. That run looks only where NaNs
// arise: the float blocks holding every NaN and infinity, every operand pair
// with a NaN, zero or infinity on either side (which holds every invalid
// operation: inf - inf, 0 * inf, 0 / 0, inf / inf), and all 2^16 unary inputs.
//
// Not part of the CI suite (CI has no GPU): built and run by run_crosscheck.sh
// on a machine with CUDA. Prints one line per check and exits 1 on any mismatch.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <libnum/libnum.hpp>
#include <libnum/scaled_array.hpp>

#include "gpu_kernels.hpp"

namespace {

constexpr std::uint64_t block_size = std::uint64_t{1} << 26;

// --only A,B,...: run just the checks whose name contains one of the parts
// (set once in main; empty runs everything).
std::string only_checks;
bool selected(const char* name) {
  if (only_checks.empty()) return true;
  const std::string n = name;
  for (std::size_t begin = 0; begin <= only_checks.size();) {
    const std::size_t end = std::min(only_checks.find(',', begin), only_checks.size());
    if (end > begin && n.find(only_checks.substr(begin, end - begin)) != std::string::npos) return true;
    begin = end + 1;
  }
  return false;
}

// --nans NAME (set once in main): libnum's NaN convention, and whether NaNs
// must match bit for bit rather than by class.
num::nan_convention nan_rule = num::nan_convention::first_operand;
bool nan_bits_compared = false;

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

bool same(const num::format& f, std::uint32_t expected, std::uint32_t got) {
  if (nan_bits_compared) return expected == got;
  if (num::is_nan(f, expected) || num::is_nan(f, got)) return num::is_nan(f, expected) && num::is_nan(f, got);
  return expected == got;
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
  s.nans = nan_rule;
  return s;
}

void check_conversion(const char* name, gpu_conversion op, const num::format& f, num::round_spec s,
                      std::uint64_t stride, int& failures) {
  if (!selected(name)) return;
  outcome total;
  std::vector<std::uint32_t> got(block_size);
  const bool tf32_as_float = f == num::tf32;
  if (tf32_as_float && nan_bits_compared) {
    // cvt.rna.tf32.f32 rounds a NaN's pattern like a number's (see below): no NaN convention to compare.
    std::printf("%-44s skipped under --nans: the GPU rounds NaN patterns as numbers\n", name);
    return;
  }
  // Under --nans only the two blocks of 2^26 floats that hold every NaN and infinity.
  const std::uint64_t all_floats = std::uint64_t{1} << 32;
  const std::uint64_t nan_blocks[] = {0x7c000000u, 0xfc000000u};
  std::vector<std::uint64_t> firsts;
  if (nan_bits_compared) firsts.assign(std::begin(nan_blocks), std::end(nan_blocks));
  else for (std::uint64_t first = 0; first < all_floats; first += block_size * stride) firsts.push_back(first);
  for (const std::uint64_t first : firsts) {
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
          } else if (same(f, expected, g)) {
            return true;
          }
          why = "x=" + hex(k) + " libnum " + hex(expected) + " gpu " + hex(g);
          return false;
        }, total);
  }
  report(name, total, failures);
}

// The operand pairs --nans looks at: each 16-bit pattern with each NaN, zero
// and infinity of f, on either side (a pair of two specials once).
std::vector<std::uint32_t> pairs_with_specials(const num::format& f) {
  const auto is_special = [&](std::uint32_t x) {
    const num::value_class c = num::classify(f, x);
    return c != num::value_class::normal && c != num::value_class::subnormal;
  };
  std::vector<std::uint32_t> specials;
  for (std::uint32_t x = 0; x < 65536; ++x) {
    if (is_special(x)) specials.push_back(x);
  }
  std::vector<std::uint32_t> pairs;
  pairs.reserve(specials.size() * 65536 * 2);
  for (const std::uint32_t s : specials) {
    for (std::uint32_t x = 0; x < 65536; ++x) {
      pairs.push_back(x << 16 | s);
      if (!is_special(x)) pairs.push_back(s << 16 | x);
    }
  }
  return pairs;
}

void check_binary(const char* name, gpu_binary op, const num::format& f,
                  const std::function<std::uint32_t(std::uint32_t, std::uint32_t)>& emulate, std::uint64_t stride,
                  int& failures) {
  if (!selected(name)) return;
  outcome total;
  std::vector<std::uint16_t> got(block_size);
  const auto agrees = [&](std::uint32_t a, std::uint32_t b, std::uint32_t g, std::string& why) {
    const std::uint32_t expected = emulate(a, b);
    if (same(f, expected, g)) return true;
    why = "a=" + hex(a) + " b=" + hex(b) + " libnum " + hex(expected) + " gpu " + hex(g);
    return false;
  };
  if (nan_bits_compared) {
    const std::vector<std::uint32_t> pairs = pairs_with_specials(f);
    for (std::uint64_t first = 0; first < pairs.size(); first += block_size) {
      const std::uint64_t n = std::min<std::uint64_t>(block_size, pairs.size() - first);
      gpu_binary_pairs(op, pairs.data() + first, n, got.data());
      compare_block<std::uint16_t>(first, n, got.data(),
          [&](std::uint64_t k, std::uint32_t g, std::string& why) {
            return agrees(pairs[k] >> 16, pairs[k] & 0xffff, g, why);
          }, total);
    }
  } else {
    for (std::uint64_t first = 0; first < (std::uint64_t{1} << 32); first += block_size * stride) {
      gpu_binary_block(op, first, block_size, got.data());
      compare_block<std::uint16_t>(first, block_size, got.data(),
          [&](std::uint64_t k, std::uint32_t g, std::string& why) {
            return agrees(static_cast<std::uint32_t>(k >> 16), static_cast<std::uint32_t>(k & 0xffff), g, why);
          }, total);
    }
  }
  report(name, total, failures);
}

void check_unary(const char* name, gpu_unary op, const num::format& f,
                 const std::function<std::uint32_t(std::uint32_t)>& emulate, int& failures) {
  if (!selected(name)) return;
  outcome total;
  std::vector<std::uint16_t> got(65536);
  gpu_unary_all(op, got.data());
  compare_block<std::uint16_t>(0, 65536, got.data(),
      [&](std::uint64_t k, std::uint32_t g, std::string& why) {
        const std::uint32_t expected = emulate(static_cast<std::uint32_t>(k));
        if (same(f, expected, g)) return true;
        why = "a=" + hex(k) + " libnum " + hex(expected) + " gpu " + hex(g);
        return false;
      }, total);
  report(name, total, failures);
}

// MX element conversions: libnum's num::quantize with one given scale of 1
// (so each element is rounded alone, nearest-even, saturating) against CUDA's
// __nv_cvt_float_to_fp4/fp6. NaN and ±inf inputs are left out of the
// comparison: a block holding them gets a NaN scale under the MX rule
// (special_block_policy::nan_scale), while the CUDA element conversion, which
// has no NaN to give, returns a number; what it returns is printed instead.
void check_element(const char* name, gpu_element_conversion op, num::element_type t, std::uint64_t stride,
                   int& failures) {
  if (!selected(name)) return;
  if (nan_bits_compared) {
    std::printf("%-44s skipped under --nans: E2M1/E2M3/E3M2 have no NaN\n", name);
    return;
  }
  outcome total;
  std::vector<std::uint8_t> got(block_size);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (std::uint64_t first = 0; first < (std::uint64_t{1} << 32); first += block_size * stride) {
    if (!gpu_element_block(op, first, block_size, got.data())) {
      std::printf("%-44s skipped: this CUDA has no cuda_fp4.h/cuda_fp6.h (12.8+)\n", name);
      return;
    }
    std::vector<outcome> parts(threads);
    std::vector<std::thread> pool;
    for (unsigned th = 0; th < threads; ++th) {
      pool.emplace_back([&, th] {
        const std::uint64_t lo = block_size * th / threads, hi = block_size * (th + 1) / threads;
        std::vector<float> in;
        std::vector<std::uint32_t> index;
        for (std::uint64_t i = lo; i < hi; ++i) {
          const float x = std::bit_cast<float>(static_cast<std::uint32_t>(first + i));
          if (std::isfinite(x)) {
            in.push_back(x);
            index.push_back(static_cast<std::uint32_t>(i));
          }
        }
        if (in.empty()) return;
        num::scaled_options o;
        o.format = {t, num::scale_rule::fp32_given, num::whole_tensor_block};
        o.given_scale = 1.0f;
        std::vector<std::uint8_t> codes(in.size());
        std::uint32_t scale = 0;
        num::quantize(in, {1, in.size()}, codes, {&scale, 1}, o);
        outcome& part = parts[th];
        const std::uint32_t mask = (1u << num::element_bits(t)) - 1;
        for (std::size_t k = 0; k < in.size(); ++k) {
          ++part.checked;
          const std::uint32_t g = got[index[k]] & mask;
          if (codes[k] != g) {
            ++part.mismatches;
            if (part.examples.size() < 3) {
              part.examples.push_back("x=" + hex(first + index[k]) + " libnum " + hex(codes[k]) + " gpu " + hex(g));
            }
          }
        }
      });
    }
    for (auto& p : pool) p.join();
    for (auto& part : parts) {
      total.checked += part.checked;
      total.mismatches += part.mismatches;
      for (auto& e : part.examples) {
        if (total.examples.size() < 6) total.examples.push_back(e);
      }
    }
  }
  report(name, total, failures);
  // What the GPU makes of the inputs left out (one block around each).
  std::vector<std::uint8_t> special(4);
  const std::uint32_t probes[4] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u};
  std::string line = "    not compared: ";
  for (int k = 0; k < 4; ++k) {
    gpu_element_block(op, probes[k], 1, &special[k]);
    line += hex(probes[k]) + "->" + hex(special[k]) + (k < 3 ? ", " : "");
  }
  std::printf("%s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // Options: --stride N checks every N-th block of 2^26 inputs (default 1: all);
  // --conversions / --arithmetic restrict the run to one half; --only A,B to
  // the checks whose name contains A or B; --nans NAME compares NaNs bit for
  // bit with libnum under that convention (cuda must agree), on the inputs
  // that make NaNs.
  std::uint64_t stride = 1;
  bool conversions = true, arithmetic = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--stride" && i + 1 < argc) stride = std::stoull(argv[++i]);
    else if (a == "--only" && i + 1 < argc) only_checks = argv[++i];
    else if (a == "--nans" && i + 1 < argc) {
      // Any convention libnum knows; only cuda should agree (another shows the check can fail).
      try {
        nan_rule = num::parse_nan_convention(argv[++i]);
      } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "gpu_crosscheck: --nans: %s\n", e.what());
        return 2;
      }
      nan_bits_compared = true;
    }
    else if (a == "--conversions") arithmetic = false;
    else if (a == "--arithmetic") conversions = false;
    else {
      std::fprintf(stderr, "gpu_crosscheck: unknown option '%s'\n", a.c_str());
      return 2;
    }
  }
  std::printf("GPU: %s, CPU threads: %u%s\n", gpu_name(), std::thread::hardware_concurrency(),
              nan_bits_compared ? (", NaNs compared bit for bit, libnum under nan convention " +
                                   std::string(num::nan_convention_name(nan_rule))).c_str() : "");
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
  const auto sat = spec(rounding::nearest_even, num::overflow_mode::saturate);
  struct fp8_case {
    const char* name;
    gpu_unary op;
    num::format from, to;
    num::round_spec s;
  };
  const fp8_case fp8_cases[] = {
      {"f16->e4m3 RN satfinite (halfraw_to_fp8)", gpu_f16_to_e4m3_satfinite, num::binary16, num::fp8_e4m3, sat},
      {"f16->e4m3 RN nosat", gpu_f16_to_e4m3_nosat, num::binary16, num::fp8_e4m3, ne},
      {"f16->e5m2 RN satfinite", gpu_f16_to_e5m2_satfinite, num::binary16, num::fp8_e5m2, sat},
      {"f16->e5m2 RN nosat", gpu_f16_to_e5m2_nosat, num::binary16, num::fp8_e5m2, ne},
      {"bf16->e4m3 RN satfinite (bfloat16raw_to_fp8)", gpu_bf16_to_e4m3_satfinite, num::bfloat16_format, num::fp8_e4m3, sat},
      {"bf16->e4m3 RN nosat", gpu_bf16_to_e4m3_nosat, num::bfloat16_format, num::fp8_e4m3, ne},
      {"bf16->e5m2 RN satfinite", gpu_bf16_to_e5m2_satfinite, num::bfloat16_format, num::fp8_e5m2, sat},
      {"bf16->e5m2 RN nosat", gpu_bf16_to_e5m2_nosat, num::bfloat16_format, num::fp8_e5m2, ne},
  };
  for (const auto& c : fp8_cases) {
    check_unary(c.name, c.op, c.to, [&](std::uint32_t a) { return num::convert(c.from, a, c.to, c.s).bits; }, failures);
  }
  check_unary("e4m3->f16 (fp8_to_halfraw)", gpu_e4m3_to_f16, num::binary16,
              [&](std::uint32_t a) { return num::convert(num::fp8_e4m3, a & 0xff, num::binary16, ne).bits; }, failures);
  check_unary("e5m2->f16 (fp8_to_halfraw)", gpu_e5m2_to_f16, num::binary16,
              [&](std::uint32_t a) { return num::convert(num::fp8_e5m2, a & 0xff, num::binary16, ne).bits; }, failures);
  check_element("f32->e2m1 RN sat (__nv_cvt_float_to_fp4)", gpu_f32_to_e2m1, num::element_type::e2m1, stride, failures);
  check_element("f32->e2m3 RN sat (__nv_cvt_float_to_fp6)", gpu_f32_to_e2m3, num::element_type::e2m3, stride, failures);
  check_element("f32->e3m2 RN sat (__nv_cvt_float_to_fp6)", gpu_f32_to_e3m2, num::element_type::e3m2, stride, failures);
  }

  const num::format h = num::binary16, b = num::bfloat16_format;
  if (arithmetic) {
  check_unary("f16 sqrt (hsqrt)", gpu_f16_sqrt, h, [&](std::uint32_t a) { return num::sqrt(h, a, ne).bits; }, failures);
  check_unary("bf16 sqrt (hsqrt)", gpu_bf16_sqrt, b, [&](std::uint32_t a) { return num::sqrt(b, a, ne).bits; }, failures);
  check_unary("f16 round-to-integral (hrint)", gpu_f16_rint, h,
              [&](std::uint32_t a) { return num::round_to_integral(h, a, ne).bits; }, failures);
    check_binary("f16 add (__hadd_rn)", gpu_f16_add, h, [&](std::uint32_t x, std::uint32_t y) { return num::add(h, x, y, ne).bits; }, stride, failures);
    check_binary("f16 sub (__hsub_rn)", gpu_f16_sub, h, [&](std::uint32_t x, std::uint32_t y) { return num::sub(h, x, y, ne).bits; }, stride, failures);
    check_binary("f16 mul (__hmul_rn)", gpu_f16_mul, h, [&](std::uint32_t x, std::uint32_t y) { return num::mul(h, x, y, ne).bits; }, stride, failures);
    check_binary("f16 div (__hdiv)", gpu_f16_div, h, [&](std::uint32_t x, std::uint32_t y) { return num::div(h, x, y, ne).bits; }, stride, failures);
    check_binary("f16 fma a*b+1 (__hfma)", gpu_f16_fma_one, h,
                 [&](std::uint32_t x, std::uint32_t y) { return num::fma(h, x, y, 0x3c00, ne).bits; }, stride, failures);
    check_binary("bf16 add (__hadd_rn)", gpu_bf16_add, b, [&](std::uint32_t x, std::uint32_t y) { return num::add(b, x, y, ne).bits; }, stride, failures);
    check_binary("bf16 sub (__hsub_rn)", gpu_bf16_sub, b, [&](std::uint32_t x, std::uint32_t y) { return num::sub(b, x, y, ne).bits; }, stride, failures);
    check_binary("bf16 div (__hdiv)", gpu_bf16_div, b, [&](std::uint32_t x, std::uint32_t y) { return num::div(b, x, y, ne).bits; }, stride, failures);
    check_binary("bf16 mul (__hmul_rn)", gpu_bf16_mul, b, [&](std::uint32_t x, std::uint32_t y) { return num::mul(b, x, y, ne).bits; }, stride, failures);
    check_binary("bf16 fma a*b+1 (__hfma)", gpu_bf16_fma_one, b,
                 [&](std::uint32_t x, std::uint32_t y) { return num::fma(b, x, y, 0x3f80, ne).bits; }, stride, failures);
    check_binary("f16 fma a*b-2^-24 (__hfma)", gpu_f16_fma_minus_tiny, h,
                 [&](std::uint32_t x, std::uint32_t y) { return num::fma(h, x, y, 0x8001, ne).bits; }, stride, failures);
    check_binary("bf16 fma a*b-2^-133 (__hfma)", gpu_bf16_fma_minus_tiny, b,
                 [&](std::uint32_t x, std::uint32_t y) { return num::fma(b, x, y, 0x8001, ne).bits; }, stride, failures);
  }
  std::printf("%s\n", failures == 0 ? "all checks agree" : "SOME CHECKS DISAGREE");
  return failures == 0 ? 0 : 1;
}
