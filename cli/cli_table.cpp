#include "cli_table.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace numlab::cli {
namespace {

std::size_t display_width(const std::string& s) {
  // Count every byte that does not continue a UTF-8 sequence.
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

void print_line(std::ostream& out, std::size_t indent, const std::vector<column>& columns,
                const std::vector<std::size_t>& widths, const std::vector<std::string>& cells) {
  std::string line(indent, ' ');
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::size_t padding = widths[i] - display_width(cells[i]);
    if (i > 0) line += "  ";
    if (columns[i].alignment == align::right) line.append(padding, ' ');
    line += cells[i];
    if (columns[i].alignment == align::left) line.append(padding, ' ');
  }
  line.erase(line.find_last_not_of(' ') + 1);
  out << line << '\n';
}

}  // namespace

text_table::text_table(std::vector<column> columns) : columns_(std::move(columns)) {}

void text_table::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns_.size()) {
    throw std::invalid_argument("text_table: row of " + std::to_string(cells.size()) + " cells for " +
                                std::to_string(columns_.size()) + " columns");
  }
  rows_.push_back(std::move(cells));
}

void text_table::add_break() { rows_.emplace_back(); }

void text_table::print(std::ostream& out, std::size_t indent) const {
  const bool has_header =
      std::any_of(columns_.begin(), columns_.end(), [](const column& c) { return !c.header.empty(); });
  std::vector<std::size_t> widths(columns_.size(), 0);
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (has_header) widths[i] = display_width(columns_[i].header);
    for (const auto& row : rows_) {
      if (!row.empty()) widths[i] = std::max(widths[i], display_width(row[i]));
    }
  }
  if (has_header) {
    std::vector<std::string> headers, rules;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      headers.push_back(columns_[i].header);
      rules.emplace_back(widths[i], '-');
    }
    print_line(out, indent, columns_, widths, headers);
    print_line(out, indent, columns_, widths, rules);
  }
  for (const auto& row : rows_) {
    if (row.empty()) {
      out << '\n';
    } else {
      print_line(out, indent, columns_, widths, row);
    }
  }
}

}  // namespace numlab::cli
