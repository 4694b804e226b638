// Exceptions thrown by the run-database writer and reader. Every message
// names the file it concerns, so a caller can print what() as is.
#pragma once

#include <stdexcept>
#include <string>

namespace rundb {

/// Any failure of the run database (base of the more specific errors below).
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The file is readable but is not a numlab run database (a foreign SQLite
/// file, or not SQLite at all), or does not exist.
class not_a_run_database : public error {
 public:
  using error::error;
};

/// The file was written by a newer numlab with a schema this build cannot read.
class newer_schema : public error {
 public:
  using error::error;
};

/// The file claims to be a run database but its contents are damaged.
class corrupt_database : public error {
 public:
  using error::error;
};

}  // namespace rundb
