#!/usr/bin/env python3
"""Philox4x32-10 in Python integers (Salmon et al., SC'11, with Random123's
constants), independent of libnum: prints the known answers that
tests/libnum/kernels/philox_kat_test.cpp pastes. Checks itself first against
the three published Random123 vectors."""
M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox(counter, key, rounds=10):
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(rounds):
        p0 = M0 * c0
        p1 = M1 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK, (p0 >> 32) ^ c3 ^ k1, p0 & MASK
        k0 = (k0 + W0) & MASK
        k1 = (k1 + W1) & MASK
    return [c0, c1, c2, c3]


assert philox([0, 0, 0, 0], [0, 0]) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
assert philox([MASK] * 4, [MASK, MASK]) == [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
assert philox([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]) == \
    [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]


def word(seed, stream, index):
    block = index // 4
    counter = [block & MASK, block >> 32, stream & MASK, stream >> 32]
    return philox(counter, [seed & MASK, seed >> 32])[index % 4]


def half_draw(seed, stream, position):
    w = word(seed, stream, position // 2)
    return (w << 16) & MASK if position % 2 == 0 else w & 0xFFFF0000


SEED, STREAM = 0x0123456789ABCDEF, 0x0000000500000003


def top_bits(f, count):
    """Bit k of word k // 32 is the top bit of f(k)."""
    out = [0] * ((count + 31) // 32)
    for k in range(count):
        out[k // 32] |= (f(k) >> 31) << (k % 32)
    return out


print("blocks 0, 1, 2, 3, 16, 17, 2^32 + 5 of (seed, stream):")
for b in [0, 1, 2, 3, 16, 17, (1 << 32) + 5]:
    print(b, ", ".join("0x%08x" % word(SEED, STREAM, 4 * b + j) for j in range(4)))
COUNT = 640
print("top bits of full words 0..%d:" % (COUNT - 1))
print(", ".join("0x%08x" % v for v in top_bits(lambda k: word(SEED, STREAM, k), COUNT)))
print("top bits of half-word draws 0..%d:" % (COUNT - 1))
print(", ".join("0x%08x" % v for v in top_bits(lambda k: half_draw(SEED, STREAM, k), COUNT)))
print("half-word draws at positions 0..7, 1001, 2^33 + 1:")
print(", ".join("0x%08x" % half_draw(SEED, STREAM, p) for p in list(range(8)) + [1001, (1 << 33) + 1]))
