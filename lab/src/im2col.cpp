#include "im2col.hpp"

#include <algorithm>

// Rows here are short (an output row of a 28x28 image is 28 floats), so a
// memset/memcpy call per row segment costs more than the copy itself. GCC
// turns plain fill/copy loops into such calls; the attribute below keeps them
// as inline (vectorised) loops.
// Clang has no such pass-level attribute (nor the transformation to undo).
#if defined(__clang__)
#define LAB_INLINE_LOOPS
#else
#define LAB_INLINE_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif

namespace lab::detail {
namespace {

// Output columns [lo, hi) whose input column ow*stride - pad + s lies inside [0, in_w).
void valid_range(const window_geometry& g, std::size_t s, std::size_t& lo, std::size_t& hi) {
  const long long pad = static_cast<long long>(g.pad_left) - static_cast<long long>(s);
  const auto stride = static_cast<long long>(g.stride);
  // smallest ow with ow*stride >= pad
  long long first = pad <= 0 ? 0 : (pad + stride - 1) / stride;
  // largest ow with ow*stride - pad <= in_w - 1
  long long last = (static_cast<long long>(g.in_w) - 1 + pad) / stride;
  first = std::min<long long>(first, static_cast<long long>(g.out_w));
  last = std::min<long long>(last + 1, static_cast<long long>(g.out_w));
  lo = static_cast<std::size_t>(first);
  hi = static_cast<std::size_t>(std::max(first, last));
}

}  // namespace

LAB_INLINE_LOOPS void im2col(const float* image, std::size_t channels, const window_geometry& g, float* col,
                             std::size_t ld) {
  const std::size_t plane = g.in_h * g.in_w;
  for (std::size_t c = 0; c < channels; ++c) {
    const float* src = image + c * plane;
    for (std::size_t r = 0; r < g.kernel_h; ++r) {
      for (std::size_t s = 0; s < g.kernel_w; ++s) {
        float* row = col + ((c * g.kernel_h + r) * g.kernel_w + s) * ld;
        std::size_t lo = 0, hi = 0;
        valid_range(g, s, lo, hi);
        for (std::size_t oh = 0; oh < g.out_h; ++oh) {
          float* __restrict dst = row + oh * g.out_w;
          const long long ih = static_cast<long long>(oh * g.stride + r) - static_cast<long long>(g.pad_top);
          if (ih < 0 || ih >= static_cast<long long>(g.in_h)) {
            for (std::size_t ow = 0; ow < g.out_w; ++ow) dst[ow] = 0.0f;
            continue;
          }
          const float* __restrict line = src + static_cast<std::size_t>(ih) * g.in_w;
          for (std::size_t ow = 0; ow < lo; ++ow) dst[ow] = 0.0f;
          if (g.stride == 1) {
            const float* __restrict shifted = line + lo + s - g.pad_left;  // in bounds: lo + s >= pad_left
            for (std::size_t ow = lo; ow < hi; ++ow) dst[ow] = shifted[ow - lo];
          } else {
            for (std::size_t ow = lo; ow < hi; ++ow) dst[ow] = line[ow * g.stride + s - g.pad_left];
          }
          for (std::size_t ow = hi; ow < g.out_w; ++ow) dst[ow] = 0.0f;
        }
      }
    }
  }
}

LAB_INLINE_LOOPS void col2im_add(const float* col, std::size_t ld, std::size_t channels, const window_geometry& g,
                                 float* image) {
  const std::size_t plane = g.in_h * g.in_w;
  for (std::size_t c = 0; c < channels; ++c) {
    float* dst_plane = image + c * plane;
    for (std::size_t r = 0; r < g.kernel_h; ++r) {
      for (std::size_t s = 0; s < g.kernel_w; ++s) {
        const float* row = col + ((c * g.kernel_h + r) * g.kernel_w + s) * ld;
        std::size_t lo = 0, hi = 0;
        valid_range(g, s, lo, hi);
        if (hi <= lo) continue;
        for (std::size_t oh = 0; oh < g.out_h; ++oh) {
          const long long ih = static_cast<long long>(oh * g.stride + r) - static_cast<long long>(g.pad_top);
          if (ih < 0 || ih >= static_cast<long long>(g.in_h)) continue;
          float* __restrict line = dst_plane + static_cast<std::size_t>(ih) * g.in_w;
          const float* __restrict src = row + oh * g.out_w;
          if (g.stride == 1) {
            float* __restrict shifted = line + lo + s - g.pad_left;
            for (std::size_t ow = lo; ow < hi; ++ow) shifted[ow - lo] += src[ow];
          } else {
            for (std::size_t ow = lo; ow < hi; ++ow) line[ow * g.stride + s - g.pad_left] += src[ow];
          }
        }
      }
    }
  }
}

}  // namespace lab::detail
