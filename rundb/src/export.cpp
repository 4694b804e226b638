// CSV and JSON writers for generic tables.
#include "rundb/export.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace rundb {
namespace {

// Shortest text that reads back as the same double.
std::string format_double(double value) {
  std::array<char, 32> text{};
  const auto result = std::to_chars(text.data(), text.data() + text.size(), value);
  return std::string(text.data(), result.ptr);
}

std::string csv_cell(const cell& value) {
  struct visitor {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return format_double(v); }
    std::string operator()(const std::string& v) const { return rundb::csv_field(v); }
    std::string operator()(const std::vector<std::uint64_t>& counts) const {
      std::string joined;
      for (std::size_t i = 0; i < counts.size(); ++i) {
        if (i) joined.push_back(' ');
        joined.append(std::to_string(counts[i]));
      }
      return joined;
    }
    std::string operator()(const std::vector<double>& reals) const {
      std::string joined;
      for (std::size_t i = 0; i < reals.size(); ++i) {
        if (i) joined.push_back(' ');
        joined.append(format_double(reals[i]));
      }
      return joined;
    }
  };
  return std::visit(visitor{}, value);
}

std::string json_string(const std::string& text) {
  std::string out(1, '"');
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          std::array<char, 8> escaped{};
          std::snprintf(escaped.data(), escaped.size(), "\\u%04x", c);
          out += escaped.data();
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

std::string json_value(const cell& value) {
  struct visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return std::isfinite(v) ? format_double(v) : "null"; }
    std::string operator()(const std::string& v) const { return json_string(v); }
    std::string operator()(const std::vector<std::uint64_t>& counts) const {
      std::string joined(1, '[');
      for (std::size_t i = 0; i < counts.size(); ++i) {
        if (i) joined.push_back(',');
        joined.append(std::to_string(counts[i]));
      }
      joined.push_back(']');
      return joined;
    }
    std::string operator()(const std::vector<double>& reals) const {
      std::string joined(1, '[');
      for (std::size_t i = 0; i < reals.size(); ++i) {
        if (i) joined.push_back(',');
        joined.append((*this)(reals[i]));
      }
      joined.push_back(']');
      return joined;
    }
  };
  return std::visit(visitor{}, value);
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted(1, '"');
  for (const char c : text) {
    if (c == '"') quoted.push_back('"');  // RFC 4180 doubles embedded quotes
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

void write_csv(const table& data, std::ostream& out) {
  for (std::size_t c = 0; c < data.columns.size(); ++c) out << (c ? "," : "") << csv_field(data.columns[c]);
  out << "\r\n";
  for (const auto& row : data.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << csv_cell(row[c]);
    out << "\r\n";
  }
}

void write_json(const table& data, std::ostream& out) {
  out << "[";
  for (std::size_t r = 0; r < data.rows.size(); ++r) {
    out << (r ? ",\n " : "\n ") << "{";
    for (std::size_t c = 0; c < data.rows[r].size() && c < data.columns.size(); ++c) {
      out << (c ? ", " : "") << json_string(data.columns[c]) << ": " << json_value(data.rows[r][c]);
    }
    out << "}";
  }
  out << (data.rows.empty() ? "]\n" : "\n]\n");
}

}  // namespace rundb
