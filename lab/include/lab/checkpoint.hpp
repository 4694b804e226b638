// Checkpoints: named fp32 tensors plus counters in one binary file, written
// to "<path>.tmp" and renamed into place so a crash never leaves a partial
// file under the real name. A trailing FNV-1a checksum catches corruption.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lab/tensor.hpp"

namespace lab {

/// One tensor of a checkpoint, by name.
struct named_tensor {
  std::string name;
  tensor* value;
};

/// What a checkpoint holds besides tensors.
struct checkpoint_header {
  std::string fingerprint;      ///< identifies the model/optimizer layout
  std::uint64_t epochs_done = 0;
  std::uint64_t updates_done = 0;
  std::uint64_t micro_steps_done = 0;
};

/// Writes header and tensors atomically (temp file + rename).
void save_checkpoint(const std::filesystem::path& path, const checkpoint_header& header,
                     const std::vector<named_tensor>& tensors);

/// Reads a checkpoint into `tensors` (names and sizes must match exactly and
/// the fingerprint must equal `expected_fingerprint`); returns its header.
/// Throws input_error naming the file and the mismatch.
checkpoint_header load_checkpoint(const std::filesystem::path& path, const std::string& expected_fingerprint,
                                  const std::vector<named_tensor>& tensors);

}  // namespace lab
