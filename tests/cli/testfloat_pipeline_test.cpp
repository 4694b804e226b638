// Berkeley TestFloat's own check of numlab: testfloat_gen | numlab testfloat |
// testfloat_ver for every f16 function, in every rounding mode TestFloat
// tests. TestFloat is not packaged by Debian 12; where testfloat_gen and
// testfloat_ver are not on PATH the test is skipped with a message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_process.hpp"

namespace numlab::testing {
namespace {

bool on_path(const std::string& program) {
  return run_process({"sh", "-c", "command -v " + program}).exit_code == 0;
}

// Cases per function and mode: TestFloat's level-1 sets run from 408 (unary)
// to 6 million (mulAdd) cases; the first few thousand of each hold its special
// and boundary operands interleaved with random ones, and keep the default run quick.
constexpr int cases_per_run = 2000;

// Runs one pipeline; its exit code is 0 when numlab and testfloat_ver both succeed.
process_result verify(const std::string& function, const std::string& options) {
  const std::string script = "testfloat_gen " + options + " " + function + " | head -n " +
                             std::to_string(cases_per_run) + " | '" + NUMLAB_BINARY + "' testfloat " + function +
                             " " + options + " | testfloat_ver -errors 5 " + options + " " + function +
                             "; s=(\"${PIPESTATUS[@]}\"); [ \"${s[2]}\" = 0 ] && [ \"${s[3]}\" = 0 ]";
  return run_process({"bash", "-c", script});
}

// A function with the option sets it is checked under (besides each rounding mode).
struct checked_function {
  std::string name;
  bool rounds;                     ///< checked in every rounding mode, else only in the default
  std::vector<std::string> extra;  ///< further options, each checked in every mode
};

TEST(TestfloatPipeline, F16FunctionsPassTestfloatVer) {
  if (!on_path("testfloat_gen") || !on_path("testfloat_ver")) {
    GTEST_SKIP() << "Berkeley TestFloat (testfloat_gen, testfloat_ver) is not on PATH; it has no Debian 12 "
                    "package. Build it from http://www.jhauser.us/arithmetic/TestFloat.html to run this check.";
  }
  const std::vector<checked_function> functions{
      {"f16_add", true, {}},
      {"f16_sub", true, {}},
      {"f16_mul", true, {"-tininessbefore"}},
      {"f16_div", true, {"-tininessbefore"}},
      {"f16_sqrt", true, {}},
      {"f16_mulAdd", true, {"-tininessbefore"}},
      {"f16_roundToInt", true, {"-exact"}},
      {"f32_to_f16", true, {"-tininessbefore"}},
      {"f64_to_f16", true, {"-tininessbefore"}},
      {"i32_to_f16", true, {}},
      {"i64_to_f16", true, {}},
      {"f16_to_i32", true, {"-exact"}},
      {"f16_to_i64", true, {"-exact"}},
      {"f16_eq", false, {}},
      {"f16_le", false, {}},
      {"f16_lt", false, {}},
      {"f16_eq_signaling", false, {}},
      {"f16_le_quiet", false, {}},
      {"f16_lt_quiet", false, {}},
      {"f16_to_f32", false, {}},
      {"f16_to_f64", false, {}}};
  const std::vector<std::string> all_modes{"-rnear_even", "-rnear_maxMag", "-rminMag", "-rmin", "-rmax"};
  const std::vector<std::string> default_mode{"-rnear_even"};
  for (const checked_function& f : functions) {
    for (const std::string& mode : f.rounds ? all_modes : default_mode) {
      std::vector<std::string> option_sets{mode};
      for (const std::string& extra : f.extra) option_sets.push_back(mode + " " + extra);
      for (const std::string& options : option_sets) {
        const process_result r = verify(f.name, options);
        EXPECT_EQ(r.exit_code, 0) << f.name << ' ' << options << '\n' << r.out << r.err;
      }
    }
  }
}

}  // namespace
}  // namespace numlab::testing
