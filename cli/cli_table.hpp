// A plain-text table for the `numlab` subcommands: columns padded to their
// widest cell, a header with a rule under it, and optional blank lines between
// groups of rows.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace numlab::cli {

enum class align { left, right };

/// One column: its header (empty for a header-less table) and alignment.
struct column {
  std::string header;
  align alignment = align::left;
};

/// Collects rows of text and prints them as aligned columns, two spaces apart.
/// Widths count UTF-8 code points, so cells may hold non-ASCII symbols.
class text_table {
 public:
  explicit text_table(std::vector<column> columns);

  /// Appends a row; it must have one cell per column (std::invalid_argument otherwise).
  void add_row(std::vector<std::string> cells);
  /// Appends a blank line that separates groups of rows.
  void add_break();

  /// Prints the header (if any column has one), a rule, then the rows;
  /// `indent` spaces start every line.
  void print(std::ostream& out, std::size_t indent = 0) const;

 private:
  std::vector<column> columns_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a break
};

}  // namespace numlab::cli
