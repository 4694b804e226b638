// A small table of text cells, rendered as Markdown (for people) and as CSV
// (for tools) in one place, so every experiment prints and saves alike.
#pragma once

#include <string>
#include <vector>

namespace numlab::experiments {

/// A titled table whose cells are already formatted text. `id` is a short
/// slug ("fp16-small-numbers") that names the table in CSV output.
class table {
 public:
  table(std::string id, std::string title, std::vector<std::string> columns);

  /// Appends a row; throws std::invalid_argument if it has the wrong width.
  void add_row(std::vector<std::string> cells);

  const std::string& id() const { return id_; }
  const std::string& title() const { return title_; }
  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  /// The cell at (row, column named `column`); throws std::out_of_range.
  const std::string& cell(std::size_t row, const std::string& column) const;

  /// "#### title" followed by a GitHub-flavoured Markdown table.
  std::string to_markdown() const;
  /// RFC 4180 CSV: a header row "table,<columns>", then one line per row
  /// whose first field is the table's id.
  std::string to_csv() const;

 private:
  std::string id_;
  std::string title_;
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace numlab::experiments
