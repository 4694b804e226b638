#include "libnum/environment.hpp"

#include <cstdio>

#include "libnum/codec.hpp"

namespace num {

environment& current_environment() {
  thread_local environment env;
  return env;
}

scoped_environment::scoped_environment(const environment& e) : saved_(current_environment()) {
  current_environment() = e;
}

scoped_environment::~scoped_environment() { current_environment() = saved_; }

std::string trap_report::describe() const {
  std::string s = flags_to_string(raised) + " in " + operation + " (" + format + "):";
  char buffer[64];
  for (std::size_t i = 0; i < operands.size(); ++i) {
    std::snprintf(buffer, sizeof buffer, "%s%.17g", i == 0 ? " " : ", ", operands[i]);
    s += buffer;
  }
  std::snprintf(buffer, sizeof buffer, " -> %.17g [0x%x]", result, result_bits);
  return s + buffer;
}

floating_point_trap::floating_point_trap(trap_report report)
    : std::runtime_error("floating-point trap: " + report.describe()), report_(std::move(report)) {}

void record_flags(environment& env, flags raised, const char* operation, const format& f,
                  std::initializer_list<double> operands, std::uint32_t result_bits) {
  env.sticky |= raised;
  if (!any(raised, env.traps)) return;
  trap_report r;
  r.operation = operation;
  r.format = format_name(f);
  r.operands.assign(operands.begin(), operands.end());
  r.result = to_double(f, result_bits);
  r.result_bits = result_bits;
  r.raised = raised;
  throw floating_point_trap(std::move(r));
}

}  // namespace num
