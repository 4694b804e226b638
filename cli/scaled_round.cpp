// Quantizing values and dumped tensors into scaled formats for `numlab round`.
#include "scaled_round.hpp"

#include <cmath>
#include <cstdio>
#include "usage_error.hpp"
#include <libnum/codec.hpp>
#include <libnum/scaled_array.hpp>
#include <libnum/scaled_stats.hpp>
#include <libnum/text.hpp>
#include <stdexcept>

#include "cli_table.hpp"
#include "cli_text.hpp"

namespace numlab::cli {
namespace {

std::string_view scale_type_name(num::scale_type t) {
  switch (t) {
    case num::scale_type::e8m0: return "e8m0";
    case num::scale_type::ue4m3: return "ue4m3";
    case num::scale_type::fp32: return "fp32";
  }
  return "?";
}

std::string block_text(const num::block_shape& b) {
  if (b == num::whole_tensor_block) return "the whole tensor";
  return std::to_string(b.rows) + "x" + std::to_string(b.cols);
}

num::scaled_options options_for(const num::scaled_format& format, const num::round_spec& spec, num::rounding mode,
                                std::uint64_t seed) {
  num::scaled_options o;
  o.format = format;
  o.spec = spec;
  o.spec.mode = mode;
  o.seed = seed;
  return o;
}

std::string counts_text(const num::scaled_result& r) {
  const num::scaled_counts& c = r.counts;
  return std::to_string(c.blocks) + " blocks, inexact " + std::to_string(c.inexact) + ", block underflow " +
         std::to_string(c.block_underflow) + ", underflow to zero " + std::to_string(c.underflow_to_zero) +
         ", saturated " + std::to_string(c.saturated) + ", scale underflow " + std::to_string(c.scale_underflow) +
         ", scale overflow " + std::to_string(c.scale_overflow) + ", NaN-scale blocks " +
         std::to_string(c.nan_scale_blocks) + "; flags " + num::flags_to_string(r.raised);
}

}  // namespace

std::string scaled_format_title(const num::scaled_format& f) {
  return num::scaled_format_name(f) + " (" + std::string(num::element_name(f.element)) + " elements, " +
         std::string(num::scale_rule_name(f.rule)) + " scale in " +
         std::string(scale_type_name(num::scale_type_of(f.rule))) + ", blocks " + block_text(f.block) + ")";
}

void print_scaled_rounding(const num::scaled_format& format, const std::vector<std::string>& values,
                           const std::vector<num::rounding>& modes, const num::round_spec& spec, std::uint64_t seed,
                           std::ostream& out) {
  std::vector<float> in;
  for (const std::string& text : values) {
    try {
      in.push_back(num::to_float(num::binary32, num::parse_value(num::binary32, text, num::round_spec{}).bits));
    } catch (const std::invalid_argument& e) {
      throw usage_error(std::string("round: ") + e.what());
    }
  }
  const num::tensor_shape shape{1, in.size()};
  const num::scale_type st = num::scale_type_of(format.rule);
  const int scale_digits = st == num::scale_type::fp32 ? 8 : 2;
  const int element_digits = num::element_bits(format.element) > 4 ? 2 : 1;
  const std::size_t tile = std::min(format.block.cols, in.size());
  for (const num::rounding mode : modes) {
    const num::scaled_options o = options_for(format, spec, mode, seed);
    std::vector<std::uint8_t> elements(num::element_bytes(format.element, o.layout, in.size()));
    std::vector<std::uint32_t> scales(num::scale_count(format, shape));
    num::scaled_result r;
    std::vector<float> back(in.size());
    try {
      r = num::quantize(in, shape, elements, scales, o);
      num::dequantize(elements, scales, r.tensor_scale, shape, back, o);
    } catch (const std::invalid_argument& e) {
      throw usage_error(std::string("round --format ") + num::scaled_format_name(format) + ": " + e.what());
    }
    text_table table({{"value"},
                      {"mode"},
                      {"block", align::right},
                      {"scale code"},
                      {"scale", align::right},
                      {"element code"},
                      {"element", align::right},
                      {"result", align::right},
                      {"abs error", align::right}});
    for (std::size_t i = 0; i < in.size(); ++i) {
      const std::size_t block = i / tile;
      const std::uint32_t code = num::element_code_at(elements, format.element, o.layout, i);
      const double error = static_cast<double>(back[i]) - static_cast<double>(in[i]);
      table.add_row({values[i], std::string(num::rounding_name(mode)), std::to_string(block),
                     "0x" + hex_text(scales[block], scale_digits), shortest_text(num::scale_value(st, scales[block])),
                     "0x" + hex_text(code, element_digits), shortest_text(num::element_value(format.element, code)),
                     shortest_text(back[i]), std::isfinite(error) ? approximate_text(error) : "-"});
    }
    table.print(out);
    if (format.rule == num::scale_rule::nvfp4) out << "tensor scale " << shortest_text(r.tensor_scale) << '\n';
    out << "counts: " << counts_text(r) << "\n\n";
  }
  out << "result = element x scale" << (format.rule == num::scale_rule::nvfp4 ? " x tensor scale" : "")
      << "; the values form one row of a tensor, "
      << (format.block == num::whole_tensor_block ? std::string("all in one block")
                                                  : "in blocks of " + std::to_string(format.block.cols))
      << '\n';
}

void print_scaled_stats(const num::scaled_format& format, const std::string& path, const std::vector<float>& values,
                        const std::vector<num::rounding>& modes, const num::round_spec& spec, std::uint64_t seed,
                        std::ostream& out) {
  for (const num::rounding mode : modes) {
    num::scaled_stats s;
    try {
      s = num::compute_scaled_stats(values, {1, values.size()}, options_for(format, spec, mode, seed));
    } catch (const std::invalid_argument& e) {
      throw usage_error(std::string("round --stats: ") + e.what());
    }
    out << path << ": " << values.size() << " values, mode " << num::rounding_name(mode) << '\n';
    text_table table({{""}, {"", align::right}});
    table.add_row({"blocks", std::to_string(s.counts.blocks)});
    table.add_row({"block underflow", std::to_string(s.counts.block_underflow) + " (" +
                                          approximate_text(100 * s.block_underflow_fraction()) +
                                          "% of nonzero finite values)"});
    table.add_row({"underflow to zero", std::to_string(s.counts.underflow_to_zero)});
    table.add_row({"saturated", std::to_string(s.counts.saturated) + " (" +
                                    approximate_text(100 * s.saturation_fraction()) + "% of finite values)"});
    table.add_row({"scale underflow / overflow",
                   std::to_string(s.counts.scale_underflow) + " / " + std::to_string(s.counts.scale_overflow)});
    table.add_row({"NaN-scale blocks", std::to_string(s.counts.nan_scale_blocks)});
    table.add_row({"SNR", approximate_text(s.snr_db()) + " dB"});
    if (format.rule == num::scale_rule::nvfp4) table.add_row({"tensor scale", shortest_text(s.tensor_scale)});
    double lo = INFINITY, hi = 0, sum = 0;
    std::size_t n = 0;
    for (double ratio : s.amax_over_scale) {
      if (std::isnan(ratio) || ratio == 0) continue;
      lo = std::min(lo, ratio);
      hi = std::max(hi, ratio);
      sum += ratio;
      ++n;
    }
    if (n > 0) {
      table.add_row({"block amax / scale", "min " + approximate_text(lo) + ", mean " +
                                               approximate_text(sum / static_cast<double>(n)) + ", max " +
                                               approximate_text(hi) + " (element max " +
                                               shortest_text(num::element_max(format.element)) + ")"});
    }
    table.print(out, 2);
    out << "  block scales by binade (scale in [2^k, 2^(k+1)): blocks)\n";
    text_table histogram({{"k", align::right}, {"blocks", align::right}});
    for (const auto& [k, count] : s.scale_binades) histogram.add_row({std::to_string(k), std::to_string(count)});
    if (s.zero_scale_blocks > 0) histogram.add_row({"zero", std::to_string(s.zero_scale_blocks)});
    histogram.print(out, 4);
    out << '\n';
  }
}

}  // namespace numlab::cli
