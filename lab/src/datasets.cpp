// Fashion-MNIST, CIFAR-10 and synthetic data sets; normalisation.
#include <cmath>

#include "lab/dataset.hpp"
#include "lab/errors.hpp"
#include "lab/rng.hpp"

namespace lab {
namespace {

std::filesystem::path find_file(const std::filesystem::path& dir, const std::string& name) {
  const auto gz = dir / (name + ".gz");
  if (std::filesystem::exists(gz)) return gz;
  const auto plain = dir / name;
  if (std::filesystem::exists(plain)) return plain;
  throw input_error(gz.string() + ": file not found (nor " + plain.filename().string() +
                    "); set data_dir / --data-dir to the folder holding the data set");
}

}  // namespace

dataset load_fashion_mnist(const std::filesystem::path& dir, const std::string& split) {
  if (split != "train" && split != "test") throw input_error("fashion_mnist: unknown split '" + split + "'");
  const std::string prefix = split == "train" ? "train" : "t10k";
  const auto image_path = find_file(dir, prefix + "-images-idx3-ubyte");
  const auto label_path = find_file(dir, prefix + "-labels-idx1-ubyte");
  const idx_array images = read_idx(image_path);
  const idx_array labels = read_idx(label_path);
  if (images.dims.size() != 3)
    throw input_error(image_path.string() + ": expected a 3-D IDX array of images, got rank " +
                      std::to_string(images.dims.size()));
  if (labels.dims.size() != 1)
    throw input_error(label_path.string() + ": expected a 1-D IDX array of labels, got rank " +
                      std::to_string(labels.dims.size()));
  if (images.dims[0] != labels.dims[0])
    throw input_error(image_path.string() + " holds " + std::to_string(images.dims[0]) + " images but " +
                      label_path.string() + " holds " + std::to_string(labels.dims[0]) + " labels");
  dataset out;
  out.classes = 10;
  out.images = tensor({images.dims[0], 1, images.dims[1], images.dims[2]});
  for (std::size_t i = 0; i < images.values.size(); ++i) out.images[i] = static_cast<float>(images.values[i]) / 255.0f;
  out.labels.resize(labels.dims[0]);
  for (std::size_t i = 0; i < out.labels.size(); ++i) {
    if (labels.values[i] >= out.classes)
      throw input_error(label_path.string() + ": label " + std::to_string(labels.values[i]) + " at index " +
                        std::to_string(i) + " is outside 0..9");
    out.labels[i] = labels.values[i];
  }
  return out;
}

void append_cifar10_batch(const std::filesystem::path& file, dataset& out) {
  constexpr std::size_t pixels = 3 * 32 * 32;
  constexpr std::size_t record = 1 + pixels;
  const auto bytes = read_maybe_gzipped(file);
  if (bytes.empty() || bytes.size() % record != 0)
    throw input_error(file.string() + ": size " + std::to_string(bytes.size()) +
                      " is not a whole number of CIFAR-10 records (" + std::to_string(record) + " bytes each)");
  const std::size_t n = bytes.size() / record;
  const std::size_t before = out.labels.size();
  tensor grown({before + n, 3, 32, 32});
  std::copy(out.images.data(), out.images.data() + out.images.size(), grown.data());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t* r = bytes.data() + i * record;
    if (r[0] >= 10)
      throw input_error(file.string() + ": record " + std::to_string(i) + " has label " + std::to_string(r[0]) +
                        " outside 0..9");
    out.labels.push_back(r[0]);
    float* dst = grown.data() + (before + i) * pixels;
    for (std::size_t p = 0; p < pixels; ++p) dst[p] = static_cast<float>(r[1 + p]) / 255.0f;
  }
  out.images = std::move(grown);
}

dataset load_cifar10(const std::filesystem::path& dir, const std::string& split) {
  dataset out;
  out.classes = 10;
  out.images = tensor({0, 3, 32, 32});
  if (split == "train") {
    for (int b = 1; b <= 5; ++b) append_cifar10_batch(find_file(dir, "data_batch_" + std::to_string(b) + ".bin"), out);
  } else if (split == "test") {
    append_cifar10_batch(find_file(dir, "test_batch.bin"), out);
  } else {
    throw input_error("cifar10: unknown split '" + split + "'");
  }
  return out;
}

dataset make_synthetic(std::size_t n, std::size_t channels, std::size_t height, std::size_t width,
                       std::size_t classes, float noise, std::uint64_t seed) {
  if (classes == 0) throw input_error("synthetic data: classes must be positive");
  rng gen(seed, 1);
  const std::size_t per = channels * height * width;
  std::vector<float> templates(classes * per);
  for (auto& v : templates) v = gen.normal();
  dataset out;
  out.classes = classes;
  out.images = tensor({n, channels, height, width});
  out.labels.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto label = static_cast<std::size_t>(gen.below(classes));
    out.labels[i] = static_cast<std::int32_t>(label);
    for (std::size_t p = 0; p < per; ++p) out.images[i * per + p] = templates[label * per + p] + noise * gen.normal();
  }
  return out;
}

channel_stats compute_channel_stats(const dataset& data) {
  const auto& s = data.images.shape();
  const std::size_t n = s[0], c = s[1], plane = s[2] * s[3];
  channel_stats stats;
  for (std::size_t ch = 0; ch < c; ++ch) {
    double sum = 0.0, sq = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const float* x = data.images.data() + (i * c + ch) * plane;
      for (std::size_t p = 0; p < plane; ++p) {
        sum += x[p];
        sq += static_cast<double>(x[p]) * x[p];
      }
    }
    const double count = static_cast<double>(n * plane);
    const double mean = count > 0 ? sum / count : 0.0;
    const double var = count > 0 ? std::max(0.0, sq / count - mean * mean) : 1.0;
    stats.mean.push_back(static_cast<float>(mean));
    stats.stddev.push_back(static_cast<float>(var > 0 ? std::sqrt(var) : 1.0));
  }
  return stats;
}

void normalise(dataset& data, const channel_stats& stats) {
  const auto& s = data.images.shape();
  const std::size_t n = s[0], c = s[1], plane = s[2] * s[3];
  if (stats.mean.size() != c) throw input_error("normalise: statistics for " + std::to_string(stats.mean.size()) +
                                                " channels, data has " + std::to_string(c));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t ch = 0; ch < c; ++ch) {
      float* x = data.images.data() + (i * c + ch) * plane;
      const float m = stats.mean[ch], inv = 1.0f / stats.stddev[ch];
      for (std::size_t p = 0; p < plane; ++p) x[p] = (x[p] - m) * inv;
    }
}

}  // namespace lab
