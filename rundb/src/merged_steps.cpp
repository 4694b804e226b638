// Buckets of steps with power-of-two widths; see rundb/merged_steps.hpp.
#include "rundb/merged_steps.hpp"

#include <algorithm>
#include <utility>

namespace rundb {

std::int64_t bucket_index(std::int64_t step, std::int64_t width) {
  const std::int64_t q = step / width;
  return step % width < 0 ? q - 1 : q;
}

std::int64_t merged_width(std::int64_t first, std::int64_t last, std::size_t max_points) {
  if (max_points == 0 || last < first) return 1;
  // 2^62 is the widest: any two int64 steps then lie within 4 buckets.
  constexpr std::int64_t widest = std::int64_t{1} << 62;
  std::int64_t width = 1;
  // Unsigned: the difference of bucket indices of a damaged file's steps may not fit in int64.
  while (width < widest && static_cast<std::uint64_t>(bucket_index(last, width)) -
                                   static_cast<std::uint64_t>(bucket_index(first, width)) >=
                               max_points) {
    width *= 2;
  }
  return width;
}

step_bucket step_bucket::of(const step_record& r) {
  step_bucket b;
  b.index = r.step;
  b.steps = 1;
  b.first = r;
  b.first.loss.reset();
  b.first.lr.reset();
  b.first.grad_norm.reset();
  const auto add = [](const std::optional<double>& v, double& sum, std::int64_t& n) {
    if (!v) return;
    sum = *v;
    n = 1;
  };
  add(r.loss, b.loss_sum, b.losses);
  add(r.lr, b.lr_sum, b.lrs);
  add(r.grad_norm, b.grad_norm_sum, b.grad_norms);
  return b;
}

void step_bucket::merge(const step_bucket& later) {
  steps += later.steps;
  first.epoch = std::min(first.epoch, later.first.epoch);
  if (later.first.loss_scale)
    first.loss_scale = std::min(first.loss_scale.value_or(*later.first.loss_scale), *later.first.loss_scale);
  first.skipped = first.skipped || later.first.skipped;
  first.skip_reason = std::max(first.skip_reason, later.first.skip_reason);
  if (later.first.wall_time)
    first.wall_time = std::max(first.wall_time.value_or(*later.first.wall_time), *later.first.wall_time);
  loss_sum += later.loss_sum;
  lr_sum += later.lr_sum;
  grad_norm_sum += later.grad_norm_sum;
  losses += later.losses;
  lrs += later.lrs;
  grad_norms += later.grad_norms;
}

step_record step_bucket::point() const {
  step_record r = first;
  const auto mean = [](double sum, std::int64_t n) {
    return n > 0 ? std::optional<double>(sum / static_cast<double>(n)) : std::nullopt;
  };
  r.loss = mean(loss_sum, losses);
  r.lr = mean(lr_sum, lrs);
  r.grad_norm = mean(grad_norm_sum, grad_norms);
  return r;
}

void double_width(std::vector<step_bucket>& buckets) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    const std::int64_t index = bucket_index(buckets[i].index, 2);
    if (kept > 0 && buckets[kept - 1].index == index) {
      buckets[kept - 1].merge(buckets[i]);
      continue;
    }
    if (kept != i) buckets[kept] = std::move(buckets[i]);
    buckets[kept++].index = index;
  }
  buckets.resize(kept);
}

void append_steps(std::vector<step_bucket>& buckets, std::span<const step_record> steps, std::int64_t width) {
  std::vector<step_bucket> one;  // the steps of one bucket, doubled up to `width`
  for (std::size_t i = 0; i < steps.size();) {
    const std::int64_t index = bucket_index(steps[i].step, width);
    one.clear();
    for (; i < steps.size() && bucket_index(steps[i].step, width) == index; ++i) one.push_back(step_bucket::of(steps[i]));
    for (std::int64_t w = 1; w < width; w *= 2) double_width(one);
    buckets.push_back(std::move(one.front()));
  }
}

}  // namespace rundb
