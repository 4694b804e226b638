#include "lab/trace_config.hpp"

#include "config_values.hpp"
#include "lab/errors.hpp"

namespace lab {
bool is_trace_key(std::string_view key) { return key.starts_with("trace."); }

void set_trace_value(trace_config& config, const std::string& key, const std::string& value,
                     const std::string& where) {
  if (key == "trace.db") {
    config.db = value;
  } else if (key == "trace.every") {
    const std::size_t n = parse_count(where, key, value, "a positive integer");
    if (n == 0) bad_value(where, key, value, "a positive integer");
    config.every = n;
  } else if (key == "trace.sites") {
    config.sites = value.empty() ? "*" : value;
  } else if (key == "trace.histograms") {
    config.histograms = parse_bool(where, key, value, "on or off");
  } else {
    throw input_error(where + ": unknown config key '" + key + "'");
  }
}

std::vector<std::pair<std::string, std::string>> trace_config_keys() {
  return {
      {"trace.db", "record the run into this run database (numlab inspect, numlab-gui)"},
      {"trace.every", "tensor statistics every N optimizer steps"},
      {"trace.sites", "trace only sites \"<layer>.<tensor>\" matching this glob or prefix"},
      {"trace.histograms", "store log2-magnitude histograms (on/off)"},
  };
}

std::string trace_yaml(const trace_config& config) {
  // Emitted only when tracing, so configs written without tracing read back unchanged.
  if (!config.enabled()) return {};
  return "trace.db: " + config.db + "\ntrace.every: " + std::to_string(config.every) + "\ntrace.sites: \"" +
         config.sites + "\"\ntrace.histograms: " + (config.histograms ? "on" : "off") + "\n";
}

}  // namespace lab
