// Batching: seeded shuffling per epoch, drop-last, and optional augmentation
// (random crop with zero padding, random horizontal flip).
#pragma once

#include <cstdint>
#include <vector>

#include "lab/dataset.hpp"

namespace lab {

/// One mini-batch.
struct batch {
  tensor images;
  std::vector<std::int32_t> labels;
};

/// Augmentation applied to training batches.
struct augmentation {
  std::size_t crop_padding = 0;  ///< pad by this many pixels, then crop back at a random offset
  bool flip = false;             ///< mirror left-right with probability 1/2
};

/// Cuts a data set into batches. The order of epoch e is a permutation drawn
/// from rng(seed, e) and augmentation of batch b in epoch e uses its own
/// stream, so any epoch can be replayed (checkpoint resume) without
/// replaying earlier ones.
class batch_loader {
 public:
  batch_loader(const dataset& data, std::size_t batch_size, bool shuffle, bool drop_last, std::uint64_t seed,
               augmentation aug = {});

  /// Batches per epoch (a last partial batch counts unless drop_last).
  [[nodiscard]] std::size_t batches_per_epoch() const;
  /// Draws the sample order of `epoch`.
  void start_epoch(std::uint64_t epoch);
  /// Fills `out` with batch number `index` of the current epoch.
  void fill(std::size_t index, batch& out) const;

 private:
  const dataset* data_;
  std::size_t batch_size_;
  bool shuffle_, drop_last_;
  std::uint64_t seed_, epoch_ = 0;
  augmentation aug_;
  std::vector<std::size_t> order_;
};

}  // namespace lab
