// Spellings of the enumerations stored as text, and the built-in formats.
#include "rundb/records.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include <libnum/format.hpp>

namespace rundb {
namespace {

constexpr std::array<std::pair<run_status, std::string_view>, 6> status_names{{
    {run_status::running, "running"},
    {run_status::finished, "finished"},
    {run_status::failed, "failed"},
    {run_status::trapped, "trapped"},
    {run_status::interrupted, "interrupted"},
    {run_status::diverged, "diverged"},
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
  // libnum's own table, the one the trainer's format names come from.
  try {
    const num::format f = num::parse_format(name);
    return format_info{std::string(name), f.precision, f.emin, f.emax, f.subnormals, f.infinities};
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace rundb
