// Errors the trainer reports to its user. Anything the user can fix (a missing
// or corrupt data file, an unknown config key, an impossible shape) is thrown
// as lab::input_error with one message naming what is wrong and where; the
// `numlab` CLI prints it as "numlab: <what>" and exits with code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace lab {

/// Bad input from the user: a file, a config value or a shape that cannot work.
class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace lab
