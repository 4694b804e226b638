// Spellings of the enumerations stored as text, and the built-in formats.
#include "rundb/records.hpp"

#include <array>
#include <string>
#include <utility>

namespace rundb {
namespace {

constexpr std::array<std::pair<run_status, std::string_view>, 7> status_names{{
    {run_status::running, "running"},
    {run_status::finished, "finished"},
    {run_status::failed, "failed"},
    {run_status::trapped, "trapped"},
    {run_status::interrupted, "interrupted"},
    {run_status::diverged, "diverged"},
    {run_status::killed, "killed"},
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
  // The formats libnum builds in, under every name num::parse_format accepts
  // for them (the trainer writes the short ones). rundb must not link libnum
  // (README, "Architecture"), so the parameters are spelled out here;
  // tests/lab/rundb_format_names_test.cpp checks them against libnum's table.
  struct named_format {
    std::string_view short_name, long_name;
    int precision, emin, emax;
    bool subnormals, infinities;
  };
  static constexpr std::array<named_format, 6> formats{{
      {"fp16", "binary16", 11, -14, 15, true, true},
      {"bf16", "bfloat16", 8, -126, 127, true, true},
      {"e5m2", "e5m2", 3, -14, 15, true, true},
      {"e4m3", "e4m3", 4, -6, 8, true, false},
      {"tf32", "tf32", 11, -126, 127, true, true},
      {"fp32", "binary32", 24, -126, 127, true, true},
  }};
  for (const auto& f : formats)
    if (f.short_name == name || f.long_name == name)
      return format_info{std::string(name), f.precision, f.emin, f.emax, f.subnormals, f.infinities};
  return std::nullopt;
}

}  // namespace rundb
