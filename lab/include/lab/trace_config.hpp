// The tracing part of a training configuration: whether and how a run is
// recorded into a run database (rundb/SCHEMA.md). Keys (YAML, and on the
// command line with '-' for '.' and '_'):
//
//   trace.db          path of the run database (empty: no tracing)
//   trace.every       tensor statistics every N optimizer steps (per-step
//                     scalars, events and evaluations are always written)
//   trace.sites       site filter: a glob ('*', '?') matched against
//                     "<layer>.<tensor>", or a prefix ("conv1")
//   trace.histograms  store the log2-magnitude histograms (on/off)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lab {

/// Where and how densely a run is traced.
struct trace_config {
  std::string db;              ///< run database path; empty: no tracing
  std::uint64_t every = 1;     ///< tensor statistics on steps that are multiples of this
  std::string sites = "*";     ///< site glob or prefix
  bool histograms = true;      ///< store histograms with the statistics

  [[nodiscard]] bool enabled() const { return !db.empty(); }
};

/// True for trace.db, trace.every, trace.sites, trace.histograms.
bool is_trace_key(std::string_view key);
/// Sets one key; `where` names the source for messages. Throws input_error
/// for an unknown trace key or a value that does not parse (every must be >= 1).
void set_trace_value(trace_config& config, const std::string& key, const std::string& value,
                     const std::string& where);
/// The keys with one-line help.
std::vector<std::pair<std::string, std::string>> trace_config_keys();
/// The configuration as YAML lines "key: value".
std::string trace_yaml(const trace_config& config);

}  // namespace lab
