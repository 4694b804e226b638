// Merging consecutive steps into the points of a long curve (reader::steps)
// and the columns of a long map (reader::counts_by_layer_and_step).
//
// Steps s with floor(s / w) equal share a bucket, w a power of two. Buckets
// are aligned to multiples of w, not to a run's first step, and w grows with
// the run by doubling only: the buckets of width 2w are the width-w buckets
// merged pairwise. A live viewer therefore keeps the buckets it holds across
// refreshes, reads only the steps from its last (possibly incomplete) bucket
// on, and merges pairwise when the width doubles (issue 18, defect 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "rundb/records.hpp"

namespace rundb {

/// The width of the buckets that merge the steps first..last into at most
/// `max_points` buckets: the smallest power of two w (at most 2^62) with
/// floor(last / w) - floor(first / w) < max_points; 1 when max_points is 0.
std::int64_t merged_width(std::int64_t first, std::int64_t last, std::size_t max_points);

/// floor(step / width), rounding towards minus infinity; width > 0.
std::int64_t bucket_index(std::int64_t step, std::int64_t width);

/// Consecutive steps merged into one point of a curve, held as sums and
/// counts so that two buckets merge exactly: the point is the first step and
/// epoch (the smallest), the mean loss, lr and gradient norm over the steps
/// that recorded each, the smallest loss scale, skipped if any step was (with
/// the greatest reason), the last wall time.
struct step_bucket {
  std::int64_t index = 0;  ///< bucket_index of its steps at the width it holds
  std::int64_t steps = 0;  ///< steps merged
  step_record first{};     ///< the merged record less its means (loss, lr, grad_norm unset)
  double loss_sum = 0, lr_sum = 0, grad_norm_sum = 0;
  std::int64_t losses = 0, lrs = 0, grad_norms = 0;  ///< how many steps recorded each

  /// A bucket of one step, at width 1.
  static step_bucket of(const step_record& r);
  /// Adds the steps of `later`, whose steps all come after this bucket's.
  void merge(const step_bucket& later);
  /// The merged step (means computed now).
  step_record point() const;
};

/// Width w -> 2w: neighbouring buckets whose index / 2 is equal merge, the
/// earlier first; every index halves (rounding down).
void double_width(std::vector<step_bucket>& buckets);

/// Appends `steps` (ascending, all after the steps of `buckets`' last
/// bucket's index at `width`) as buckets of `width` steps. Each is built from
/// single steps by doubling, so the sums are added in one fixed order: the
/// same steps appended at a smaller width and doubled give the same bits.
void append_steps(std::vector<step_bucket>& buckets, std::span<const step_record> steps, std::int64_t width);

}  // namespace rundb
