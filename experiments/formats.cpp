// formats: the parameters of every built-in format (largest, smallest normal,
// smallest subnormal, epsilon, bit widths), beside what the MindSpore and
// Graphcore tutorials state, and a few conversions those tutorials describe.
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <libnum/small_float.hpp>

#include "experiments/experiment.hpp"
#include "experiments/printing.hpp"
#include "experiments/reference.hpp"
#include "experiments/summation.hpp"

namespace numlab::experiments {
namespace {

constexpr const char* mindspore = "MindSpore mixed-precision tutorial";
constexpr const char* graphcore = "Graphcore TF1 fp16 tutorial";

/// A value of F as a plain number for a numeric column: 5 significant digits, or all digits below 10^7.
template <num::format F>
std::string described(num::small_float<F> v) {
  const double x = static_cast<double>(v);
  return x < 1e7 && x == std::floor(x) ? fixed(x, 0) : significant(x, 5);
}

/// The exponent k of a value of F that is exactly 2^k, else "-": a column of its own so that the value's
/// column stays a number a program can read.
template <num::format F>
std::string log2_if_power_of_two(num::small_float<F> v) {
  const auto k = exponent_if_power_of_two(static_cast<double>(v));
  return k ? std::to_string(*k) : "-";
}

template <num::format F>
void add_format_row(table& t, const std::string& name) {
  using limits = std::numeric_limits<num::small_float<F>>;
  std::vector<std::string> row{name, std::to_string(F.total_bits()),
                               std::to_string(8 * sizeof(typename num::small_float<F>::storage_type)),
                               std::to_string(F.exponent_bits()), std::to_string(F.fraction_bits())};
  for (const auto v : {limits::max(), limits::min(), limits::denorm_min(), limits::epsilon()}) {
    row.push_back(described(v));
    row.push_back(log2_if_power_of_two(v));
  }
  row.push_back(F.infinities ? "yes" : "no");
  t.add_row(std::move(row));
}

table parameters_table() {
  table t("parameters",
          "Format parameters (5 significant digits; the exponent k beside each value that is exactly 2^k)",
          {"format", "bits", "stored in bits", "exponent bits", "fraction bits", "max", "log2(max)", "min normal",
           "log2(min normal)", "min subnormal", "log2(min subnormal)", "epsilon (1 to next)",
           "log2(epsilon)", "infinities"});
  add_format_row<num::binary16>(t, "fp16");
  add_format_row<num::bfloat16_format>(t, "bf16");
  add_format_row<num::fp8_e4m3>(t, "fp8 e4m3");
  add_format_row<num::fp8_e5m2>(t, "fp8 e5m2");
  add_format_row<num::tf32>(t, "tf32");
  add_format_row<num::binary32>(t, "fp32");
  return t;
}

template <num::format F>
num::small_float<F> nearest(double x) {
  const num::scoped_environment scope(rounding_environment(num::rounding::nearest_even));
  return num::small_float<F>{x};
}

/// Inputs the tutorials discuss, rounded to nearest-even.
constexpr std::array<double, 9> conversion_inputs{0.00006666666, 65504, 65519, 65520, 1e5, 6.10e-5,
                                                  3e-8,          num::pow2(-25), 1e-8};

table conversions_table() {
  table t("conversions", "Values rounded to nearest-even (shortest decimal of the stored value)",
          {"input", "fp16", "fp16, exact", "bf16", "fp8 e4m3", "fp8 e5m2", "subnormal in"});
  for (const double x : conversion_inputs) {
    const auto h = nearest<num::binary16>(x);
    const auto b = nearest<num::bfloat16_format>(x);
    const auto e4 = nearest<num::fp8_e4m3>(x);
    const auto e5 = nearest<num::fp8_e5m2>(x);
    std::string subnormal_in;
    for (const auto& [name, subnormal] : {std::pair{"fp16", is_subnormal(h)}, std::pair{"bf16", is_subnormal(b)},
                                          std::pair{"fp8 e4m3", is_subnormal(e4)}, std::pair{"fp8 e5m2", is_subnormal(e5)}})
      if (subnormal) subnormal_in += (subnormal_in.empty() ? "" : ", ") + std::string(name);
    t.add_row({significant(x, 10), shown_number(h), exact_decimal(static_cast<float>(h)), shown_number(b),
               shown_number(e4), shown_number(e5), subnormal_in.empty() ? "-" : subnormal_in});
  }
  return t;
}

std::vector<reference_check> published_checks() {
  using half = std::numeric_limits<num::float16>;
  using single = std::numeric_limits<num::small_float<num::binary32>>;
  const double fp32_max = static_cast<double>(single::max());
  std::vector<reference_check> c;
  c.push_back(check_printed({"fp16 max", mindspore, "65504", "fp16's max is (2 - 2^-10) * 2^15"},
                            shown(half::max())));
  c.push_back(check_printed({"fp16 min normal 2^-14, as written in the derivation", mindspore, "6.104e-05",
                             "2^-14 = 6.103515625e-05"},
                            scientific(static_cast<double>(half::min()), 3)));
  c.push_back(check_printed({"fp16 min normal, lower end of the 'valid range' (typeset 6.10x10^-5)", mindspore,
                             "6.10e-05", "2^-14 = 6.103515625e-05"},
                            scientific(static_cast<double>(half::min()), 2)));
  c.push_back(check_printed({"fp16 'precision range' = spacing of subnormals = min subnormal", mindspore, "2^-24",
                             "fp16 has 10 fraction bits and emin -14, so its subnormal spacing is 2^-24"},
                            power_of_two_or_decimal(static_cast<double>(half::denorm_min()))));
  c.push_back(check_printed({"fp16 range upper end, '[-65504,66504]'", mindspore, "66504",
                             "a typo: the range is [-65504, 65504]"},
                            shown(half::max())));
  c.push_back(check_printed({"fp32 smallest positive (subnormal)", mindspore, "1.4e-45", "2^-149 = 1.4e-45"},
                            scientific(static_cast<double>(single::denorm_min()), 1)));
  c.push_back(check_printed({"fp32 max", mindspore, "1.7e+38",
                             "1.7e38 is 2^127, the largest power of two; the largest fp32 is (2 - 2^-23) * 2^127 = "
                             "3.4028235e+38"},
                            scientific(fp32_max, 1)));
  c.push_back(check_printed({"a value beyond fp16's range (65520) 'is set to 0'", mindspore, "0",
                             "values above the range overflow to inf (65520 is the first that rounds up past "
                             "65504); only values below half the smallest subnormal become 0"},
                            shown(nearest<num::binary16>(65520))));
  c.push_back(check_printed({"fp16 max", graphcore, "65504", "fp16's max is (2 - 2^-10) * 2^15"},
                            shown(half::max())));
  c.push_back(check_printed({"fp16 smallest positive (subnormal), 'approximately'", graphcore, "6.0e-08",
                             "2^-24 = 5.96e-08"},
                            scientific(static_cast<double>(half::denorm_min()), 1)));
  c.push_back(check_printed({"fp16 underflow threshold, half the smallest subnormal", graphcore, "3.0e-08",
                             "2^-25 = 2.98e-08",
                             "2^-25 itself is a tie and rounds to 0 (even); anything above it rounds to 2^-24"},
                            scientific(static_cast<double>(half::denorm_min()) / 2, 1)));
  c.push_back(check_printed({"fp32 max, 'approximately'", graphcore, "1.7e+38",
                             "1.7e38 is 2^127; the largest fp32 is 3.4028235e+38"},
                            scientific(fp32_max, 1)));
  c.push_back(check_printed({"fp32 smallest positive, 'approximately'", graphcore, "1.7e-38",
                             "fp32's smallest normal is 2^-126 = 1.2e-38 and its smallest subnormal 2^-149 = "
                             "1.4e-45; 1.7e-38 is neither"},
                            scientific(static_cast<double>(single::min()), 1)));
  return c;
}

experiment_result run(const run_options&) {
  experiment_result r;
  r.settings = {"No random choices; the values follow from each format's parameters (p, emin, emax).",
                "Conversions round the fp64 input once into the format, nearest-even, with IEEE overflow: "
                "e4m3 has no infinity, so a value beyond its range becomes NaN."};
  r.tables.push_back(parameters_table());
  r.tables.push_back(conversions_table());
  r.checks = published_checks();
  // At 6 decimals the unrounded input prints the same, so no rounding error
  // could show: a fact, not a verdict.
  const double stored = static_cast<double>(nearest<num::binary16>(0.00006666666));
  r.facts.push_back({"0.00006666666 stored in fp16, printed with 6 decimals", mindspore, "0.000067",
                     fixed(stored, 6) + " (stored exactly: " + significant(stored, 10) + ")",
                     "0.00006666666 itself prints 0.000067 at 6 decimals too, so the comparison cannot fail"});
  return r;
}

}  // namespace

experiment formats_experiment() {
  return {"formats", "Largest, smallest normal and subnormal, epsilon and bits of fp16, bf16, FP8, TF32, fp32", true,
          &run};
}

}  // namespace numlab::experiments
