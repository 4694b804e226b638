// Scratch vectors reused across tensors of different sizes (private to lab).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace lab::detail {

/// The first n elements of `v`, growing it only when it is shorter. Callers
/// that take turns between a large and a small tensor would otherwise shrink
/// and regrow the vector, zero-filling the regrown part on every step.
template <typename T>
std::span<T> scratch_prefix(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return {v.data(), n};
}

}  // namespace lab::detail
