// im2col / col2im for one image (private to lab).
//
// col has C*R*S rows and OH*OW columns: row (c*R + r)*S + s holds, for every
// output pixel, the input pixel the kernel tap (r, s) of channel c sees (zero
// where that falls in the padding).
#pragma once

#include "lab/conv2d.hpp"

namespace lab::detail {

/// Fills col from one image [C, H, W]; consecutive rows of col are `ld`
/// floats apart (ld >= OH*OW), so several images can sit side by side.
void im2col(const float* image, std::size_t channels, const window_geometry& g, float* col, std::size_t ld);
/// Adds col back into one image [C, H, W] (the adjoint of im2col). May
/// overwrite the entries of col that im2col would have set to zero (taps
/// falling in the padding) with zero.
void col2im_add(float* col, std::size_t ld, std::size_t channels, const window_geometry& g, float* image);

}  // namespace lab::detail
