// optimizer-epsilon: what Adam's epsilon (1e-8 by default, 1e-4 in the
// Graphcore master-weights example) becomes in fp16 and bf16, and what the
// first Adam update does with it when the second moment is tiny or underflows.
#include <array>
#include <cmath>
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

constexpr const char* graphcore = "Graphcore TF1 fp16 tutorial";
constexpr double beta1 = 0.9, beta2 = 0.999, learning_rate = 0.001;
constexpr std::array<double, 2> epsilons{1e-8, 1e-4};
constexpr std::array<double, 5> gradients{1e-2, 1e-3, 1e-4, 1e-6, 0.0};

/// Adam's first step (t = 1, zero moments) for one weight, every operation in F.
template <num::format F>
struct adam_step {
  using T = num::small_float<F>;
  T epsilon, gradient, second_moment, corrected_second_moment, denominator, step, update;
  num::flags raised = num::flags::none;  ///< flags of the step's own operations
};

/// m = (1-b1) g, v = (1-b2) g*g, m^ = m/(1-b1), v^ = v/(1-b2),
/// step = m^ / (sqrt(v^) + eps), update = lr * step: PyTorch's order, with the
/// constants and inputs rounded to nearest-even and every operation rounded
/// to nearest-even in F.
template <num::format F>
adam_step<F> first_adam_step(double gradient, double epsilon) {
  using T = num::small_float<F>;
  adam_step<F> s;
  const num::scoped_environment host(rounding_environment(num::rounding::nearest_even));
  const T one_minus_beta1{1 - beta1}, one_minus_beta2{1 - beta2}, lr{learning_rate};
  s.epsilon = T{epsilon};
  s.gradient = T{gradient};
  const num::scoped_environment device(rounding_environment(num::rounding::nearest_even));
  const T m = one_minus_beta1 * s.gradient;
  s.second_moment = one_minus_beta2 * (s.gradient * s.gradient);
  const T m_hat = m / one_minus_beta1;
  s.corrected_second_moment = s.second_moment / one_minus_beta2;
  s.denominator = sqrt(s.corrected_second_moment) + s.epsilon;
  s.step = m_hat / s.denominator;
  s.update = lr * s.step;
  s.raised = num::current_environment().sticky;
  return s;
}

/// The same step in real arithmetic: m^ = g and v^ = g^2 exactly.
double exact_step(double gradient, double epsilon) { return gradient / (std::abs(gradient) + epsilon); }

template <num::format F>
void add_rows(table& t, const std::string& name, std::vector<std::string>& findings) {
  for (const double eps : epsilons) {
    for (const double g : gradients) {
      const adam_step<F> s = first_adam_step<F>(g, eps);
      std::string subnormal;
      for (const auto& [column, value] :
           {std::pair{"eps stored", s.epsilon}, std::pair{"g stored", s.gradient}, std::pair{"v = (1-b2) g^2", s.second_moment},
            std::pair{"v^ = v / (1-b2)", s.corrected_second_moment}, std::pair{"sqrt(v^) + eps", s.denominator},
            std::pair{"step", s.step}, std::pair{"update", s.update}})
        if (is_subnormal(value)) subnormal += (subnormal.empty() ? "" : ", ") + std::string(column);
      t.add_row({name, significant(eps, 3), shown_number(s.epsilon), significant(g, 3), shown_number(s.gradient),
                 shown_number(s.second_moment), shown_number(s.corrected_second_moment), shown_number(s.denominator),
                 shown_number(s.step), significant(exact_step(g, eps), 6), shown_number(s.update),
                 std::string(num::flags_to_string(s.raised)), subnormal.empty() ? "-" : subnormal});
      const double step = static_cast<double>(s.step);
      const double exact = exact_step(g, eps);
      if (!std::isfinite(step)) {
        findings.push_back(name + ", eps " + significant(eps, 3) + ", gradient " + significant(g, 3) +
                           ": eps is stored as " + shown(s.epsilon) + " and v^ as " +
                           shown(s.corrected_second_moment) + ", so the step is " + shown(s.step) +
                           " (" + num::flags_to_string(s.raised) + ") where real arithmetic gives " +
                           significant(exact, 6) + ".");
      } else if (exact != 0 && std::abs(step - exact) > 0.25 * std::abs(exact)) {
        findings.push_back(name + ", eps " + significant(eps, 3) + ", gradient " + significant(g, 3) +
                           ": v^ is stored as " + shown(s.corrected_second_moment) + " instead of " +
                           significant(g * g, 3) + ", so the step is " + shown(s.step) + " where real "
                           "arithmetic gives " + significant(exact, 6) + ".");
      }
    }
  }
}

experiment_result run(const run_options&) {
  experiment_result r;
  r.settings = {"Adam with beta1 0.9, beta2 0.999, learning rate 0.001; the first step (t = 1) from zero moments, "
                "so m^ = g and v^ = g^2 in real arithmetic and the step is g / (|g| + eps).",
                "Everything (gradient, moments, bias corrections, eps, sqrt, division, lr * step) is stored and "
                "computed in the row's format with nearest-even; flags are those the step's operations raised.",
                "No random choices."};
  table t("first-step", "Adam's first step for one weight: step = m^ / (sqrt(v^) + eps), update = lr * step",
          {"format", "eps", "eps stored", "gradient g", "g stored", "v = (1-b2) g^2", "v^ = v / (1-b2)",
           "sqrt(v^) + eps", "step", "step, real arithmetic", "update", "flags", "subnormal stored values"});
  add_rows<num::binary32>(t, "fp32", r.findings);
  add_rows<num::binary16>(t, "fp16", r.findings);
  add_rows<num::bfloat16_format>(t, "bf16", r.findings);
  r.tables.push_back(std::move(t));

  const auto half_eps = first_adam_step<num::binary16>(0, 1e-8).epsilon;
  r.checks.push_back(check_claim(
      {"Adam's default epsilon 1e-8 rounded to fp16 (nearest-even)", graphcore,
       "the default value of `epsilon` in some implementations of the Adam optimiser is `1e-8`, which will "
       "underflow in half-precision",
       "the fp16 value is 0", "1e-8 is above half of fp16's smallest subnormal"},
      "stored as " + shown(half_eps), static_cast<double>(half_eps) == 0));
  return r;
}

}  // namespace

experiment optimizer_epsilon_experiment() {
  return {"optimizer-epsilon", "Adam's eps 1e-8 and 1e-4 in fp16 and bf16, and one Adam step with a tiny second moment",
          true, &run};
}

}  // namespace numlab::experiments
