// Spellings of the enumerations stored as text, and the built-in formats.
#include "rundb/records.hpp"

#include <array>
#include <utility>

namespace rundb {
namespace {

constexpr std::array<std::pair<run_status, std::string_view>, 5> status_names{{
    {run_status::running, "running"},
    {run_status::finished, "finished"},
    {run_status::failed, "failed"},
    {run_status::trapped, "trapped"},
    {run_status::interrupted, "interrupted"},
}};

constexpr std::array<std::pair<event_kind, std::string_view>, 5> event_names{{
    {event_kind::overflow, "overflow"},
    {event_kind::nan, "nan"},
    {event_kind::skipped, "skipped"},
    {event_kind::trap, "trap"},
    {event_kind::warning, "warning"},
}};

}  // namespace

std::string_view to_string(run_status status) {
  for (const auto& [value, name] : status_names)
    if (value == status) return name;
  return "running";
}

std::optional<run_status> parse_run_status(std::string_view text) {
  for (const auto& [value, name] : status_names)
    if (name == text) return value;
  return std::nullopt;
}

std::string_view to_string(event_kind kind) {
  for (const auto& [value, name] : event_names)
    if (value == kind) return name;
  return "warning";
}

std::optional<event_kind> parse_event_kind(std::string_view text) {
  for (const auto& [value, name] : event_names)
    if (name == text) return value;
  return std::nullopt;
}

std::optional<format_info> builtin_format(std::string_view name) {
  // Parameters as in DESIGN.md (the same the libnum built-ins use).
  static const std::array<format_info, 6> formats{{
      {"binary16", 11, -14, 15, true, true},
      {"bfloat16", 8, -126, 127, true, true},
      {"e5m2", 3, -14, 15, true, true},
      {"e4m3", 4, -6, 8, true, false},
      {"tf32", 11, -126, 127, true, true},
      {"binary32", 24, -126, 127, true, true},
  }};
  for (const auto& f : formats)
    if (f.name == name) return f;
  return std::nullopt;
}

}  // namespace rundb
