// The numeric environment: like <cfenv>, but per thread and for emulated formats.
//
// This thread-local object is the one piece of mutable global state in numlab:
// the value types (num::float16 ...) round in the current thread's environment
// and accumulate their exception flags there.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "format.hpp"
#include "philox.hpp"
#include "rounding.hpp"

namespace num {

/// Rounding attributes, sticky flags, traps and the stochastic-rounding stream.
struct environment {
  round_spec spec{};
  flags sticky = flags::none;  ///< flags raised since last cleared
  flags traps = flags::none;   ///< raising any of these throws floating_point_trap
  random_stream random{};      ///< words for stochastic rounding of scalar ops
  std::uint64_t draws = 0;     ///< position of the next word in `random`

  /// The next random word (advances only in stochastic mode, so other modes
  /// leave the stream where it was).
  std::uint32_t next_random_word() {
    return spec.mode == rounding::stochastic ? random.word(draws++) : 0;
  }
};

/// What a trapped operation was doing when it raised a trapped flag.
struct trap_report {
  std::string operation;         ///< e.g. "add"
  std::string format;            ///< format name
  std::vector<double> operands;  ///< operand values
  double result = 0;             ///< the delivered (default) result
  std::uint32_t result_bits = 0;
  flags raised = flags::none;
  /// One line: "overflow in add (fp16): 65504 + 32 = inf [0x7c00]".
  std::string describe() const;
};

/// Thrown when an operation raises a flag that the environment traps.
class floating_point_trap : public std::runtime_error {
 public:
  explicit floating_point_trap(trap_report report);
  const trap_report& report() const { return report_; }

 private:
  trap_report report_;
};

/// The calling thread's current environment.
environment& current_environment();

/// Installs an environment for the current thread and restores the previous
/// one when it goes out of scope.
class scoped_environment {
 public:
  explicit scoped_environment(const environment& e);
  ~scoped_environment();
  scoped_environment(const scoped_environment&) = delete;
  scoped_environment& operator=(const scoped_environment&) = delete;

 private:
  environment saved_;
};

/// Adds `r.raised` to the sticky flags of `env` and throws floating_point_trap
/// if a trapped flag is among them; the report is built only in that case.
void record_flags(environment& env, flags raised, const char* operation, const format& f,
                  std::initializer_list<double> operands, std::uint32_t result_bits);

}  // namespace num
