// swamping-sum: 0.0001 added 10,000 times from 0, from the Graphcore fp16
// tutorial: nearest-even in fp16 (stalls at 0.25), bf16 and fp32; stochastic
// rounding over 20 runs; r-bit stochastic rounding; Kahan summation.
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

constexpr double addend = 0.0001;
constexpr std::int64_t additions = 10000;
constexpr const char* graphcore = "Graphcore TF1 fp16 tutorial";
// The tutorial's 20 stochastic-rounding sums on an IPU ("Here's some example output").
constexpr std::array<double, 20> published_runs{1.005, 0.993, 0.991, 0.9966, 0.986,  0.997,  1.019,
                                                0.9985, 1.004, 1.03, 0.991, 0.9873, 0.9946, 1.013,
                                                1.006, 0.9995, 1.02, 0.9653, 0.9854, 0.9985};
constexpr std::array<int, 6> random_bit_counts{1, 2, 4, 8, 16, 32};

/// The addend stored in F, rounded to nearest-even on the host as NumPy and
/// the tutorial's feed_dict do, whatever mode the additions then use.
template <num::format F>
num::small_float<F> stored_addend() {
  const num::scoped_environment host(rounding_environment(num::rounding::nearest_even));
  return num::small_float<F>{addend};
}

template <num::format F>
sum_trace<num::small_float<F>> sum_in(const num::environment& env) {
  const auto a = stored_addend<F>();
  const num::scoped_environment scope(env);
  return running_sum<num::small_float<F>>([a](std::int64_t) { return a; }, additions);
}

template <num::format F>
num::small_float<F> kahan_in() {
  const auto a = stored_addend<F>();
  const num::scoped_environment scope(rounding_environment(num::rounding::nearest_even));
  return compensated_running_sum<num::small_float<F>>([a](std::int64_t) { return a; }, additions);
}

/// fp16 sums with r-bit stochastic rounding; run k draws from Philox stream (seed, k).
std::vector<double> stochastic_runs(int random_bits, std::uint64_t seed, int runs) {
  std::vector<double> sums;
  for (int k = 0; k < runs; ++k) {
    const auto env = rounding_environment(num::rounding::stochastic, random_bits, seed, static_cast<std::uint64_t>(k));
    sums.push_back(static_cast<double>(sum_in<num::binary16>(env).sum));
  }
  return sums;
}

template <num::format F>
void add_nearest_even_row(table& t, const std::string& name) {
  const auto trace = sum_in<F>(rounding_environment(num::rounding::nearest_even));
  const double sum = static_cast<double>(trace.sum);
  const double kahan = static_cast<double>(kahan_in<F>());
  t.add_row({name, exact_decimal(static_cast<float>(stored_addend<F>())), significant(sum, 8),
             signed_percent_value(sum - 1.0, 2), trace.first_stall == 0 ? std::string() : std::to_string(trace.first_stall),
             significant(kahan, 8), signed_percent_value(kahan - 1.0, 2)});
}

table nearest_even_table() {
  table t("nearest-even",
          "0 + 0.0001 + ... (10,000 additions), nearest-even (first addition that changes nothing: empty where "
          "none does)",
          {"format", "0.0001 stored as", "sum", "error vs 1.0 (%)", "first addition that changes nothing",
           "Kahan-compensated sum", "Kahan error vs 1.0 (%)"});
  add_nearest_even_row<num::binary16>(t, "fp16");
  add_nearest_even_row<num::bfloat16_format>(t, "bf16");
  add_nearest_even_row<num::binary32>(t, "fp32");
  return t;
}

table runs_table(const std::vector<double>& sums, std::uint64_t seed) {
  table t("stochastic-runs", "fp16 with stochastic rounding (32 random bits): one sum per run",
          {"run", "Philox seed", "Philox stream", "sum", "error vs 1.0 (%)"});
  for (std::size_t k = 0; k < sums.size(); ++k) {
    t.add_row({std::to_string(k + 1), std::to_string(seed), std::to_string(k), significant(sums[k], 6),
               signed_percent_value(sums[k] - 1.0, 2)});
  }
  return t;
}

std::vector<std::string> summary_row(const std::string& who, const sample_summary& s) {
  const double worst = std::max(std::abs(s.min - 1.0), std::abs(s.max - 1.0));
  return {who, std::to_string(s.count), fixed(s.mean, 4), fixed(s.standard_deviation, 4), fixed(s.min, 4),
          fixed(s.max, 4), signed_percent_value(worst, 2)};
}

table summary_table(const sample_summary& computed, const sample_summary& published) {
  table t("stochastic-summary", "fp16 stochastic-rounding sums: numlab's runs beside the tutorial's IPU runs",
          {"runs of", "runs", "mean", "standard deviation", "min", "max", "largest |error| vs 1.0 (%)"});
  t.add_row(summary_row("numlab (emulated fp16, 32-bit stochastic rounding)", computed));
  t.add_row(summary_row("tutorial (IPU)", published));
  return t;
}

table random_bits_table(std::uint64_t seed, int runs, std::vector<std::string>& findings) {
  table t("random-bits", "fp16 sums with r-bit stochastic rounding: round up iff floor(f*2^r) + R >= 2^r",
          {"random bits r", "runs", "mean", "standard deviation", "min", "max", "bias of the mean vs 1.0 (%)"});
  for (const int r : random_bit_counts) {
    const std::vector<double> sums = stochastic_runs(r, seed, runs);
    const sample_summary s = summarize(sums);
    t.add_row({std::to_string(r), std::to_string(runs), fixed(s.mean, 4), fixed(s.standard_deviation, 4),
               fixed(s.min, 4), fixed(s.max, 4), signed_percent_value(s.mean - 1.0, 2)});
    if (r == random_bit_counts.front()) {
      findings.push_back("With r = 1 the sum ends at " + fixed(s.mean, 4) +
                         " on average: floor(f*2^r)/2^r <= f, so few random bits round up too rarely and the "
                         "bias only vanishes as r grows.");
    }
  }
  return t;
}

experiment_result run(const run_options& options) {
  const int runs = options.tiny ? 4 : 20;
  experiment_result r;
  r.settings = {
      "0.0001 is rounded into each format with nearest-even (as NumPy / feed_dict do on the host), then added "
      "10,000 times to a running sum that starts at 0; every addition rounds in the format.",
      "Stochastic rounding: " + stochastic_runs_note(options.seed, runs) + ", one word per addition; the r-bit table reuses "
      "the same streams for every r.",
      "Kahan summation: sum and compensation both in the format, nearest-even."};
  r.tables.push_back(nearest_even_table());
  const std::vector<double> sums = stochastic_runs(32, options.seed, runs);
  const sample_summary computed = summarize(sums);
  const sample_summary published = summarize(published_runs);
  r.tables.push_back(runs_table(sums, options.seed));
  r.tables.push_back(summary_table(computed, published));
  r.tables.push_back(random_bits_table(options.seed, runs, r.findings));

  const auto fp16 = sum_in<num::binary16>(rounding_environment(num::rounding::nearest_even));
  r.findings.insert(r.findings.begin(),
                    "fp16 nearest-even: the sum reaches " + numpy_print(fp16.sum) + " and addition " +
                        std::to_string(fp16.first_stall) +
                        " is the first that changes nothing: 0.0001 is below half an ulp of 0.25 (2^-13), "
                        "so every later addition is swamped.");
  r.checks.push_back(check_printed({"fp16 sum of 10,000 x 0.0001, nearest-even (NumPy print)", graphcore, "Sum: 0.25",
                                    "fp16 nearest-even should stall at 0.25"},
                                   "Sum: " + numpy_print(fp16.sum)));
  r.checks.push_back(check_same_distribution(
      {"fp16 stochastic-rounding sums, 20 runs, against the tutorial's 20 printed sums (their sd " +
           fixed(published.standard_deviation, 4) + ")",
       graphcore, "Indeed, the average is `0.999`",
       "a mean this far from the IPU's suggests a biased rounding",
       "the runs differ one by one, as different random bits must"},
      published, computed));
  const double worst = std::max(std::abs(computed.min - 1.0), std::abs(computed.max - 1.0));
  r.checks.push_back(check_claim(
      {"largest |sum - 1| over the stochastic-rounding sums", graphcore,
       "All of the results are reasonably close to the correct result of `1.0`",
       "every sum within 3.5% of 1.0 (the IPU's worst printed sum: 0.9653)",
       "with a run-to-run sd near 1.5% a run beyond 3.5% is a 2-sigma event, expected in about one set of 20 "
       "in three"},
      signed_percent(worst, 2), worst <= 0.035));
  return r;
}

}  // namespace

experiment swamping_sum_experiment() {
  return {"swamping-sum",
          "0.0001 added 10,000 times in fp16, bf16, fp32: nearest-even, stochastic (20 runs, r random bits), Kahan",
          true, &run};
}

}  // namespace numlab::experiments
