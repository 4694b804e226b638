#include "im2col.hpp"

#include <algorithm>
#include <vector>

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

// Output positions [lo, hi) along one axis whose input position
// o*stride - pad + tap lies inside [0, in).
void valid_span(std::size_t in, std::size_t out, std::size_t pad_before, std::size_t stride_size, std::size_t tap,
                std::size_t& lo, std::size_t& hi) {
  const long long pad = static_cast<long long>(pad_before) - static_cast<long long>(tap);
  const auto stride = static_cast<long long>(stride_size);
  // smallest o with o*stride >= pad
  long long first = pad <= 0 ? 0 : (pad + stride - 1) / stride;
  // largest o with o*stride - pad <= in - 1
  long long last = (static_cast<long long>(in) - 1 + pad) / stride;
  first = std::min<long long>(first, static_cast<long long>(out));
  last = std::min<long long>(last + 1, static_cast<long long>(out));
  lo = static_cast<std::size_t>(first);
  hi = static_cast<std::size_t>(std::max(first, last));
}

// Output columns [lo, hi) whose input column ow*stride - pad_left + s lies inside [0, in_w).
void valid_range(const window_geometry& g, std::size_t s, std::size_t& lo, std::size_t& hi) {
  valid_span(g.in_w, g.out_w, g.pad_left, g.stride, s, lo, hi);
}

// Output rows [lo, hi) whose input row oh*stride - pad_top + r lies inside [0, in_h).
void valid_rows(const window_geometry& g, std::size_t r, std::size_t& lo, std::size_t& hi) {
  valid_span(g.in_h, g.out_h, g.pad_top, g.stride, r, lo, hi);
}

// With stride 1 and out_w == in_w (a 'same' convolution), the input pixel of
// tap (r, s) for output pixel p = oh*W + ow is p + shift in the flattened
// plane, so a tap's whole col row is one contiguous copy of the plane (or a
// contiguous add back into it) over the valid output rows; only the up to
// |s - pad_left| columns per row that wrap around to the neighbouring image
// row need fixing. This walks the taps of one channel and hands each one's
// col row, flat shift and valid ranges to `tap`.
bool flat_taps(const window_geometry& g) { return g.stride == 1 && g.out_w == g.in_w; }

struct flat_tap {
  std::size_t row_lo, row_hi;  // valid output rows
  std::size_t col_lo, col_hi;  // valid output columns
  std::size_t p0, p1;          // flat output range whose input index p + shift lies inside the plane
  long long shift;
};

flat_tap make_flat_tap(const window_geometry& g, std::size_t r, std::size_t s) {
  flat_tap t{};
  valid_rows(g, r, t.row_lo, t.row_hi);
  valid_range(g, s, t.col_lo, t.col_hi);
  const auto w = static_cast<long long>(g.in_w);
  t.shift = (static_cast<long long>(r) - static_cast<long long>(g.pad_top)) * w + static_cast<long long>(s) -
            static_cast<long long>(g.pad_left);
  const long long plane = static_cast<long long>(g.in_h) * w;
  const long long rows_end = static_cast<long long>(t.row_hi) * w;
  const long long p0 = std::min(std::max(static_cast<long long>(t.row_lo) * w, -t.shift), rows_end);
  const long long p1 = std::min(rows_end, plane - t.shift);
  t.p0 = static_cast<std::size_t>(p0);
  t.p1 = static_cast<std::size_t>(std::max(p1, p0));
  return t;
}

// Sets the wrapped (invalid) columns of the valid rows of one col row to zero.
LAB_INLINE_LOOPS void zero_wrapped_columns(const window_geometry& g, const flat_tap& t, float* row) {
  if (t.col_lo == 0 && t.col_hi == g.out_w) return;
  for (std::size_t oh = t.row_lo; oh < t.row_hi; ++oh) {
    float* line = row + oh * g.out_w;
    for (std::size_t ow = 0; ow < t.col_lo; ++ow) line[ow] = 0.0f;
    for (std::size_t ow = t.col_hi; ow < g.out_w; ++ow) line[ow] = 0.0f;
  }
}

void im2col_flat(const float* image, std::size_t channels, const window_geometry& g, float* col, std::size_t ld) {
  const std::size_t plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  for (std::size_t r = 0; r < g.kernel_h; ++r)
    for (std::size_t s = 0; s < g.kernel_w; ++s) {
      const flat_tap t = make_flat_tap(g, r, s);
      for (std::size_t c = 0; c < channels; ++c) {
        const float* src = image + c * plane;
        float* row = col + ((c * g.kernel_h + r) * g.kernel_w + s) * ld;
        std::fill(row, row + t.p0, 0.0f);
        if (t.p1 > t.p0) {
          const float* from = src + static_cast<long long>(t.p0) + t.shift;
          std::copy(from, from + (t.p1 - t.p0), row + t.p0);
        }
        std::fill(row + t.p1, row + out_plane, 0.0f);
        zero_wrapped_columns(g, t, row);
      }
    }
}

// The adjoint of im2col_flat. The wrapped columns of `col` are set to zero
// first, so the contiguous add puts +0 where they wrap to, which leaves every
// value (and its sign) as it was: each pixel receives the same additions in
// the same order as with a per-row loop.
LAB_INLINE_LOOPS void col2im_flat(float* col, std::size_t ld, std::size_t channels, const window_geometry& g,
                                  float* image) {
  const std::size_t plane = g.in_h * g.in_w, taps = g.kernel_h * g.kernel_w;
  std::vector<flat_tap> tap_of(taps);
  for (std::size_t rs = 0; rs < taps; ++rs) tap_of[rs] = make_flat_tap(g, rs / g.kernel_w, rs % g.kernel_w);
  for (std::size_t c = 0; c < channels; ++c)
    for (std::size_t rs = 0; rs < taps; ++rs) {
      const flat_tap& t = tap_of[rs];
      if (t.p1 <= t.p0) continue;
      float* row = col + (c * taps + rs) * ld;
      zero_wrapped_columns(g, t, row);
      const float* __restrict src = row + t.p0;
      float* __restrict dst = image + c * plane + static_cast<long long>(t.p0) + t.shift;
      const std::size_t count = t.p1 - t.p0;
      for (std::size_t i = 0; i < count; ++i) dst[i] += src[i];
    }
}

}  // namespace

LAB_INLINE_LOOPS void im2col(const float* image, std::size_t channels, const window_geometry& g, float* col,
                             std::size_t ld) {
  if (flat_taps(g)) {
    im2col_flat(image, channels, g, col, ld);
    return;
  }
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

LAB_INLINE_LOOPS void col2im_add(float* col, std::size_t ld, std::size_t channels, const window_geometry& g,
                                 float* image) {
  if (flat_taps(g)) {
    col2im_flat(col, ld, channels, g, image);
    return;
  }
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
