// The table-printing and collecting sinks.
#include "libnum/stats_sinks.hpp"

#include "libnum/stats_report.hpp"

namespace num {

void table_sink::on_stats(const stats_record& record) {
  if (!stats_header_written_) {
    out_ << stats_table_header() << '\n';
    stats_header_written_ = true;
  }
  out_ << stats_table_row(record.site, record.role.name, record.step, record.stats) << '\n';
}

void table_sink::on_swamping(const swamping_record& record) {
  if (!swamping_header_written_) {
    out_ << swamping_table_header() << '\n';
    swamping_header_written_ = true;
  }
  out_ << swamping_table_row(record.site, record.step, record.stats) << '\n';
}

void collecting_sink::on_stats(const stats_record& record) {
  stats_.push_back({std::string(record.site), record.role, record.step, record.stats});
}

void collecting_sink::on_swamping(const swamping_record& record) {
  swamping_.push_back({std::string(record.site), record.role, record.step, record.stats});
}

void collecting_sink::clear() {
  stats_.clear();
  swamping_.clear();
}

}  // namespace num
