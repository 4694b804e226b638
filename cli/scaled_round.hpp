// `numlab round ... --format mxfp4|nvfp4|ELEMENT/RULE[/BLOCK]`: values and
// dumped tensors quantized into a scaled format.
#pragma once

#include <cstdint>
#include <libnum/rounding.hpp>
#include <libnum/scaled_format.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace numlab::cli {

/// The values as one tensor (a row) quantized with each mode: per value its
/// block, the block's scale (code and value), the element code and the
/// decoded value with its error; then the call's counts and flags.
void print_scaled_rounding(const num::scaled_format& format, const std::vector<std::string>& values,
                           const std::vector<num::rounding>& modes, const num::round_spec& spec, std::uint64_t seed,
                           std::ostream& out);

/// Scaled-format statistics of a dumped tensor (one row) for each mode.
void print_scaled_stats(const num::scaled_format& format, const std::string& path, const std::vector<float>& values,
                        const std::vector<num::rounding>& modes, const num::round_spec& spec, std::uint64_t seed,
                        std::ostream& out);

/// "nvfp4 (e2m1 elements, nvfp4 scale in ue4m3, blocks 1x16)".
std::string scaled_format_title(const num::scaled_format& format);

}  // namespace numlab::cli
