// Internal: the blocks an AVX-512 kernel leaves to the scalar path.
#pragma once

#include <cstddef>
#include <vector>

namespace num::scaled_detail {

/// Indices (within a kernel's run) of the blocks it did not quantize. add()
/// is defined in scaled_quantize.cpp, outside the kernels' AVX-512 regions,
/// so no std::vector code is compiled for AVX-512 (where the linker could
/// pick it for callers on other CPUs).
class left_blocks {
 public:
  void add(std::size_t block);
  void clear() { indices_.clear(); }
  const std::vector<std::size_t>& indices() const { return indices_; }

 private:
  std::vector<std::size_t> indices_;
};

}  // namespace num::scaled_detail
