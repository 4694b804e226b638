// Runs every experiment at its tiny size and checks the shape of its tables
// and the values of experiments 1-4 and 10 against hand-derived values and an
// independent rounding oracle (rounding_oracle.hpp), never against libnum.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/experiment.hpp"
#include "experiments/output.hpp"
#include "rounding_oracle.hpp"
#include "tiny_runs.hpp"

namespace numlab::experiments {
namespace {

using testing::bf16;
using testing::fp16;
using testing::round_nearest_even;

using testing::printf_g;
using testing::run_tiny;
using testing::tiny_options;

std::size_t row_where(const table& t, const std::string& column, const std::string& value) {
  for (std::size_t r = 0; r < t.rows().size(); ++r) {
    if (t.cell(r, column) == value) return r;
  }
  ADD_FAILURE() << "no row with " << column << " = " << value << " in " << t.id();
  return 0;
}

/// A number with its unit in the cell ("+22.1%", "3.5 s"): a program
/// reading the CSV could not parse it; the unit belongs in the header.
/// Written with strtod, not <regex>: GCC 12's <regex> trips
/// -Wmaybe-uninitialized in the sanitized -O2 -Werror build.
bool is_number_with_unit(const std::string& cell) {
  if (cell.empty() || !(std::isdigit(static_cast<unsigned char>(cell.front())) || cell.front() == '+' ||
                        cell.front() == '-' || cell.front() == '.')) {
    return false;
  }
  char* end = nullptr;
  std::strtod(cell.c_str(), &end);
  if (end == cell.c_str()) return false;
  std::string_view rest(end);
  if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  for (const std::string_view unit : {"%", "s", "ms", "us", "ns", "points"}) {
    if (rest == unit) return true;
  }
  return false;
}

TEST(ExperimentRegistry, NamesAreUniqueAndUnknownNamesAreRejected) {
  std::set<std::string> names;
  for (const experiment& e : all_experiments()) {
    EXPECT_TRUE(names.insert(std::string(e.name)).second) << e.name;
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_NE(e.run, nullptr) << e.name;
  }
  for (const char* expected : {"swamping-add", "swamping-sum", "formats", "optimizer-epsilon", "harmonic"}) {
    EXPECT_EQ(names.count(expected), 1u) << expected;
  }
  EXPECT_THROW((void)find_experiment("nonsense"), std::invalid_argument);
}

// One test per registered experiment, so each one's tiny run is timed and
// reported on its own.
class EveryExperiment : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryExperiment, RunsTinyAndFillsItsTables) {
  const experiment& e = find_experiment(GetParam());
  const experiment_result r = e.run(tiny_options());
  EXPECT_FALSE(r.tables.empty());
  for (const table& t : r.tables) {
    EXPECT_FALSE(t.rows().empty()) << t.id();
    // Issue 17, CSV: numbers in numeric columns carry no unit.
    for (const auto& row : t.rows()) {
      for (std::size_t c = 0; c < row.size(); ++c)
        EXPECT_FALSE(is_number_with_unit(row[c])) << t.id() << ", column '" << t.columns()[c] << "': " << row[c];
    }
  }
  for (const reference_check& c : r.checks) {
    const char* prefix = !c.decided ? "not decided" : c.matches ? "matches" : "differs";
    EXPECT_EQ(c.verdict.rfind(prefix, 0), 0u) << c.quantity;
    EXPECT_FALSE(!c.decided && c.matches) << c.quantity;
    EXPECT_FALSE(c.test.empty()) << c.quantity;
    // Outside the printed-value rows (equal text is their test), numlab's
    // column holds a measurement, never the tutorial's words.
    if (c.test.find("equals the printed text") == std::string::npos) {
      EXPECT_NE(c.computed, c.published) << c.quantity;
    }
  }
  EXPECT_EQ(render_markdown(e, r).rfind("## " + std::string(e.name) + "\n", 0), 0u);
}

std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const experiment& e : all_experiments()) names.emplace_back(e.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryExperiment, ::testing::ValuesIn(registered_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

TEST(SwampingAdd, Fp16ResultsAreTheHandDerivedOnes) {
  const experiment_result r = run_tiny("swamping-add");
  const table& t = r.find_table("fp16-tutorial");
  ASSERT_EQ(t.rows().size(), 6u);
  // 0.0004 + 0.25 is 0.2504, 1.64 ulps (2^-12) above 0.25: it rounds to 0.25 + 2 * 2^-12.
  EXPECT_EQ(t.cell(0, "result, exact"), "0.00048828125");
  EXPECT_EQ(t.cell(0, "result, 7 decimals"), "0.0004883");
  const char* expected_errors[] = {"+22.1", "-0.0", "+0.1", "-2.3", "+22.1", "-100.0"};
  const double inputs[] = {0.0004, 0.2, 0.02, 0.002, 0.0002, 0.0001};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(std::stod(t.cell(i, "result, exact")), fp16(fp16(fp16(inputs[i]) + 0.25) - 0.25)) << inputs[i];
    EXPECT_EQ(t.cell(i, "relative error (%)"), expected_errors[i]) << inputs[i];
  }
  EXPECT_EQ(t.cell(1, "result, exact"), "0.199951171875");
  EXPECT_EQ(t.cell(2, "result, exact"), "0.02001953125");
  EXPECT_EQ(t.cell(5, "result, exact"), "0");
  // Rounding up, 0.0001 + 0.25 becomes 0.25 + 2^-12.
  const table& modes = r.find_table("modes");
  EXPECT_EQ(modes.rows().size(), 1u + 7u + 7u);
  EXPECT_EQ(modes.cell(4, "rounding"), "ru");
  EXPECT_EQ(modes.cell(4, "x = 0.0001"), "0.0002441406");
  // (2^-12 - 0.0001) / 0.0001 = +144.1%; every cell one number.
  const table& errors = r.find_table("modes-relative-error");
  EXPECT_EQ(errors.cell(4, "x = 0.0001 (%)"), "+144.1");
  const table& standard_errors = r.find_table("stochastic-standard-error");
  ASSERT_EQ(standard_errors.rows().size(), 2u);  // fp16 and bf16
  for (const table* t : {&modes, &errors, &standard_errors}) {
    for (const auto& row : t->rows()) {
      for (std::size_t c = t == &standard_errors ? 1 : 2; c < row.size(); ++c) {
        std::size_t used = 0;
        (void)std::stod(row[c], &used);
        EXPECT_EQ(used, row[c].size()) << t->id() << ": " << row[c];
      }
    }
  }
  EXPECT_EQ(r.checks.size(), 7u);
  EXPECT_FALSE(r.checks[0].matches);  // the tutorial's 0.0004833
  EXPECT_TRUE(r.checks.back().matches);
}

TEST(SwampingSum, NearestEvenSumsStallWhereTheOracleDoes) {
  const experiment_result r = run_tiny("swamping-sum");
  const table& t = r.find_table("nearest-even");
  ASSERT_EQ(t.rows().size(), 3u);
  double half = 0, brain = 0;
  int half_stall = 0;
  float single = 0;
  const double a16 = fp16(0.0001), a_bf = bf16(0.0001);
  for (int i = 1; i <= 10000; ++i) {
    const double next = fp16(half + a16);
    if (next == half && half_stall == 0) half_stall = i;
    half = next;
    brain = bf16(brain + a_bf);
    single += 0.0001f;
  }
  EXPECT_EQ(half, 0.25);
  EXPECT_EQ(t.cell(0, "sum"), "0.25");
  EXPECT_EQ(t.cell(0, "first addition that changes nothing"), std::to_string(half_stall));
  EXPECT_EQ(std::stod(t.cell(1, "sum")), brain);
  EXPECT_EQ(t.cell(2, "sum"), printf_g(single, 8));
  double sum = 0, compensation = 0;
  for (int i = 0; i < 10000; ++i) {
    const double y = fp16(a16 - compensation);
    const double s = fp16(sum + y);
    compensation = fp16(fp16(s - sum) - y);
    sum = s;
  }
  EXPECT_EQ(std::stod(t.cell(0, "Kahan-compensated sum")), sum);

  EXPECT_EQ(r.find_table("stochastic-runs").rows().size(), 4u);
  const double mean = std::stod(r.find_table("stochastic-summary").cell(0, "mean"));
  EXPECT_NEAR(mean, 1.0, 0.03);
  // With one random bit, rounding up needs floor(2f) = 1: at 0.25 the addend is
  // 0.41 ulp, so the sum stops there; with two bits it stops at 0.5 (0.2 ulp).
  const table& bits = r.find_table("random-bits");
  EXPECT_EQ(bits.cell(0, "min"), "0.2500");
  EXPECT_EQ(bits.cell(0, "max"), "0.2500");
  EXPECT_EQ(bits.cell(1, "min"), "0.5000");
  EXPECT_EQ(bits.cell(1, "max"), "0.5000");
  EXPECT_TRUE(r.checks.front().matches);
}

TEST(Formats, ParametersAreTheHandDerivedOnes) {
  const experiment_result r = run_tiny("formats");
  const table& t = r.find_table("parameters");
  ASSERT_EQ(t.rows().size(), 6u);
  EXPECT_EQ(t.cell(0, "max"), "65504");
  EXPECT_EQ(t.cell(0, "log2(max)"), "-");
  EXPECT_EQ(t.cell(0, "min normal"), "6.1035e-05");
  EXPECT_EQ(t.cell(0, "log2(min normal)"), "-14");
  EXPECT_EQ(t.cell(0, "min subnormal"), "5.9605e-08");
  EXPECT_EQ(t.cell(0, "log2(min subnormal)"), "-24");
  EXPECT_EQ(t.cell(0, "epsilon (1 to next)"), "0.00097656");
  EXPECT_EQ(t.cell(0, "log2(epsilon)"), "-10");
  EXPECT_EQ(t.cell(1, "epsilon (1 to next)"), "0.0078125");
  EXPECT_EQ(t.cell(1, "log2(epsilon)"), "-7");
  EXPECT_EQ(t.cell(1, "max"), "3.3895e+38");
  EXPECT_EQ(t.cell(2, "max"), "448");
  EXPECT_EQ(t.cell(3, "max"), "57344");
  EXPECT_EQ(t.cell(5, "min subnormal"), "1.4013e-45");
  EXPECT_EQ(t.cell(5, "log2(min subnormal)"), "-149");
  const char* bits[] = {"16", "16", "8", "8", "19", "32"};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(t.cell(i, "bits"), bits[i]);
  const table& c = r.find_table("conversions");
  EXPECT_EQ(c.cell(row_where(c, "input", "65520"), "fp16"), "inf");
  EXPECT_EQ(c.cell(row_where(c, "input", "65519"), "fp16"), "65504");
  EXPECT_EQ(c.cell(row_where(c, "input", "1e-08"), "fp16"), "0");
  // Issue 17, CSV: a number in a numeric column, its class in a column of its own.
  EXPECT_EQ(c.cell(row_where(c, "input", "6.1e-05"), "fp16"), "6.1e-05");
  EXPECT_EQ(c.cell(row_where(c, "input", "6.1e-05"), "subnormal in"), "fp16");
  EXPECT_EQ(c.cell(row_where(c, "input", "65504"), "subnormal in"), "-");
}

TEST(OptimizerEpsilon, Fp16LosesEpsilonAndTheSecondMoment) {
  const experiment_result r = run_tiny("optimizer-epsilon");
  const table& t = r.find_table("first-step");
  ASSERT_EQ(t.rows().size(), 30u);
  const auto row = [&](const char* format, const char* eps, const char* g) {
    for (std::size_t i = 0; i < t.rows().size(); ++i) {
      if (t.cell(i, "format") == format && t.cell(i, "eps") == eps && t.cell(i, "gradient g") == g) return i;
    }
    ADD_FAILURE() << format << " " << eps << " " << g;
    return std::size_t{0};
  };
  // 1e-8 is below 2^-25, half of fp16's smallest subnormal: it rounds to 0.
  EXPECT_EQ(t.cell(row("fp16", "1e-08", "0.0001"), "eps stored"), "0");
  EXPECT_EQ(t.cell(row("fp16", "1e-08", "0.0001"), "step"), "inf");
  EXPECT_EQ(t.cell(row("fp16", "1e-08", "0"), "step"), "nan");
  EXPECT_EQ(t.cell(row("bf16", "1e-08", "0.0001"), "eps stored"), "1e-08");
  // fp16, eps 1e-4, g 1e-4: g*g = 1e-8 underflows, so step = m^ / eps.
  const double g = fp16(1e-4), c1 = fp16(0.1);
  const double step = fp16(fp16(fp16(c1 * g) / c1) / fp16(1e-4));
  EXPECT_EQ(std::stod(t.cell(row("fp16", "0.0001", "0.0001"), "step")), std::stod(printf_g(step, 4)));
  EXPECT_EQ(t.cell(row("fp16", "0.0001", "0.0001"), "step, real arithmetic"), "0.5");
  // 1e-6 is an fp16 subnormal (below 2^-14): the cell is the number, the class is listed apart.
  EXPECT_EQ(t.cell(row("fp16", "0.0001", "1e-06"), "g stored"), "1e-06");
  EXPECT_NE(t.cell(row("fp16", "0.0001", "1e-06"), "subnormal stored values").find("g stored"), std::string::npos);
  EXPECT_EQ(t.cell(row("fp32", "0.0001", "0.0001"), "subnormal stored values"), "-");
  EXPECT_TRUE(r.checks.front().matches);
}

TEST(Harmonic, NearestEvenStallsWhereTheOracleDoes) {
  const experiment_result r = run_tiny("harmonic");
  const table& t = r.find_table("nearest-even");
  ASSERT_EQ(t.rows().size(), 6u);
  const struct {
    int precision, emin;
  } formats[] = {{11, -14}, {8, -126}, {4, -6}, {3, -14}, {11, -126}};
  for (std::size_t i = 0; i < 5; ++i) {
    double sum = 0;
    int n = 1;
    for (;; ++n) {
      const double next = round_nearest_even(sum + round_nearest_even(1.0 / n, formats[i].precision, formats[i].emin),
                                             formats[i].precision, formats[i].emin);
      if (next == sum) break;
      sum = next;
    }
    EXPECT_EQ(std::stod(t.cell(i, "final sum (exact)")), sum) << i;
    EXPECT_EQ(t.cell(i, "first term that changes nothing"), std::to_string(n)) << i;
  }
  EXPECT_EQ(t.cell(0, "final sum (exact)"), "7.0859375");
  EXPECT_EQ(t.cell(0, "first term that changes nothing"), "513");
  EXPECT_EQ(t.cell(1, "final sum (exact)"), "5.0625");
  EXPECT_EQ(t.cell(1, "first term that changes nothing"), "65");
  EXPECT_EQ(r.find_table("fixed-terms").rows().size(), 6u);
  EXPECT_TRUE(r.checks.at(0).matches);
  EXPECT_TRUE(r.checks.at(1).matches);
}

TEST(ExperimentOutput, CsvHasOneHeaderPerTableAndOneLinePerRow) {
  const experiment& e = find_experiment("formats");
  const experiment_result r = e.run(tiny_options());
  const std::string csv = render_csv(r);
  std::size_t lines = 0;
  for (const char c : csv) lines += c == '\n';
  // The tables, then the comparison and the reference facts as two more.
  std::size_t expected = r.tables.size() + (r.checks.empty() ? 0 : 1) + (r.facts.empty() ? 0 : 1) - 1;
  for (const table& t : r.tables) expected += 1 + t.rows().size();
  expected += (r.checks.empty() ? 0 : 1 + r.checks.size()) + (r.facts.empty() ? 0 : 1 + r.facts.size());
  EXPECT_EQ(lines, expected);
  EXPECT_NE(csv.find("\ncomparison,"), std::string::npos);
  EXPECT_NE(render_markdown(e, r).find("| fp16 | 16 | 16 | 5 | 10 | 65504 |"), std::string::npos);
}

}  // namespace
}  // namespace numlab::experiments
