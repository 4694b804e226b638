// Errors the trainer reports to its user. Anything the user can fix (a missing
// or corrupt data file, an unknown config key, an impossible shape) is thrown
// as lab::input_error with one message naming what is wrong and where; the
// `numlab` CLI prints it as "numlab: <what>" and exits with code 2.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace lab {

/// Bad input from the user: a file, a config value or a shape that cannot work.
class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A run whose training loss became NaN or infinite. Not bad input: the
/// `numlab` CLI reports it with its own exit code (3) and the run database
/// records the run as `diverged`.
class training_diverged : public std::runtime_error {
 public:
  training_diverged(const std::string& what, std::uint64_t at_step) : std::runtime_error(what), step(at_step) {}
  std::uint64_t step;  ///< the optimizer step whose loss was not finite
};

}  // namespace lab
