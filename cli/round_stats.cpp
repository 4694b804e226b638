// Reading a dumped tensor and printing its statistics for `numlab round --stats`.
#include "round_stats.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <lab/errors.hpp>
#include <libnum/codec.hpp>
#include <libnum/stats_report.hpp>
#include <libnum/tensor_stats.hpp>
#include <libnum/text.hpp>

namespace numlab::cli {
namespace {

std::string trimmed(const std::string& line) {
  const char* space = " \t\r\n";
  const std::size_t first = line.find_first_not_of(space);
  if (first == std::string::npos) return {};
  return line.substr(first, line.find_last_not_of(space) - first + 1);
}

std::vector<float> read_text(std::ifstream& in, const std::string& path) {
  std::vector<float> values;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::string text = trimmed(line);
    if (text.empty()) continue;
    try {
      values.push_back(num::to_float(num::binary32, num::parse_value(num::binary32, text, num::round_spec{}).bits));
    } catch (const std::invalid_argument&) {
      throw lab::input_error("round --stats: " + path + ":" + std::to_string(number) + ": '" + text +
                             "' is not a number");
    }
  }
  return values;
}

std::vector<float> read_raw(std::ifstream& in, const std::string& path) {
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() % 4 != 0) {
    throw lab::input_error("round --stats: " + path + ": " + std::to_string(bytes.size()) +
                           " bytes is not a whole number of raw fp32 values (4 bytes each)");
  }
  std::vector<float> values(bytes.size() / 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const unsigned char* b = &bytes[4 * i];
    const std::uint32_t bits = std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 |
                               std::uint32_t{b[3]} << 24;  // little-endian on any host
    values[i] = num::to_float(num::binary32, bits);
  }
  return values;
}

}  // namespace

std::vector<float> read_stats_values(const std::string& path, bool raw) {
  std::ifstream in(path, raw ? std::ios::binary : std::ios::in);
  if (!in) throw lab::input_error("round --stats: cannot open " + path + ": " + std::strerror(errno));
  return raw ? read_raw(in, path) : read_text(in, path);
}

void print_round_stats(const std::string& path, const std::vector<float>& values, const num::format& target,
                       const num::round_spec& spec, const num::random_stream& random, std::ostream& out) {
  const num::tensor_stats stats = num::compute_stats(values, num::stats_plan(target, spec), {.random = random});
  out << path << ": ";
  num::write_stats_report(out, stats);
}

}  // namespace numlab::cli
