// Certification of libnum's fp16/bf16 arithmetic against the oracle
// (certify/oracle.hpp): every operand pair of one (format, operation,
// rounding direction), or a fixed sample of the rows, computed by both and
// compared bit for bit, flags included, under both tininess rules.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "certify/oracle.hpp"

namespace certify {

/// One (format, operation, direction) to certify.
struct job {
  format16 format = format16::fp16;
  operation op = operation::add;
  direction mode = direction::nearest_even;
  /// 1 checks all 65536 first operands; n > 1 checks 65536 / n of them (see
  /// job_row). sqrt has one row of 65536 operands and ignores this; fma
  /// checks 65536 / n rows of (a, c) out of 2^32.
  unsigned row_stride = 1;
  unsigned threads = 2;  ///< worker threads (0 = all hardware threads)
};

/// Flag bit set in libnum's flags when its two tininess rules disagree on a
/// flag other than underflow (the result is one encoding for both rules,
/// num::rounded_per_tininess); the oracle never sets it, so such a pair
/// counts as a mismatch.
inline constexpr std::uint8_t rules_disagree = 64;

/// k * 0x9E37 mod 2^16: a permutation of the encodings (0x9E37 is odd), so
/// the first rows of a sample spread over all exponents and signs rather
/// than taking one residue class.
constexpr std::uint16_t sample_row(std::uint32_t k) { return static_cast<std::uint16_t>(k * 0x9E37u); }

/// The fixed operands of row k of job j: a = k when all rows are checked,
/// else a = sample_row(k); for fma also c = k * 0x6F4B + 0x1234 mod 2^16 and
/// a = sample_row(k) always (another permutation, so the pairs (a, c) differ
/// from row to row).
constexpr row_operands job_row(const job& j, std::uint32_t k) {
  if (j.op == operation::fma) return {sample_row(k), static_cast<std::uint16_t>(k * 0x6F4Bu + 0x1234u)};
  if (j.op == operation::sqrt) return {};
  return {j.row_stride == 1 ? static_cast<std::uint16_t>(k) : sample_row(k), 0};
}

/// One operand pair where libnum and the oracle differ.
struct mismatch {
  std::uint16_t a = 0, b = 0, c = 0;  ///< operands (a is 0 for sqrt, c is 0 but for fma)
  std::uint16_t oracle_bits = 0, libnum_bits = 0;
  std::uint8_t oracle_flags = 0, libnum_flags = 0;  ///< flag bits as in certify::flag
};

/// The outcome of certifying one job.
struct certificate {
  job checked;
  std::uint64_t pairs = 0;       ///< operand pairs compared (each under both tininess rules)
  std::uint64_t mismatches = 0;  ///< pairs whose result bits or flags differ
  double seconds = 0;            ///< wall time
  /// XXH3-64 over the per-row XXH3-64 hashes in row order; a row hashes
  /// libnum's results (u16 little-endian) then its flag bytes. Independent
  /// of threads; equal to the oracle's own hash when mismatches == 0.
  std::uint64_t hash = 0;
  std::vector<mismatch> first_mismatches;  ///< up to 8, in (a, c, b) order
};

/// libnum's results and flag bytes for one row of `j` (the same layout as
/// certify::oracle_row; flags combine both tininess rules, see rules_disagree).
void libnum_row(const job& j, row_operands row, std::span<std::uint16_t> bits, std::span<std::uint8_t> flags);

/// Compares one row of oracle results with libnum's; returns the number of
/// differing pairs and appends up to `keep` of them to `out`.
std::uint64_t compare_row(row_operands row, std::span<const std::uint16_t> oracle_bits,
                          std::span<const std::uint8_t> oracle_flags, std::span<const std::uint16_t> libnum_bits,
                          std::span<const std::uint8_t> libnum_flags, std::size_t keep, std::vector<mismatch>& out);

/// The commit this program was built from (`git describe --always --dirty`
/// at build time; "unknown" outside a git checkout).
std::string_view source_commit();

/// Runs job j: oracle and libnum on every row of j in parallel, compared.
/// Throws std::runtime_error where the oracle cannot run, std::invalid_argument
/// for a row_stride that does not divide 65536.
certificate run(const job& j);

}  // namespace certify
