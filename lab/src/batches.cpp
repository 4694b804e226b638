#include "lab/batches.hpp"

#include <algorithm>
#include <numeric>

#include "lab/errors.hpp"
#include "lab/rng.hpp"

namespace lab {

batch_loader::batch_loader(const dataset& data, std::size_t batch_size, bool shuffle, bool drop_last,
                           std::uint64_t seed, augmentation aug)
    : data_(&data), batch_size_(batch_size), shuffle_(shuffle), drop_last_(drop_last), seed_(seed), aug_(aug),
      order_(data.size()) {
  if (batch_size_ == 0) throw input_error("batch_size must be positive");
  if (drop_last_ && data.size() < batch_size_)
    throw input_error("batch_size " + std::to_string(batch_size_) + " exceeds the " + std::to_string(data.size()) +
                      " samples of the data set (with drop_last no batch would remain)");
  std::iota(order_.begin(), order_.end(), std::size_t{0});
}

std::size_t batch_loader::batches_per_epoch() const {
  const std::size_t n = data_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

void batch_loader::start_epoch(std::uint64_t epoch) {
  epoch_ = epoch;
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  if (!shuffle_) return;
  rng gen(seed_, 1000 + epoch);
  for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[gen.below(i)]);
}

void batch_loader::fill(std::size_t index, batch& out) const {
  const std::size_t begin = index * batch_size_;
  const std::size_t end = std::min(begin + batch_size_, data_->size());
  const std::size_t n = end - begin;
  const auto& s = data_->images.shape();
  const std::size_t c = s[1], h = s[2], w = s[3], per = c * h * w;
  out.images.resize({n, c, h, w});
  out.labels.resize(n);
  const bool augment = aug_.crop_padding > 0 || aug_.flip;
  rng gen(seed_ ^ 0xa5a5a5a5ULL, (epoch_ << 32) + index);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t src = order_[begin + i];
    out.labels[i] = data_->labels[src];
    const float* x = data_->images.data() + src * per;
    float* y = out.images.data() + i * per;
    if (!augment) {
      std::copy(x, x + per, y);
      continue;
    }
    const auto pad = static_cast<long long>(aug_.crop_padding);
    const long long dy = pad > 0 ? static_cast<long long>(gen.below(2 * aug_.crop_padding + 1)) - pad : 0;
    const long long dx = pad > 0 ? static_cast<long long>(gen.below(2 * aug_.crop_padding + 1)) - pad : 0;
    const bool mirror = aug_.flip && gen.uniform() < 0.5f;
    for (std::size_t ch = 0; ch < c; ++ch)
      for (std::size_t r = 0; r < h; ++r)
        for (std::size_t col = 0; col < w; ++col) {
          const long long sr = static_cast<long long>(r) + dy;
          const long long sc0 = static_cast<long long>(mirror ? w - 1 - col : col) + dx;
          const bool inside = sr >= 0 && sr < static_cast<long long>(h) && sc0 >= 0 && sc0 < static_cast<long long>(w);
          y[(ch * h + r) * w + col] =
              inside ? x[(ch * h + static_cast<std::size_t>(sr)) * w + static_cast<std::size_t>(sc0)] : 0.0f;
        }
  }
}

}  // namespace lab
