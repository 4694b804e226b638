// The enumeration: rows of operand pairs shared out to worker threads, each
// row computed by the oracle and by libnum and compared.
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "certify/certificate.hpp"

namespace certify {

std::uint64_t compare_row(row_operands row, std::span<const std::uint16_t> oracle_bits,
                          std::span<const std::uint8_t> oracle_flags, std::span<const std::uint16_t> libnum_bits,
                          std::span<const std::uint8_t> libnum_flags, std::size_t keep, std::vector<mismatch>& out) {
  std::uint64_t count = 0;
  for (std::size_t b = 0; b < oracle_bits.size(); ++b) {
    if (oracle_bits[b] == libnum_bits[b] && oracle_flags[b] == libnum_flags[b]) continue;
    if (count++ < keep) {
      out.push_back({row.a, static_cast<std::uint16_t>(b), row.c, oracle_bits[b], libnum_bits[b], oracle_flags[b],
                     libnum_flags[b]});
    }
  }
  return count;
}

namespace {

constexpr std::size_t kept_mismatches = 8;

// Hash of one row as libnum computed it: results, then flags.
std::uint64_t row_hash(std::span<const std::uint16_t> bits, std::span<const std::uint8_t> flags) {
  XXH3_state_t* state = XXH3_createState();
  if (state == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(state);
  // The results are hashed as little-endian u16, which is their layout on x86.
  XXH3_64bits_update(state, bits.data(), bits.size_bytes());
  XXH3_64bits_update(state, flags.data(), flags.size_bytes());
  const std::uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

}  // namespace

certificate run(const job& j) {
  if (j.row_stride == 0 || row_length % j.row_stride != 0) {
    throw std::invalid_argument("certify: the row stride must divide 65536 (got " + std::to_string(j.row_stride) + ")");
  }
  const std::size_t rows = j.op == operation::sqrt ? 1 : row_length / j.row_stride;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::uint64_t> hashes(rows);
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> mismatches{0};
  std::mutex kept_lock;
  std::vector<mismatch> kept;
  std::exception_ptr failure;

  const auto worker = [&] {
    try {
      std::vector<std::uint16_t> oracle_bits(row_length), libnum_bits(row_length);
      std::vector<std::uint8_t> oracle_flags(row_length), libnum_flags(row_length);
      std::vector<mismatch> found;
      for (std::size_t k = next++; k < rows; k = next++) {
        const row_operands row = job_row(j, static_cast<std::uint32_t>(k));
        oracle_row(j.format, j.op, j.mode, row, oracle_bits, oracle_flags);
        libnum_row(j, row, libnum_bits, libnum_flags);
        found.clear();
        mismatches += compare_row(row, oracle_bits, oracle_flags, libnum_bits, libnum_flags, kept_mismatches, found);
        hashes[k] = row_hash(libnum_bits, libnum_flags);
        if (!found.empty()) {
          const std::lock_guard lock(kept_lock);
          kept.insert(kept.end(), found.begin(), found.end());
        }
      }
    } catch (...) {
      const std::lock_guard lock(kept_lock);
      if (!failure) failure = std::current_exception();
      next = rows;
    }
  };
  const unsigned threads = j.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : j.threads;
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  pool.clear();  // joins
  if (failure) std::rethrow_exception(failure);

  certificate c;
  c.checked = j;
  c.pairs = static_cast<std::uint64_t>(rows) * row_length;
  c.mismatches = mismatches;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  c.hash = XXH3_64bits(hashes.data(), hashes.size() * sizeof(std::uint64_t));
  std::sort(kept.begin(), kept.end(), [](const mismatch& x, const mismatch& y) {
    return std::tie(x.a, x.c, x.b) < std::tie(y.a, y.c, y.b);
  });
  if (kept.size() > kept_mismatches) kept.resize(kept_mismatches);
  c.first_mismatches = std::move(kept);
  return c;
}

}  // namespace certify
