// Data loading for the trainer: the configured data set, limits, normalisation.
#include "lab/errors.hpp"
#include "lab/trainer.hpp"

namespace lab {
namespace {

void limit(dataset& d, std::size_t n) {
  if (n == 0 || n >= d.size()) return;
  const auto& s = d.images.shape();
  tensor kept(s.with_batch(n));
  std::copy(d.images.data(), d.images.data() + kept.size(), kept.data());
  d.images = std::move(kept);
  d.labels.resize(n);
}

}  // namespace

train_data load_data(const train_config& config) {
  train_data out;
  if (config.dataset == "fashion_mnist") {
    const std::filesystem::path dir = config.data_dir.empty() ? "/usr/share/datasets/fashion-mnist" : config.data_dir;
    out.train = load_fashion_mnist(dir, "train");
    out.test = load_fashion_mnist(dir, "test");
  } else if (config.dataset == "cifar10") {
    const std::filesystem::path dir = config.data_dir.empty() ? "data/cifar-10-batches-bin" : config.data_dir;
    out.train = load_cifar10(dir, "train");
    out.test = load_cifar10(dir, "test");
  } else if (config.dataset == "synthetic") {
    // One template set for both splits (same seed), fresh noise per split.
    const std::size_t n_train = config.train_limit ? config.train_limit : 2048;
    const std::size_t n_test = config.test_limit ? config.test_limit : 512;
    dataset all = make_synthetic(n_train + n_test, 1, 28, 28, 10, 1.0f, config.seed);
    out.train = all;
    limit(out.train, n_train);
    out.test.classes = all.classes;
    out.test.images = tensor(all.images.shape().with_batch(n_test));
    const std::size_t per = all.images.shape().per_sample();
    std::copy(all.images.data() + n_train * per, all.images.data() + all.images.size(), out.test.images.data());
    out.test.labels.assign(all.labels.begin() + static_cast<std::ptrdiff_t>(n_train), all.labels.end());
  } else {
    throw input_error("unknown dataset '" + config.dataset + "'");
  }
  limit(out.train, config.train_limit);
  limit(out.test, config.test_limit);
  if (config.normalize) {
    const channel_stats stats = compute_channel_stats(out.train);
    normalise(out.train, stats);
    normalise(out.test, stats);
  }
  return out;
}

}  // namespace lab
