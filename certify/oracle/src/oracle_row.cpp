// The oracle's entry point: checks the CPU and the SSE control word, then
// hands the row to the AVX-512 code.
#include <xmmintrin.h>

#include <stdexcept>

#include "certify/oracle.hpp"
#include "oracle_internal.hpp"

namespace certify {

std::string_view name(format16 f) { return f == format16::fp16 ? "fp16" : "bf16"; }

std::string_view name(operation op) {
  switch (op) {
    case operation::add: return "add";
    case operation::sub: return "sub";
    case operation::mul: return "mul";
    case operation::div: return "div";
    case operation::sqrt: return "sqrt";
    case operation::fma: return "fma";
  }
  return "?";
}

std::string_view name(direction d) {
  switch (d) {
    case direction::nearest_even: return "ne";
    case direction::nearest_away: return "na";
    case direction::toward_zero: return "rz";
    case direction::toward_positive: return "ru";
    case direction::toward_negative: return "rd";
    case direction::to_odd: return "ro";
  }
  return "?";
}

bool oracle_supported() {
  // Flush-to-zero (bit 15) or denormals-are-zero (bit 6) would change the
  // binary32 results below 2^-126 that bf16's subnormal range relies on.
  constexpr unsigned flush_bits = 0x8000 | 0x0040;
  return __builtin_cpu_supports("avx512f") && (_mm_getcsr() & flush_bits) == 0;
}

void require_oracle() {
  if (!__builtin_cpu_supports("avx512f")) {
    throw std::runtime_error(
        "certify: this CPU lacks AVX-512 F; the oracle needs AVX-512's embedded rounding and has no slower path");
  }
  if (!oracle_supported()) {
    throw std::runtime_error("certify: flush-to-zero or denormals-are-zero is set in MXCSR; the oracle needs both off");
  }
}

void oracle_row(format16 f, operation op, direction d, row_operands row, std::span<std::uint16_t> bits,
                std::span<std::uint8_t> flags) {
  if (bits.size() != row_length || flags.size() != row_length) {
    throw std::invalid_argument("certify oracle: a row needs spans of 65536 results and flags");
  }
  require_oracle();
  detail::oracle_row_avx512(f, op, d, row, bits.data(), flags.data());
}

}  // namespace certify
