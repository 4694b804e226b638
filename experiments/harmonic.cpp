// harmonic: 1 + 1/2 + 1/3 + ... summed in fp16, bf16, FP8, TF32 and fp32. With
// nearest-even the sum stops growing once 1/n falls below half an ulp of the
// sum (fp16: 7.0859375 from term 513 on; bf16: 5.0625 from term 65 on, as
// Nick Higham's blog post "Half Precision Arithmetic: fp16 Versus bfloat16",
// December 2018, reports them); stochastic rounding and Kahan summation keep
// it growing.
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

constexpr const char* published_source = "N. Higham, \"Half Precision Arithmetic: fp16 Versus bfloat16\" (2018)";

/// Term n, 1/n rounded into F in the current environment. The fp64 quotient
/// rounds as the exact 1/n would: for n < 2^28 it is never a rounding
/// boundary (a value of at most 25 significant bits) of a format of p <= 24,
/// since |1/n - k/2^j| >= 1/(n 2^j) > 2^-53/n there.
template <num::format F>
num::small_float<F> term(std::int64_t n) {
  return num::small_float<F>{1.0 / static_cast<double>(n)};
}

/// H_N in fp64, smallest terms first (relative error far below 1e-12 for N <= 2^24).
double exact_harmonic(std::int64_t count) {
  double sum = 0;
  for (std::int64_t n = count; n >= 1; --n) sum += 1.0 / static_cast<double>(n);
  return sum;
}

template <num::format F>
sum_trace<num::small_float<F>> nearest_even_until_stall(std::int64_t limit) {
  const num::scoped_environment scope(rounding_environment(num::rounding::nearest_even));
  return running_sum<num::small_float<F>>(&term<F>, limit, true);
}

template <num::format F>
void add_stall_row(table& t, const std::string& name, std::int64_t limit) {
  const auto trace = nearest_even_until_stall<F>(limit);
  if (trace.first_stall == 0) {
    t.add_row({name, shortest(trace.sum), "none within " + std::to_string(limit) + " terms", "-", "-", "-"});
    return;
  }
  const double exact = exact_harmonic(trace.last_change);
  const double sum = static_cast<double>(trace.sum);
  t.add_row({name, exact_decimal(static_cast<float>(trace.sum)), std::to_string(trace.first_stall),
             std::to_string(trace.last_change), significant(exact, 9), signed_percent_value((sum - exact) / exact, 3)});
}

table stall_table(std::int64_t limit) {
  table t("nearest-even", "Nearest-even: where the running sum stops growing",
          {"format", "final sum (exact)", "first term that changes nothing", "terms that changed it",
           "exact H at that many terms", "error (%)"});
  add_stall_row<num::binary16>(t, "fp16", limit);
  add_stall_row<num::bfloat16_format>(t, "bf16", limit);
  add_stall_row<num::fp8_e4m3>(t, "fp8 e4m3", limit);
  add_stall_row<num::fp8_e5m2>(t, "fp8 e5m2", limit);
  add_stall_row<num::tf32>(t, "tf32", limit);
  add_stall_row<num::binary32>(t, "fp32", limit);
  return t;
}

template <num::format F>
void add_fixed_row(table& t, const std::string& name, std::int64_t count, double exact, const run_options& options,
                   int runs) {
  using T = num::small_float<F>;
  const auto error = [exact](double v) { return signed_percent_value((v - exact) / exact, 2); };
  double nearest = 0, compensated = 0;
  {
    const num::scoped_environment scope(rounding_environment(num::rounding::nearest_even));
    nearest = static_cast<double>(running_sum<T>(&term<F>, count).sum);
    compensated = static_cast<double>(compensated_running_sum<T>(&term<F>, count));
  }
  std::vector<double> sums;
  for (int k = 0; k < runs; ++k) {
    const num::scoped_environment scope(
        rounding_environment(num::rounding::stochastic, 32, options.seed, static_cast<std::uint64_t>(k)));
    sums.push_back(static_cast<double>(running_sum<T>(&term<F>, count).sum));
  }
  const sample_summary s = summarize(sums);
  t.add_row({name, significant(nearest, 8), error(nearest), significant(compensated, 8), error(compensated),
             significant(s.mean, 8), error(s.mean), significant(s.standard_deviation, 3), significant(s.min, 6),
             significant(s.max, 6)});
}

table fixed_terms_table(std::int64_t count, const run_options& options, int runs) {
  const double exact = exact_harmonic(count);
  table t("fixed-terms",
          "H_N for N = " + std::to_string(count) + " (exact " + significant(exact, 10) +
              "): nearest-even, Kahan (nearest-even), stochastic rounding over " + std::to_string(runs) + " runs",
          {"format", "nearest-even", "error (%)", "Kahan", "Kahan error (%)", "stochastic mean", "mean error (%)",
           "stochastic sd", "stochastic min", "stochastic max"});
  add_fixed_row<num::binary16>(t, "fp16", count, exact, options, runs);
  add_fixed_row<num::bfloat16_format>(t, "bf16", count, exact, options, runs);
  add_fixed_row<num::fp8_e4m3>(t, "fp8 e4m3", count, exact, options, runs);
  add_fixed_row<num::fp8_e5m2>(t, "fp8 e5m2", count, exact, options, runs);
  add_fixed_row<num::tf32>(t, "tf32", count, exact, options, runs);
  add_fixed_row<num::binary32>(t, "fp32", count, exact, options, runs);
  return t;
}

template <num::format F>
std::string stall_text(std::int64_t limit) {
  const auto trace = nearest_even_until_stall<F>(limit);
  return exact_decimal(static_cast<float>(trace.sum)) + " after " + std::to_string(trace.first_stall) + " terms";
}

experiment_result run(const run_options& options) {
  const std::int64_t stall_limit = options.tiny ? (std::int64_t{1} << 12) : (std::int64_t{1} << 24);
  const std::int64_t count = options.tiny ? 1000 : options.full ? 1000000 : 100000;
  const int runs = options.tiny ? 4 : 20;
  experiment_result r;
  r.settings = {
      "Term n is 1/n rounded once into the format (in the mode of the sum), then added to the running sum; every "
      "operation rounds in the format.",
      "Nearest-even sums run until the first nonzero term that leaves the sum unchanged (searched up to " +
          std::to_string(stall_limit) + " terms); no later term can change it, since terms only shrink.",
      "Fixed-length sums: N = " + std::to_string(count) + " terms" + (options.full ? " (--full)" : "") +
          "; stochastic " + stochastic_runs_note(options.seed, runs) + " (one word per rounding); the exact H_N is summed in fp64, smallest terms first.",
      "\"after K terms\" (as published) is read as: term K is the first that changes nothing, so the sum of the "
      "first K-1 terms is final."};
  r.tables.push_back(stall_table(stall_limit));
  r.tables.push_back(fixed_terms_table(count, options, runs));
  const auto n_u_squared = [count](const num::format& f) {
    const double unit_roundoff = num::pow2(-f.precision);
    return significant(static_cast<double>(count) * unit_roundoff * unit_roundoff, 2);
  };
  r.findings = {
      "Nearest-even stalls once 1/n is at most half an ulp of the sum; stochastic rounding keeps the expected sum "
      "equal to H_N (its mean error above is sampling noise of about sd/sqrt(runs)).",
      "Kahan summation's error bound carries a term N*u^2 (u = 2^-p): " + n_u_squared(num::binary16) +
          " for fp16 but " + n_u_squared(num::bfloat16_format) + " for bf16 and " + n_u_squared(num::fp8_e4m3) +
          " for e4m3 at N = " + std::to_string(count) +
          ", so compensation rescues fp16 and not the narrower formats, whose compensation term itself stalls."};
  r.checks.push_back(check_printed({"fp16 harmonic sum, nearest-even", published_source, "7.0859375 after 513 terms",
                                    "a different stall point would mean a rounding error in fp16 addition"},
                                   stall_text<num::binary16>(stall_limit)));
  r.checks.push_back(check_printed({"bf16 harmonic sum, nearest-even", published_source, "5.0625 after 65 terms",
                                    "a different stall point would mean a rounding error in bf16 addition"},
                                   stall_text<num::bfloat16_format>(stall_limit)));
  return r;
}

}  // namespace

experiment harmonic_experiment() {
  return {"harmonic",
          "The harmonic series in fp16, bf16, FP8, TF32, fp32: where nearest-even stalls; stochastic and Kahan sums",
          true, &run};
}

}  // namespace numlab::experiments
