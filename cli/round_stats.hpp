// `numlab round --stats FILE [--raw]`: tensor statistics of a dumped tensor as
// seen by the chosen format and rounding mode.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <libnum/format.hpp>
#include <libnum/philox.hpp>
#include <libnum/rounding.hpp>

namespace numlab::cli {

/// The fp32 values of a file: text with one number per line (decimal or
/// hex-float, read as fp32 with nearest-even; blank lines skipped), or with
/// `raw` little-endian fp32. Throws lab::input_error naming the file (and the
/// line) for a missing file, a line that is not a number, or a raw file whose
/// size is not a multiple of 4.
std::vector<float> read_stats_values(const std::string& path, bool raw);

/// Writes the statistics of `values` rounded into `target` with `spec`
/// (stochastic rounding: element i uses random.word(i)).
void print_round_stats(const std::string& path, const std::vector<float>& values, const num::format& target,
                       const num::round_spec& spec, const num::random_stream& random, std::ostream& out);

}  // namespace numlab::cli
