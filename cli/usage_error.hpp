// The error a `numlab` subcommand throws for bad input of its own (an option,
// an operand, a file it reads). The libnum commands (formats, round,
// testfloat) use it so that they need nothing of the trainer; main prints any
// exception as "numlab: <what>" and exits with code 2.
#pragma once

#include <stdexcept>

namespace numlab::cli {

/// Bad input on the command line or in a file a command reads; the message
/// names the option or file (and line) and what is wrong.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace numlab::cli
