// Internal: Philox4x32-10 (philox.hpp) for a run of consecutive counter
// blocks, written once for every SIMD width. An instruction-set traits type
// supplies the register type and the handful of operations the rounds need
// (philox_avx512.hpp for AVX-512, philox_avx2.hpp for AVX2). The body is
// written over intrinsics rather than GCC's generic vectors because GCC 12
// turns a generic 64-bit multiply into the slow vpmullq where vpmuludq (the
// 32x32->64 multiply Philox needs) is what each lane asks for.
//
// Include it inside a region compiled for the traits' instruction set (the
// including file's `#pragma GCC target` or, under clang, its per-file
// flags): it is always inlined into its caller's instruction set.
#pragma once

#include <cstddef>
#include <cstdint>

#include "libnum/philox.hpp"

namespace num::kernels {
// Internal linkage: each including file keeps its own instruction-set copy.
namespace {

/// The ten rounds' keys of a seed, each broadcast to a register. Built once
/// per kernel call rather than per run of blocks: the per-round broadcasts
/// were about an eighth of an AVX2 run's instructions, and a kernel's loop
/// keeps them in memory, where vpxor reads them for free.
template <class Isa>
struct philox_round_keys {
  typename Isa::reg k0[10], k1[10];
  explicit philox_round_keys(std::uint64_t seed) {
    auto key0 = static_cast<std::uint32_t>(seed);
    auto key1 = static_cast<std::uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
      k0[round] = Isa::set1(key0);
      k1[round] = Isa::set1(key1);
      key0 += 0x9E3779B9u;
      key1 += 0xBB67AE85u;
    }
  }
};

/// Words 4·first_block .. 4·first_block + 4·Sets·Isa::blocks_per_register - 1
/// of random_stream(seed, stream), in order, into `out`. One block per 64-bit
/// lane (only each lane's low 32 bits matter: vpmuludq reads just those, so
/// the high halves may hold anything until the words are assembled); with
/// several sets of registers, their rounds interleave, so one's multiply
/// latency hides behind the others' work.
template <class Isa, int Sets = 2>
inline __attribute__((always_inline)) void philox_blocks(const philox_round_keys<Isa>& keys, std::uint64_t stream,
                                                         std::uint64_t first_block, std::uint32_t* out) {
  using reg = typename Isa::reg;
  constexpr int sets = Sets;
  constexpr int blocks = Isa::blocks_per_register;
  reg x0[sets], x1[sets], x2[sets], x3[sets];
  for (int s = 0; s < sets; ++s) {
    // Lanes hold the blocks in the order Isa::block_order gives, so that the
    // unpacks below leave them in counter order.
    x0[s] = Isa::add64(Isa::set1(first_block + static_cast<std::uint64_t>(blocks * s)), Isa::block_order());
    x1[s] = Isa::shift_right64(x0[s]);
    x2[s] = Isa::set1(stream & 0xFFFFFFFFu);
    x3[s] = Isa::set1(stream >> 32);
  }
  const reg m0 = Isa::set1(0xD2511F53u);
  const reg m1 = Isa::set1(0xCD9E8D57u);
  for (int round = 0; round < 10; ++round) {
    for (int s = 0; s < sets; ++s) {
      const reg p0 = Isa::multiply32(x0[s], m0);
      const reg p1 = Isa::multiply32(x2[s], m1);
      x0[s] = Isa::xor3(Isa::shift_right64(p1), x1[s], keys.k0[round]);
      x1[s] = p1;
      x2[s] = Isa::xor3(Isa::shift_right64(p0), x3[s], keys.k1[round]);
      x3[s] = p0;
    }
  }
  for (int s = 0; s < sets; ++s) {
    // Words 0 and 1 (2 and 3) of each block side by side in one 64-bit
    // lane, then the lanes' pairs interleaved into counter order.
    const reg w01 = Isa::low_and_high(x0[s], x1[s]);
    const reg w23 = Isa::low_and_high(x2[s], x3[s]);
    Isa::store(out + 4 * blocks * s, Isa::unpack_low64(w01, w23));
    Isa::store(out + 4 * blocks * s + 2 * blocks, Isa::unpack_high64(w01, w23));
  }
}

/// philox_blocks with the keys of `seed`.
template <class Isa, int Sets = 2>
inline __attribute__((always_inline)) void philox_blocks(std::uint64_t seed, std::uint64_t stream,
                                                         std::uint64_t first_block, std::uint32_t* out) {
  philox_blocks<Isa, Sets>(philox_round_keys<Isa>(seed), stream, first_block, out);
}

/// How many positions' draws philox_draws<Isa, D, Sets> writes.
template <class Isa, random_draws D, int Sets>
constexpr std::size_t draws_per_run = std::size_t{4} * Isa::blocks_per_register * Sets *
                                      (D == random_draws::half_word ? 2 : 1);

/// The random words (num::draw_word) of positions position ..
/// position + draws_per_run<Isa, D, Sets> - 1 under draws D, into `out`;
/// position is a multiple of 8 (whole Philox blocks under either draws).
template <class Isa, random_draws D, int Sets>
inline __attribute__((always_inline)) void philox_draws(const philox_round_keys<Isa>& keys, std::uint64_t stream,
                                                        std::uint64_t position, std::uint32_t* out) {
  if constexpr (D == random_draws::full_word) {
    philox_blocks<Isa, Sets>(keys, stream, position / 4, out);
  } else {
    // Word k feeds positions 2k (its low half) and 2k + 1 (its high half).
    constexpr std::size_t words = draws_per_run<Isa, random_draws::full_word, Sets>;
    constexpr std::size_t per_register = 2 * Isa::blocks_per_register;
    alignas(64) std::uint32_t w[words];
    philox_blocks<Isa, Sets>(keys, stream, position / 8, w);
    for (std::size_t i = 0; i < words; i += per_register) {
      typename Isa::reg first, second;
      Isa::split_halves(Isa::load(w + i), first, second);
      Isa::store(out + 2 * i, first);
      Isa::store(out + 2 * i + per_register, second);
    }
  }
}

/// philox_draws with the keys of `seed`.
template <class Isa, random_draws D, int Sets>
inline __attribute__((always_inline)) void philox_draws(std::uint64_t seed, std::uint64_t stream,
                                                        std::uint64_t position, std::uint32_t* out) {
  philox_draws<Isa, D, Sets>(philox_round_keys<Isa>(seed), stream, position, out);
}

}  // namespace
}  // namespace num::kernels
