// swamping-add: x + 0.25 - 0.25 for small x, from the Graphcore fp16 tutorial
// ("Review of common numerical issues"), in fp16 as the tutorial ran it with
// NumPy, then in bf16 and fp32 and in every rounding mode.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <libnum/small_float.hpp>

#include "experiments/experiment.hpp"
#include "experiments/printing.hpp"
#include "experiments/reference.hpp"
#include "experiments/summation.hpp"

namespace numlab::experiments {
namespace {

constexpr double big = 0.25;
constexpr std::array<double, 6> small_numbers{0.0004, 0.2, 0.02, 0.002, 0.0002, 0.0001};
constexpr const char* graphcore = "Graphcore TF1 fp16 tutorial";

/// The three values the tutorial's NumPy code goes through: x stored in F,
/// x + big and (x + big) - big. Inputs are rounded to nearest-even (NumPy's
/// astype on the host); the addition and subtraction round in `ops`.
template <num::format F>
struct trip {
  num::small_float<F> stored, sum, result;
};
template <num::format F>
trip<F> add_then_subtract(double x, const num::environment& ops) {
  using T = num::small_float<F>;
  const num::scoped_environment host(rounding_environment(num::rounding::nearest_even));
  const T stored{x};
  const T b{big};
  const num::scoped_environment device(ops);
  const T sum = stored + b;
  return {stored, sum, sum - b};
}

/// x + big - big over `runs` stochastic runs (run k on Philox stream k).
template <num::format F>
sample_summary stochastic_results(double x, std::uint64_t seed, int runs) {
  std::vector<double> results;
  for (int k = 0; k < runs; ++k) {
    const auto env = rounding_environment(num::rounding::stochastic, 32, seed, static_cast<std::uint64_t>(k));
    results.push_back(static_cast<double>(add_then_subtract<F>(x, env).result));
  }
  return summarize(results);
}

std::string python_line(double x, double result) {
  return fixed(x, 4) + " + 0.25 - 0.25 = " + fixed(result, 7) + ", relative error: " + signed_percent((result - x) / x, 1);
}

table tutorial_table() {
  table t("fp16-tutorial", "x + 0.25 - 0.25 in fp16, nearest-even, as the tutorial's NumPy code computes it",
          {"x", "fp16(x), exact", "fp16(x + 0.25), exact", "result, exact", "result, 7 decimals", "relative error (%)"});
  const auto ne = rounding_environment(num::rounding::nearest_even);
  for (const double x : small_numbers) {
    const auto r = add_then_subtract<num::binary16>(x, ne);
    const double result = static_cast<double>(r.result);
    t.add_row({significant(x, 6), exact_decimal(static_cast<float>(r.stored)), exact_decimal(static_cast<float>(r.sum)),
               exact_decimal(static_cast<float>(r.result)), fixed(result, 7), signed_percent_value((result - x) / x, 1)});
  }
  return t;
}

// x + 0.25 - 0.25 for each x of small_numbers in one format and mode: the
// results (stochastic rounding: the mean of the runs), their relative
// errors in %, and (stochastic only) the standard error of the mean in % of x.
struct mode_row {
  std::string format, rounding;
  std::vector<double> result, error_percent, standard_error_percent;
};

template <num::format F>
void add_mode_rows(std::vector<mode_row>& rows, const std::string& format_name, bool every_mode,
                   const run_options& options, int stochastic_runs_count) {
  for (const num::rounding mode : num::all_roundings) {
    if (!every_mode && mode != num::rounding::nearest_even) continue;
    mode_row row{format_name, std::string(num::rounding_name(mode)), {}, {}, {}};
    for (const double x : small_numbers) {
      double value = 0;
      if (mode != num::rounding::stochastic) {
        value = static_cast<double>(add_then_subtract<F>(x, rounding_environment(mode)).result);
      } else {
        const sample_summary s = stochastic_results<F>(x, options.seed, stochastic_runs_count);
        value = s.mean;
        row.standard_error_percent.push_back(100 * s.standard_deviation / std::sqrt(static_cast<double>(s.count)) / x);
      }
      row.result.push_back(value);
      row.error_percent.push_back(100 * (value - x) / x);
    }
    rows.push_back(std::move(row));
  }
}

// The results, their relative errors and the stochastic rows' standard
// errors as three tables of numbers (one quantity per cell, the unit in the
// title and header).
std::vector<table> mode_tables(const run_options& options, int stochastic_runs) {
  std::vector<mode_row> rows;
  add_mode_rows<num::binary32>(rows, "fp32", false, options, stochastic_runs);
  add_mode_rows<num::binary16>(rows, "fp16", true, options, stochastic_runs);
  add_mode_rows<num::bfloat16_format>(rows, "bf16", true, options, stochastic_runs);
  std::vector<std::string> columns{"format", "rounding"}, error_columns = columns, se_columns{"format"};
  for (const double x : small_numbers) {
    columns.push_back("x = " + significant(x, 6));
    error_columns.push_back("x = " + significant(x, 6) + " (%)");
    se_columns.push_back("x = " + significant(x, 6) + " (%)");
  }
  const std::string runs = std::to_string(stochastic_runs);
  table results("modes", "x + 0.25 - 0.25 by format and rounding mode (sr: the mean of " + runs + " runs)", columns);
  table errors("modes-relative-error", "Relative error (result - x) / x of the results above, in %", error_columns);
  table standard_errors("stochastic-standard-error",
                        "sr: standard error of the mean of " + runs + " runs, in % of x", se_columns);
  for (const mode_row& r : rows) {
    std::vector<std::string> result_cells{r.format, r.rounding}, error_cells = result_cells, se_cells{r.format};
    for (std::size_t i = 0; i < r.result.size(); ++i) {
      result_cells.push_back(significant(r.result[i], 7));
      error_cells.push_back(signed_percent_value(r.error_percent[i] / 100, 1));
    }
    results.add_row(std::move(result_cells));
    errors.add_row(std::move(error_cells));
    if (r.standard_error_percent.empty()) continue;
    for (const double se : r.standard_error_percent) se_cells.push_back(fixed(se, 1));
    standard_errors.add_row(std::move(se_cells));
  }
  return {results, errors, standard_errors};
}

std::vector<reference_check> published_checks() {
  const auto ne = rounding_environment(num::rounding::nearest_even);
  const auto fp16 = [&](double x) { return add_then_subtract<num::binary16>(x, ne); };
  std::vector<reference_check> checks;
  checks.push_back(check_printed(
      {"0.0004 + 0.25 - 0.25 in fp16 (NumPy print)", graphcore, "0.0004833",
       "fp16 gives exactly 0.00048828125 = 2*2^-12, printed 0.0004883; every x + 0.25 - 0.25 here is a "
       "multiple of 2^-12, so 0.0004833 cannot come out: the tutorial transposed two digits"},
      numpy_print(fp16(0.0004).result)));
  checks.push_back(check_printed(
      {"nearest fp16 value to 0.2504 (7 decimals)", graphcore, "0.2504833",
       "fp16 rounds 0.2504 to 0.25048828125 = 0.25 + 2*2^-12: the same transposed digits as above"},
      fixed(static_cast<double>(fp16(0.0004).sum), 7)));
  for (const auto& [x, line, why] : std::array<std::array<const char*, 3>, 4>{{
           {"0.2", "0.2000 + 0.25 - 0.25 = 0.1999512, relative error: -0.0%", ""},
           {"0.02", "0.0200 + 0.25 - 0.25 = 0.0200205, relative error: +0.1%",
            "fp16 gives 0.02001953125 = 82*2^-12, i.e. 0.0200195 to 7 decimals; the tutorial's 0.0200205 has a "
            "wrong digit (its relative error, +0.1%, is right)"},
           {"0.002", "0.0020 + 0.25 - 0.25 = 0.0019531, relative error: -2.3%", ""},
           {"0.0002", "0.0002 + 0.25 - 0.25 = 0.0002441, relative error: +22.1%", ""},
       }}) {
    const double value = std::stod(x);
    checks.push_back(check_printed({std::string(x) + " + 0.25 - 0.25 in fp16", graphcore, line, why},
                                   python_line(value, static_cast<double>(fp16(value).result))));
  }
  checks.push_back(check_printed({"0.0001 + 0.25 - 0.25 in fp16 (NumPy print)", graphcore, "0.0",
                                  "fp16 nearest-even should swamp 0.0001 against 0.25"},
                                 numpy_print(fp16(0.0001).result)));
  return checks;
}

template <num::format F>
double worst_nearest_even_error() {
  double worst = 0;
  for (const double x : small_numbers) {
    const double value = static_cast<double>(add_then_subtract<F>(x, rounding_environment(num::rounding::nearest_even)).result);
    worst = std::max(worst, std::abs(value - x) / x);
  }
  return worst;
}

template <num::format F>
void list_total_swamping(std::string& out, const std::string& format_name) {
  for (const num::rounding mode : num::all_roundings) {
    if (mode == num::rounding::stochastic) continue;
    if (static_cast<double>(add_then_subtract<F>(0.0001, rounding_environment(mode)).result) == 0) {
      out += (out.empty() ? "" : ", ") + format_name + " " + std::string(num::rounding_name(mode));
    }
  }
}

std::vector<std::string> findings() {
  std::string swamped;
  list_total_swamping<num::binary16>(swamped, "fp16");
  list_total_swamping<num::bfloat16_format>(swamped, "bf16");
  return {"0.0001 + 0.25 rounds back to 0.25, so the result is 0 (total swamping), in: " + swamped +
              " (rd gives -0: x - x is -0 when rounding toward -inf).",
          "Largest |relative error| over these x with nearest-even: fp32 " +
              signed_percent(worst_nearest_even_error<num::binary32>(), 4) + ", fp16 " +
              signed_percent(worst_nearest_even_error<num::binary16>(), 1) + ", bf16 " +
              signed_percent(worst_nearest_even_error<num::bfloat16_format>(), 1) + "."};
}

experiment_result run(const run_options& options) {
  const int stochastic_runs = options.tiny ? 100 : 1000;
  experiment_result r;
  r.settings = {
      "Inputs x and 0.25 are rounded to the format with nearest-even (NumPy's astype on the host); the addition "
      "and the subtraction round in the mode of the row.",
      "Stochastic rounding: 32 random bits; " + stochastic_runs_note(options.seed, stochastic_runs) +
          "; its cells are the mean of the runs, with the standard error in a table of its own.",
      "Relative error = (result - x) / x with x the exact decimal input, as the tutorial computes it."};
  r.tables.push_back(tutorial_table());
  for (table& t : mode_tables(options, stochastic_runs)) r.tables.push_back(std::move(t));
  r.findings = findings();
  r.checks = published_checks();
  return r;
}

}  // namespace

experiment swamping_add_experiment() {
  return {"swamping-add", "0.0004 + 0.25 - 0.25 and friends in fp16, bf16 and fp32, in every rounding mode", true,
          &run};
}

}  // namespace numlab::experiments
