// The array kernels under a flushing MXCSR (FTZ, DAZ, both), as -ffast-math
// start-up code or torch.set_flush_denormal(True) leave the calling thread:
// results must be the core's, which does its rounding on integers. The
// shortcuts that run the CPU's conversions read the MXCSR (vcvtps2ph reads
// fp32 subnormals as zero under DAZ; vcvtpd2ps flushes fp32-subnormal results
// under FTZ), so every path is compared with the core over inputs in and
// around the fp32 subnormal range, in every rounding mode, fp32 and fp64
// inputs, fp16 and bf16 targets. The expected codes are computed with the
// MXCSR restored; only the kernel calls run with it flushing. The MXCSR's
// rounding control is varied too: no kernel may take its rounding from it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "kernel_oracle.hpp"
#include "libnum/cpu_features.hpp"
#include "mxcsr_bits.hpp"

#if defined(__x86_64__) || defined(__i386__)

namespace {

using namespace kernel_test;

using test_support::mxcsr_bits;
constexpr unsigned flush_to_zero = test_support::mxcsr_flush_to_zero;
constexpr unsigned denormals_are_zero = test_support::mxcsr_denormals_are_zero;
constexpr unsigned round_down = test_support::mxcsr_round_down, round_up = test_support::mxcsr_round_up;
constexpr unsigned round_toward_zero = test_support::mxcsr_round_toward_zero;

// Both signs of m * 2^e for e from below fp32's least subnormal (2^-149) up
// through fp16's subnormals, and fp32 bit patterns spread over the subnormal
// range; a vector's worth of ones keeps whole vectors of them together.
template <class T>
std::vector<T> subnormal_range_inputs() {
  std::vector<T> in;
  for (int e = -160; e <= -10; ++e) {
    for (double m : {1.0, 1.25, 1.5, 1.75, 1.99, 1.0000001}) {
      in.push_back(static_cast<T>(std::ldexp(m, e)));
      in.push_back(static_cast<T>(-std::ldexp(m, e)));
    }
  }
  for (std::uint32_t k = 1; k < 400; ++k) {
    const float x = std::bit_cast<float>(k * 20947u % 0x800000u);  // fp32 subnormal patterns
    in.push_back(static_cast<T>(k % 2 == 0 ? x : -x));
  }
  return in;
}

template <class T>
void expect_core_under_flushing(num::simd_path path) {
  const std::vector<T> in = subnormal_range_inputs<T>();
  for (const num::format& f : {num::binary16, num::bfloat16_format}) {
    for (num::rounding mode : num::all_roundings) {
      num::array_options o;
      o.target = f;
      o.spec.mode = mode;
      o.seed = 11;
      o.path = path;
      std::vector<std::uint16_t> want(in.size());
      for (std::size_t i = 0; i < in.size(); ++i) want[i] = static_cast<std::uint16_t>(core_round(in[i], o, i).bits);
      for (unsigned bits : {flush_to_zero, denormals_are_zero, flush_to_zero | denormals_are_zero, round_down, round_up,
                            round_toward_zero | flush_to_zero | denormals_are_zero}) {
        std::vector<std::uint16_t> codes(in.size());
        {
          const mxcsr_bits flushing(bits);
          ASSERT_EQ(num::mxcsr_flushes_subnormals(), (bits & (flush_to_zero | denormals_are_zero)) != 0);
          num::encode_array(std::span<const T>(in), std::span<std::uint16_t>(codes), o);
        }
        std::size_t bad = 0;
        for (std::size_t i = 0; i < in.size(); ++i) {
          if (codes[i] != want[i] && ++bad <= 3) {
            ADD_FAILURE() << describe(o) << " MXCSR bits 0x" << std::hex << bits << " input " << in[i] << ": got 0x"
                          << codes[i] << ", core 0x" << want[i];
          }
        }
        EXPECT_EQ(bad, 0u) << describe(o) << " MXCSR bits 0x" << std::hex << bits << ", " << std::dec << sizeof(T) * 8
                           << "-bit inputs";
      }
    }
  }
}

class MxcsrFlushing : public ::testing::TestWithParam<num::simd_path> {};

TEST_P(MxcsrFlushing, Fp32InputsGiveTheCoreResults) {
  NUMLAB_REQUIRE_PATH(GetParam());
  expect_core_under_flushing<float>(GetParam());
}

TEST_P(MxcsrFlushing, Fp64InputsGiveTheCoreResults) {
  NUMLAB_REQUIRE_PATH(GetParam());
  expect_core_under_flushing<double>(GetParam());
}

TEST(MxcsrFlushing, QueryReadsTheCallingThreadsMxcsr) {
  EXPECT_FALSE(num::mxcsr_flushes_subnormals());
  {
    const mxcsr_bits daz(denormals_are_zero);
    EXPECT_TRUE(num::mxcsr_flushes_subnormals());
  }
  EXPECT_FALSE(num::mxcsr_flushes_subnormals());
}

INSTANTIATE_TEST_SUITE_P(Kernels, MxcsrFlushing, ::testing::ValuesIn(all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

}  // namespace
#endif
