#include "experiments/table.hpp"

#include <stdexcept>

#include "rundb/export.hpp"

namespace numlab::experiments {
namespace {

// A Markdown cell may not contain '|' or a line break.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string markdown_row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& c : cells) {
    line += ' ';
    line += markdown_cell(c);
    line += " |";
  }
  return line + "\n";
}

// Fields quoted as rundb's CSV export quotes them, but LF line ends: results/
// holds these files in git, where CRLF would show as noise in every diff.
std::string csv_line(const std::string& first, const std::vector<std::string>& rest) {
  std::string line = rundb::csv_field(first);
  for (const std::string& c : rest) {
    line += ',';
    line += rundb::csv_field(c);
  }
  return line + "\n";
}

}  // namespace

table::table(std::string id, std::string title, std::vector<std::string> columns)
    : id_(std::move(id)), title_(std::move(title)), columns_(std::move(columns)) {
  if (columns_.empty()) throw std::invalid_argument("table '" + id_ + "' has no columns");
  // A program reads a cell by its column's name, so a name may appear once.
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    for (std::size_t d = c + 1; d < columns_.size(); ++d) {
      if (columns_[c] == columns_[d])
        throw std::invalid_argument("table '" + id_ + "' has two columns named '" + columns_[c] + "'");
    }
  }
}

void table::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns_.size()) {
    throw std::invalid_argument("table '" + id_ + "': row of " + std::to_string(cells.size()) +
                                " cells, but " + std::to_string(columns_.size()) + " columns");
  }
  rows_.push_back(std::move(cells));
}

const std::string& table::cell(std::size_t row, const std::string& column) const {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c] == column) return rows_.at(row).at(c);
  }
  throw std::out_of_range("table '" + id_ + "' has no column '" + column + "'");
}

std::string table::to_markdown() const {
  std::string out = "#### " + title_ + "\n\n" + markdown_row(columns_) + "|";
  for (std::size_t c = 0; c < columns_.size(); ++c) out += "---|";
  out += "\n";
  for (const auto& row : rows_) out += markdown_row(row);
  return out;
}

std::string table::to_csv() const {
  std::string out = csv_line("table", columns_);
  for (const auto& row : rows_) out += csv_line(id_, row);
  return out;
}

}  // namespace numlab::experiments
