// The certification oracle: correctly rounded fp16 and bf16 add, sub, mul,
// div and sqrt, computed without any of libnum's code, so that comparing the
// two on every operand pair certifies libnum (docs/certify.md).
//
// How: AVX-512's embedded rounding computes each operation in binary32 rounded
// down and rounded up (`{rd-sae}`, `{ru-sae}`); the truncated one with its last
// bit forced to 1 wherever the two differ is the exact result rounded to odd at
// 24 bits. Rounding that once more to the 16-bit format in any mode gives the
// correctly rounded result (Boldo & Melquiond's round-to-odd theorem; why the
// binary32 grid is fine enough for both formats, subnormals included, is argued
// in docs/certify.md). The last rounding, the flags and the special operands
// are a few integer bit operations in this library.
//
// Conventions followed (IEEE 754-2019 where it decides): a NaN operand gives
// that NaN made quiet, the first NaN operand's if several are NaN (6.2.3),
// except that fma's inf * 0 + NaN is invalid and gives c made quiet (Berkeley
// SoftFloat's choice; 7.2 leaves it open); an invalid operation without NaN
// operands gives the positive quiet NaN with a zero payload; an exact zero sum
// of opposite signs is -0 only when rounding toward negative (6.3); underflow
// is raised when the result is tiny and inexact (7.5), tiny judged after or
// before rounding; overflow gives ±inf or ±max by rounding direction (7.4),
// and round-to-odd overflows to ±max.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace certify {

/// The 16-bit formats the oracle covers (IEEE binary16 and bfloat16).
enum class format16 : std::uint8_t { fp16, bf16 };
/// The operations covered; sqrt takes one operand, fma (a * b + c, one
/// rounding) three.
enum class operation : std::uint8_t { add, sub, mul, div, sqrt, fma };
/// Rounding-direction attributes (IEEE 754 4.3) plus round-to-odd.
enum class direction : std::uint8_t {
  nearest_even,
  nearest_away,
  toward_zero,
  toward_positive,
  toward_negative,
  to_odd,
};

inline constexpr format16 all_formats[] = {format16::fp16, format16::bf16};
inline constexpr operation all_operations[] = {operation::add, operation::sub, operation::mul,
                                               operation::div, operation::sqrt, operation::fma};
inline constexpr direction all_directions[] = {
    direction::nearest_even,    direction::nearest_away,    direction::toward_zero,
    direction::toward_positive, direction::toward_negative, direction::to_odd};

/// "fp16", "bf16"; "add" ...; "ne", "na", "rz", "ru", "rd", "ro".
std::string_view name(format16 f);
std::string_view name(operation op);
std::string_view name(direction d);

/// Exception flags of one result, one bit each. The first five have Berkeley
/// TestFloat's values and use tininess after rounding; `underflow_before` is
/// the underflow flag under tininess before rounding.
namespace flag {
inline constexpr std::uint8_t inexact = 1;
inline constexpr std::uint8_t underflow = 2;  ///< tininess after rounding
inline constexpr std::uint8_t overflow = 4;
inline constexpr std::uint8_t divide_by_zero = 8;
inline constexpr std::uint8_t invalid = 16;
inline constexpr std::uint8_t underflow_before = 32;  ///< tininess before rounding
}  // namespace flag

/// Number of encodings of a 16-bit format, the length of one row.
inline constexpr std::size_t row_length = std::size_t{1} << 16;

/// Whether this CPU can run the oracle (AVX-512 F with the OS saving its
/// state) and the SSE control word has flush-to-zero and denormals-are-zero
/// off, which the embedded roundings rely on.
bool oracle_supported();

/// Throws std::runtime_error saying what is missing if !oracle_supported().
void require_oracle();

/// The operands fixed along one row; the row runs over all second operands b.
struct row_operands {
  std::uint16_t a = 0;  ///< first operand (ignored by sqrt)
  std::uint16_t c = 0;  ///< addend of fma (ignored by the others)
};

/// One row of results: op(a, b) for b = 0 .. 65535 (sqrt(b); fma(a, b, c)),
/// rounded in direction `d`. bits[b] is the result's encoding, flags[b] its
/// flag bits. Spans must hold row_length elements. Throws std::runtime_error
/// if !oracle_supported(), std::invalid_argument for a wrong span size.
void oracle_row(format16 f, operation op, direction d, row_operands row,
                std::span<std::uint16_t> bits, std::span<std::uint8_t> flags);

}  // namespace certify
