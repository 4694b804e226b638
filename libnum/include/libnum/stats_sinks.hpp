// Ready-made statistics sinks: a table printer and an in-memory collector.
// (The trainer's run-database sink lives in lab/, built on stats_sink.)
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hooks.hpp"

namespace num {

/// Prints one fixed-width row per record (header before the first), see
/// stats_table_row() and swamping_table_row().
class table_sink final : public stats_sink {
 public:
  explicit table_sink(std::ostream& out) : out_(out) {}
  void on_stats(const stats_record& record) override;
  void on_swamping(const swamping_record& record) override;

 private:
  std::ostream& out_;
  bool stats_header_written_ = false;
  bool swamping_header_written_ = false;
};

/// A record kept by collecting_sink (owning copies).
struct collected_stats {
  std::string site;
  role_tag role;  ///< its name as the producer's table keeps it
  std::uint64_t step;
  tensor_stats stats;
};
struct collected_swamping {
  std::string site;
  role_tag role;
  std::uint64_t step;
  swamping_stats stats;
};

/// Keeps every record it receives, in arrival order.
class collecting_sink final : public stats_sink {
 public:
  void on_stats(const stats_record& record) override;
  void on_swamping(const swamping_record& record) override;
  const std::vector<collected_stats>& stats() const { return stats_; }
  const std::vector<collected_swamping>& swamping() const { return swamping_; }
  void clear();

 private:
  std::vector<collected_stats> stats_;
  std::vector<collected_swamping> swamping_;
};

}  // namespace num
