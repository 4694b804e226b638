#include "testfloat_functions.hpp"

#include <algorithm>
#include <bit>
#include <vector>

#include <libnum/arithmetic.hpp>
#include <libnum/codec.hpp>
#include <libnum/compare.hpp>
#include <libnum/convert.hpp>
#include <libnum/format.hpp>

namespace numlab::cli::testfloat {
namespace {

using operands = std::span<const std::uint64_t>;
using binary_operation = num::rounded (*)(const num::format&, std::uint32_t, std::uint32_t,
                                          const num::round_spec&, std::uint32_t);
using comparison_operation = num::predicate (*)(const num::format&, std::uint32_t, std::uint32_t);
using integer_conversion = num::integer_result (*)(const num::format&, std::uint32_t, const num::round_spec&,
                                                   std::uint32_t, bool);

std::uint32_t low32(std::uint64_t x) { return static_cast<std::uint32_t>(x); }

outcome from(num::rounded r) { return {r.bits, r.raised}; }

// TestFloat expects round-to-odd, where it reaches an integer rounding, to act
// as round toward zero (TestFloat-general, "Conversion Operations").
num::round_spec integer_rounding(const evaluation_options& o, bool toward_zero) {
  num::round_spec spec = o.spec;
  if (toward_zero || spec.mode == num::rounding::to_odd) spec.mode = num::rounding::toward_zero;
  return spec;
}

template <num::format F, binary_operation Op>
outcome binary(operands x, const evaluation_options& o) {
  return from(Op(F, low32(x[0]), low32(x[1]), o.spec, 0));
}

template <num::format F>
outcome square_root(operands x, const evaluation_options& o) {
  return from(num::sqrt(F, low32(x[0]), o.spec));
}

template <num::format F>
outcome multiply_add(operands x, const evaluation_options& o) {
  return from(num::fma(F, low32(x[0]), low32(x[1]), low32(x[2]), o.spec));
}

template <num::format F, comparison_operation Op>
outcome comparison(operands x, const evaluation_options&) {
  const num::predicate p = Op(F, low32(x[0]), low32(x[1]));
  return {p.value ? 1u : 0u, p.raised};
}

template <num::format F>
outcome round_to_int(operands x, const evaluation_options& o) {
  return from(num::round_to_integral(F, low32(x[0]), integer_rounding(o, false), 0, o.exact));
}

template <num::format F, integer_conversion Op, bool TowardZero>
outcome to_integer(operands x, const evaluation_options& o) {
  const num::integer_result r = Op(F, low32(x[0]), integer_rounding(o, TowardZero), 0, o.exact);
  return {static_cast<std::uint64_t>(r.value), r.raised};
}

template <num::format F, int Width>
outcome from_integer(operands x, const evaluation_options& o) {
  const std::int64_t v = Width == 32 ? std::int64_t{static_cast<std::int32_t>(low32(x[0]))}
                                     : static_cast<std::int64_t>(x[0]);
  return from(num::from_int64(F, v, o.spec));
}

template <num::format F>
outcome from_f32(operands x, const evaluation_options& o) {
  return from(num::convert(num::binary32, low32(x[0]), F, o.spec));
}

template <num::format F>
outcome from_f64(operands x, const evaluation_options& o) {
  return from(num::from_double(F, std::bit_cast<double>(x[0]), o.spec));
}

// Widening is exact; only a signalling NaN raises a flag (invalid), as it is
// quieted. A NaN result follows o.spec.nans: into f32 through libnum's
// conversion; binary64 is no libnum format, so for f64 the table's rule of
// docs/NUMERICS.md ("NaNs") is applied here: the default NaN is sign 0, quiet
// bit set, rest 0; the canonical NaN is sign 0, every other bit set.
template <num::format F, typename Wide>
outcome widen(operands x, const evaluation_options& o) {
  if constexpr (sizeof(Wide) == 4) {
    return from(num::convert(F, low32(x[0]), num::binary32, o.spec));
  } else {
    const num::flags raised = num::is_signaling_nan(F, low32(x[0])) ? num::flags::invalid : num::flags::none;
    const auto bits = std::bit_cast<std::uint64_t>(num::to_double(F, low32(x[0])));
    if (!num::is_nan(F, low32(x[0]))) return {bits, raised};
    switch (o.spec.nans) {
      case num::nan_convention::arm_default_nan: return {0x7FF8000000000000, raised};
      case num::nan_convention::cuda_canonical: return {0x7FFFFFFFFFFFFFFF, raised};
      case num::nan_convention::first_operand:
      case num::nan_convention::x86_sse: break;
    }
    return {bits, raised};
  }
}

// The functions of one 16-bit format, named with TestFloat's prefix for it.
template <num::format F>
void add_family(std::vector<function_info>& table, const std::string& prefix, value_type type) {
  using vt = value_type;
  const auto add = [&table](std::string name, int arity, vt operand, vt result, evaluator e) {
    table.push_back({std::move(name), arity, operand, result, e});
  };
  add(prefix + "_add", 2, type, type, &binary<F, num::add>);
  add(prefix + "_sub", 2, type, type, &binary<F, num::sub>);
  add(prefix + "_mul", 2, type, type, &binary<F, num::mul>);
  add(prefix + "_div", 2, type, type, &binary<F, num::div>);
  add(prefix + "_sqrt", 1, type, type, &square_root<F>);
  add(prefix + "_mulAdd", 3, type, type, &multiply_add<F>);
  add(prefix + "_eq", 2, type, vt::boolean, &comparison<F, num::eq>);
  add(prefix + "_le", 2, type, vt::boolean, &comparison<F, num::le>);
  add(prefix + "_lt", 2, type, vt::boolean, &comparison<F, num::lt>);
  add(prefix + "_eq_signaling", 2, type, vt::boolean, &comparison<F, num::eq_signaling>);
  add(prefix + "_le_quiet", 2, type, vt::boolean, &comparison<F, num::le_quiet>);
  add(prefix + "_lt_quiet", 2, type, vt::boolean, &comparison<F, num::lt_quiet>);
  add(prefix + "_roundToInt", 1, type, type, &round_to_int<F>);
  add(prefix + "_to_i32", 1, type, vt::i32, &to_integer<F, num::to_int32, false>);
  add(prefix + "_to_i64", 1, type, vt::i64, &to_integer<F, num::to_int64, false>);
  add(prefix + "_to_i32_r_minMag", 1, type, vt::i32, &to_integer<F, num::to_int32, true>);
  add(prefix + "_to_i64_r_minMag", 1, type, vt::i64, &to_integer<F, num::to_int64, true>);
  add("i32_to_" + prefix, 1, vt::i32, type, &from_integer<F, 32>);
  add("i64_to_" + prefix, 1, vt::i64, type, &from_integer<F, 64>);
  add("f32_to_" + prefix, 1, vt::f32, type, &from_f32<F>);
  add("f64_to_" + prefix, 1, vt::f64, type, &from_f64<F>);
  add(prefix + "_to_f32", 1, type, vt::f32, &widen<F, float>);
  add(prefix + "_to_f64", 1, type, vt::f64, &widen<F, double>);
}

std::vector<function_info> build_table() {
  std::vector<function_info> table;
  add_family<num::binary16>(table, "f16", value_type::f16);
  add_family<num::bfloat16_format>(table, "bf16", value_type::bf16);
  return table;
}

}  // namespace

std::span<const function_info> functions() {
  static const std::vector<function_info> table = build_table();
  return table;
}

const function_info* find_function(std::string_view name) {
  const auto all = functions();
  const auto it = std::find_if(all.begin(), all.end(), [name](const function_info& f) { return f.name == name; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace numlab::cli::testfloat
