// Text renderings of statistics.
#include "libnum/stats_report.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace num {
namespace {

std::string printf_string(const char* format, auto... args) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, format, args...);
  return buffer;
}

double percent(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::string target_name(const format& f, const round_spec& spec) {
  return format_name(f) + "/" + std::string(rounding_name(spec.mode));
}

}  // namespace

std::string stats_table_header() {
  return printf_string("%8s  %-28s %-13s %-10s %10s %7s %7s %7s %9s %7s %7s %11s %11s %11s", "step", "site", "role",
                       "target", "count", "zero%", "under%", "subn%", "overflow", "nan", "inf", "min|x|>0",
                       "max|x|", "rms");
}

std::string stats_table_row(std::string_view site, std::string_view role, std::uint64_t step, const tensor_stats& s) {
  return printf_string("%8llu  %-28.*s %-13.*s %-10s %10llu %7.2f %7.2f %7.2f %9llu %7llu %7llu %11.4g %11.4g %11.4g",
                       static_cast<unsigned long long>(step), static_cast<int>(site.size()), site.data(),
                       static_cast<int>(role.size()), role.data(), target_name(s.target, s.spec).c_str(),
                       static_cast<unsigned long long>(s.count), percent(s.zeros, s.count),
                       percent(s.underflows, s.count), percent(s.subnormals, s.count),
                       static_cast<unsigned long long>(s.overflows), static_cast<unsigned long long>(s.nans),
                       static_cast<unsigned long long>(s.infs), static_cast<double>(s.min_nonzero_abs),
                       static_cast<double>(s.max_abs), s.rms());
}

std::string swamping_table_header() {
  return printf_string("%8s  %-28s %-10s %10s %8s %8s %11s", "step", "site", "target", "updates", "total%",
                       "partial%", "norm ratio");
}

std::string swamping_table_row(std::string_view site, std::uint64_t step, const swamping_stats& s) {
  return printf_string("%8llu  %-28.*s %-10s %10llu %8.2f %8.2f %11.4g", static_cast<unsigned long long>(step),
                       static_cast<int>(site.size()), site.data(), target_name(s.target, s.spec).c_str(),
                       static_cast<unsigned long long>(s.updates), 100.0 * s.total_fraction(),
                       100.0 * s.partial_fraction(), s.norm_ratio());
}

void write_stats_report(std::ostream& out, const tensor_stats& s) {
  const auto line = [&](const char* name, std::uint64_t n) {
    out << printf_string("  %-12s %12llu  %7.3f%%\n", name, static_cast<unsigned long long>(n), percent(n, s.count));
  };
  out << "statistics as rounded to " << format_name(s.target) << " (" << rounding_name(s.spec.mode) << ")\n";
  out << printf_string("  %-12s %12llu\n", "count", static_cast<unsigned long long>(s.count));
  line("zeros", s.zeros);
  line("underflows", s.underflows);
  line("subnormals", s.subnormals);
  line("overflows", s.overflows);
  line("nans", s.nans);
  line("infs", s.infs);
  out << printf_string("  %-12s %12.6g\n  %-12s %12.6g\n  %-12s %12.6g\n", "min |x|", static_cast<double>(s.min_abs),
                       "min |x|>0", static_cast<double>(s.min_nonzero_abs), "max |x|", static_cast<double>(s.max_abs));
  out << printf_string("  %-12s %12.6g\n  %-12s %12.6g\n", "mean", s.mean(), "rms", s.rms());

  const auto bins = s.bins();
  const auto occupied = [](std::uint64_t n) { return n != 0; };
  const auto first = std::find_if(bins.begin(), bins.end(), occupied);
  if (first == bins.end()) return;
  const auto last = std::find_if(bins.rbegin(), bins.rend(), occupied).base();
  const std::uint64_t largest = *std::max_element(bins.begin(), bins.end());
  out << "  histogram of rounded |x| (binade k: [2^k, 2^(k+1)))\n";
  for (auto it = first; it != last; ++it) {
    const auto i = static_cast<std::size_t>(it - bins.begin());
    std::string label;
    if (i == 0) label = "underflow";
    else if (i == bins.size() - 1) label = "overflow";
    else {
      const int k = s.lowest_binade() + static_cast<int>(i) - 1;
      label = "2^" + std::to_string(k) + (k < s.target.emin ? " (sub)" : "");
    }
    const auto width = static_cast<std::size_t>(40.0 * static_cast<double>(*it) / static_cast<double>(largest) + 0.5);
    out << printf_string("  %-14s %12llu  ", label.c_str(), static_cast<unsigned long long>(*it))
        << std::string(width, '#') << '\n';
  }
}

}  // namespace num
