// Image classification data sets in memory, and their readers: Fashion-MNIST
// (IDX files, gzipped or not), CIFAR-10 (binary batches) and synthetic sets.
// Readers throw input_error naming the file and what is wrong with it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lab/tensor.hpp"

namespace lab {

/// Images [N, C, H, W] as floats and one label per image.
struct dataset {
  tensor images;
  std::vector<std::int32_t> labels;
  std::size_t classes = 10;
  [[nodiscard]] std::size_t size() const { return labels.size(); }
};

/// The contents of one IDX file of unsigned bytes (type 0x08).
struct idx_array {
  std::vector<std::size_t> dims;
  std::vector<std::uint8_t> values;
};

/// Reads every byte of a file, inflating it when it is gzip-compressed.
std::vector<std::uint8_t> read_maybe_gzipped(const std::filesystem::path& path);
/// Parses an IDX file of unsigned bytes (the MNIST format), gzipped or not.
idx_array read_idx(const std::filesystem::path& path);

/// Fashion-MNIST split "train" or "test" from `dir` (the four files named
/// train-images-idx3-ubyte.gz, ..., t10k-labels-idx1-ubyte.gz, or the same
/// names without .gz). Pixels are scaled to [0, 1].
dataset load_fashion_mnist(const std::filesystem::path& dir, const std::string& split);
/// CIFAR-10 split "train" (data_batch_1..5.bin) or "test" (test_batch.bin)
/// from `dir`, pixels scaled to [0, 1].
dataset load_cifar10(const std::filesystem::path& dir, const std::string& split);
/// Parses one CIFAR-10 binary batch file (records of 1 label + 3072 bytes),
/// appending to `out`.
void append_cifar10_batch(const std::filesystem::path& file, dataset& out);

/// A learnable synthetic set: each class has a random template image; each
/// sample is its class template plus Gaussian noise of standard deviation
/// `noise`. Deterministic in `seed`.
dataset make_synthetic(std::size_t n, std::size_t channels, std::size_t height, std::size_t width,
                       std::size_t classes, float noise, std::uint64_t seed);

/// Per-channel mean and standard deviation.
struct channel_stats {
  std::vector<float> mean, stddev;
};
/// Mean and population standard deviation of each channel over a data set.
channel_stats compute_channel_stats(const dataset& data);
/// x <- (x - mean[c]) / stddev[c] for every pixel of channel c.
void normalise(dataset& data, const channel_stats& stats);

}  // namespace lab
