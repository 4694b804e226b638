// The scaled-format part of `numlab inspect`'s run summary (scale_stats).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "rundb/summary.hpp"

namespace rundb {
namespace {

std::string fixed(double value, const char* format) {
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), format, value);
  return text.data();
}

std::string share(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? std::string("-") : fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), "%.3g%%");
}

// One (layer, op, role) over the run.
struct operand_totals {
  std::string format;
  std::int64_t records = 0, first_step = 0, last_step = 0;
  std::uint64_t count = 0, blocks = 0, block_underflow = 0, underflow_to_zero = 0, saturated = 0;
  std::uint64_t scale_underflow = 0, scale_overflow = 0;
  double snr_sum = 0;
  std::int64_t snr_records = 0;
  std::optional<double> last_amax, last_scale;
};

}  // namespace

void write_scale_summary(reader& db, run_id run, std::ostream& out, std::size_t max_lines) {
  scale_stats_query query;
  query.run = run;
  const auto rows = db.scale_stats(query);
  if (rows.empty()) return;
  std::map<std::tuple<std::string, std::string, std::string>, operand_totals> by_operand;
  for (const auto& r : rows) {
    auto& t = by_operand[{r.layer, r.op, r.role}];
    if (t.records++ == 0) t.first_step = r.step;
    t.last_step = r.step;
    t.format = r.scaled_format;
    t.count += r.count;
    t.blocks += r.blocks;
    t.block_underflow += r.block_underflow;
    t.underflow_to_zero += r.underflow_to_zero;
    t.saturated += r.saturated;
    t.scale_underflow += r.scale_underflow;
    t.scale_overflow += r.scale_overflow;
    if (r.snr_db) {
      t.snr_sum += *r.snr_db;
      ++t.snr_records;
    }
    t.last_amax = r.amax;
    t.last_scale = r.scale;
  }
  // Most block underflow first: what the scales cost where they cost most.
  std::vector<std::pair<std::tuple<std::string, std::string, std::string>, operand_totals>> ranked(
      by_operand.begin(), by_operand.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    const auto fraction = [](const operand_totals& t) {
      return t.count == 0 ? 0.0 : static_cast<double>(t.block_underflow) / static_cast<double>(t.count);
    };
    return fraction(a.second) > fraction(b.second);
  });
  out << "scaled formats: " << rows.size() << " operand records, " << by_operand.size()
      << " GEMM operands (layer op role), most block underflow first:\n";
  std::size_t lines = 0;
  for (const auto& [key, t] : ranked) {
    if (lines++ == max_lines) {
      out << "  ... " << ranked.size() - max_lines << " more\n";
      break;
    }
    const auto& [layer, op, role] = key;
    out << "  " << layer << " " << op << " " << role << " [" << t.format << "]: steps " << t.first_step << ".."
        << t.last_step << " (" << t.records << "), block underflow " << share(t.block_underflow, t.count)
        << ", underflow " << share(t.underflow_to_zero, t.count) << ", saturated " << share(t.saturated, t.count)
        << ", scale under/overflow " << t.scale_underflow << "/" << t.scale_overflow << " of " << t.blocks
        << " blocks, mean SNR " << (t.snr_records ? fixed(t.snr_sum / static_cast<double>(t.snr_records), "%.1f dB") : "-");
    if (t.last_amax) out << ", last amax " << fixed(*t.last_amax, "%.4g");
    if (t.last_scale) out << " scale " << fixed(*t.last_scale, "%.4g");
    out << "\n";
  }
}

}  // namespace rundb
