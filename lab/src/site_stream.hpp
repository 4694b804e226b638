// The random stream of a tensor of a precision policy. Internal to lab.
#pragma once

#include <cstdint>

#include "lab/op_context.hpp"
#include "mixing.hpp"

namespace lab {

/// Stream of a (site, role) at a step: distinct for every tensor of a step.
inline std::uint64_t stream_of(const site& where, tensor_role role, std::uint64_t step) {
  std::uint64_t h = fnv1a(fnv1a_basis, where.layer);
  h = fnv1a(h ^ 0x2F, where.op);
  h = fnv1a(h ^ 0x2F, where.tensor);
  return splitmix64(h ^ splitmix64(step) ^ (static_cast<std::uint64_t>(role) << 56));
}

}  // namespace lab
