// Element formats, scale rules and the named scaled formats.
#include "libnum/scaled_format.hpp"

#include <array>
#include <charconv>
#include <stdexcept>

namespace num {

int element_bits(element_type t) {
  switch (t) {
    case element_type::e2m1: return 4;
    case element_type::e2m3:
    case element_type::e3m2: return 6;
    case element_type::e4m3:
    case element_type::e5m2:
    case element_type::int8: return 8;
  }
  return 8;
}

double element_max(element_type t) {
  if (t == element_type::int8) return 127.0 / 64.0;
  return element_value_grid(t)->max();
}

int element_emax(element_type t) {
  if (t == element_type::int8) return 0;
  return element_value_grid(t)->emax;
}

bool element_has_specials(element_type t) { return t == element_type::e4m3 || t == element_type::e5m2; }

std::optional<format> element_value_grid(element_type t) {
  // E2M1/E2M3/E3M2 spend their all-ones exponent on normal numbers and have
  // no NaN; libnum's `format` names that value set as the IEEE-style format
  // with the same p, emin, emax (its largest value uses the full significand).
  switch (t) {
    case element_type::e2m1: return format{2, 0, 2, true, true};
    case element_type::e2m3: return format{4, 0, 2, true, true};
    case element_type::e3m2: return format{3, -2, 4, true, true};
    case element_type::e4m3: return fp8_e4m3;
    case element_type::e5m2: return fp8_e5m2;
    case element_type::int8: return std::nullopt;
  }
  return std::nullopt;
}

std::string_view element_name(element_type t) {
  switch (t) {
    case element_type::e2m1: return "e2m1";
    case element_type::e2m3: return "e2m3";
    case element_type::e3m2: return "e3m2";
    case element_type::e4m3: return "e4m3";
    case element_type::e5m2: return "e5m2";
    case element_type::int8: return "int8";
  }
  return "?";
}

scale_type scale_type_of(scale_rule r) {
  switch (r) {
    case scale_rule::mx_floor:
    case scale_rule::mx_rceil:
    case scale_rule::mx_even: return scale_type::e8m0;
    case scale_rule::nvfp4: return scale_type::ue4m3;
    case scale_rule::fp32_amax:
    case scale_rule::fp32_amax_pow2:
    case scale_rule::fp32_given: return scale_type::fp32;
  }
  return scale_type::fp32;
}

std::string_view scale_rule_name(scale_rule r) {
  switch (r) {
    case scale_rule::mx_floor: return "mx-floor";
    case scale_rule::mx_rceil: return "mx-rceil";
    case scale_rule::mx_even: return "mx-even";
    case scale_rule::nvfp4: return "nvfp4";
    case scale_rule::fp32_amax: return "fp32-amax";
    case scale_rule::fp32_amax_pow2: return "fp32-amax-pow2";
    case scale_rule::fp32_given: return "fp32-given";
  }
  return "?";
}

std::optional<std::string> scaled_format_problem(const scaled_format& f) {
  if (f.block.rows == 0 || f.block.cols == 0) {
    return "block size " + std::to_string(f.block.rows) + "x" + std::to_string(f.block.cols) + " has a zero dimension";
  }
  if (f.rule == scale_rule::fp32_given && f.block != whole_tensor_block) {
    return "scale rule fp32-given takes one scale for the whole tensor (block whole_tensor_block)";
  }
  if (f.rule == scale_rule::nvfp4 && f.element != element_type::e2m1) {
    return "scale rule nvfp4 needs e2m1 elements (got " + std::string(element_name(f.element)) + ")";
  }
  return std::nullopt;
}

namespace {

constexpr std::array<named_scaled_format, 12> named{{
    {"mxfp8",
     {element_type::e4m3, scale_rule::mx_floor, {1, 32}},
     "OCP MX v1.0 MXFP8: E4M3 elements, E8M0 scale per 32"},
    {"mxfp8-e5m2",
     {element_type::e5m2, scale_rule::mx_floor, {1, 32}},
     "OCP MX v1.0 MXFP8: E5M2 elements, E8M0 scale per 32"},
    {"mxfp6-e2m3",
     {element_type::e2m3, scale_rule::mx_floor, {1, 32}},
     "OCP MX v1.0 MXFP6: E2M3 elements, E8M0 scale per 32"},
    {"mxfp6-e3m2",
     {element_type::e3m2, scale_rule::mx_floor, {1, 32}},
     "OCP MX v1.0 MXFP6: E3M2 elements, E8M0 scale per 32"},
    {"mxfp4",
     {element_type::e2m1, scale_rule::mx_floor, {1, 32}},
     "OCP MX v1.0 MXFP4: E2M1 elements, E8M0 scale per 32"},
    {"mxint8",
     {element_type::int8, scale_rule::mx_floor, {1, 32}},
     "OCP MX v1.0 MXINT8: INT8 (scale 2^-6) elements, E8M0 scale per 32"},
    {"nvfp4",
     {element_type::e2m1, scale_rule::nvfp4, {1, 16}},
     "NVFP4: E2M1 elements, E4M3 scale per 16, fp32 tensor scale"},
    {"nvfp4-2d",
     {element_type::e2m1, scale_rule::nvfp4, {16, 16}},
     "NVFP4 for weights: E4M3 scale per 16x16 tile, fp32 tensor scale"},
    {"fp8-tensor",
     {element_type::e4m3, scale_rule::fp32_amax, whole_tensor_block},
     "FP8 E4M3, one fp32 scale amax/448 (current scaling)"},
    {"fp8-tensor-e5m2",
     {element_type::e5m2, scale_rule::fp32_amax, whole_tensor_block},
     "FP8 E5M2, one fp32 scale amax/57344 (current scaling)"},
    {"fp8-block",
     {element_type::e4m3, scale_rule::fp32_amax, {1, 128}},
     "FP8 E4M3, fp32 scale per 1x128 (activations, DeepSeek-V3)"},
    {"fp8-block-128x128",
     {element_type::e4m3, scale_rule::fp32_amax, {128, 128}},
     "FP8 E4M3, fp32 scale per 128x128 (weights, DeepSeek-V3)"},
}};

}  // namespace

std::span<const named_scaled_format> named_scaled_formats() { return named; }

std::optional<scaled_format> find_scaled_format(std::string_view name) {
  if (name == "mxfp6") name = "mxfp6-e2m3";
  if (name == "mxfp8-e4m3") name = "mxfp8";
  for (const auto& n : named) {
    if (n.name == name) return n.format;
  }
  return std::nullopt;
}

std::string scaled_format_name(const scaled_format& f) {
  for (const auto& n : named) {
    if (n.format == f) return std::string(n.name);
  }
  const std::string block =
      f.block == whole_tensor_block ? "tensor" : std::to_string(f.block.rows) + "x" + std::to_string(f.block.cols);
  return std::string(element_name(f.element)) + "/" + std::string(scale_rule_name(f.rule)) + "/" + block;
}

bool looks_like_scaled_format(std::string_view text) {
  return find_scaled_format(text).has_value() || text.find('/') != std::string_view::npos;
}

namespace {

constexpr std::string_view parseable_rules = "mx-floor, mx-rceil, mx-even, nvfp4, fp32-amax, fp32-amax-pow2";

std::size_t parse_extent(std::string_view digits, std::string_view whole) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc{} || end != digits.data() + digits.size() || digits.empty()) {
    throw std::invalid_argument("scaled format '" + std::string(whole) + "': block '" + std::string(digits) +
                                "' is not N, RxC or tensor");
  }
  return value;
}

block_shape parse_block(std::string_view text, std::string_view whole) {
  if (text == "tensor") return whole_tensor_block;
  const auto x = text.find('x');
  if (x == std::string_view::npos) return {1, parse_extent(text, whole)};
  return {parse_extent(text.substr(0, x), whole), parse_extent(text.substr(x + 1), whole)};
}

}  // namespace

scaled_format parse_scaled_format(std::string_view text) {
  if (const auto named = find_scaled_format(text)) return *named;
  const std::string whole(text);
  const auto first = text.find('/');
  const std::string_view element_text = text.substr(0, first);
  std::optional<element_type> element;
  for (element_type t : all_element_types) {
    if (element_name(t) == element_text) element = t;
  }
  if (!element) {
    std::string names;
    for (const auto& n : named) names += std::string(names.empty() ? "" : ", ") + std::string(n.name);
    throw std::invalid_argument("unknown scaled format '" + whole + "' (expected " + names +
                                ", or ELEMENT/RULE[/BLOCK] with ELEMENT e2m1, e2m3, e3m2, e4m3, e5m2, int8)");
  }
  const std::string_view rest = first == std::string_view::npos ? std::string_view{} : text.substr(first + 1);
  const auto second = rest.find('/');
  const std::string_view rule_text = rest.substr(0, second);
  if (rule_text.empty()) {
    throw std::invalid_argument("scaled format '" + whole + "': element format " + std::string(element_text) +
                                " needs a scale rule (" + std::string(element_text) + "/RULE[/BLOCK] with RULE " +
                                std::string(parseable_rules) + ")");
  }
  std::optional<scale_rule> rule;
  for (scale_rule r : {scale_rule::mx_floor, scale_rule::mx_rceil, scale_rule::mx_even, scale_rule::nvfp4,
                       scale_rule::fp32_amax, scale_rule::fp32_amax_pow2}) {
    if (scale_rule_name(r) == rule_text) rule = r;
  }
  if (!rule) {
    throw std::invalid_argument("scaled format '" + whole + "': unknown scale rule '" + std::string(rule_text) +
                                "' (expected " + std::string(parseable_rules) + ")");
  }
  scaled_format f{*element, *rule, *rule == scale_rule::nvfp4 ? block_shape{1, 16} : block_shape{1, 32}};
  if (second != std::string_view::npos) f.block = parse_block(rest.substr(second + 1), text);
  if (auto why = scaled_format_problem(f)) throw std::invalid_argument("scaled format '" + whole + "': " + *why);
  return f;
}

}  // namespace num
