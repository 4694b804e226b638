#include "lab/precision_warnings.hpp"

#include <libnum/codec.hpp>
#include <libnum/convert.hpp>

#include <cmath>
#include <sstream>

namespace lab {
namespace {

// A message when `value` is lost or degraded in format f, else empty.
std::string representability(const char* what, double value, const num::format& f) {
  const num::round_spec ne{};
  const double held = num::to_double(f, num::from_double(f, value, ne).bits);
  std::ostringstream out;
  out << what << " = " << value;
  if (held == 0.0 && value != 0.0)
    out << " rounds to 0 in " << num::format_name(f);
  else if (!std::isfinite(held))
    out << " overflows " << num::format_name(f);
  else if (std::fabs(value) < f.min_normal())
    out << " is subnormal in " << num::format_name(f) << " (held as " << held << ", relative error "
        << std::fabs(held - value) / std::fabs(value) << ")";
  else
    return {};
  return out.str();
}

}  // namespace

std::vector<std::string> precision_warnings(const precision_policy& p, const optimizer_settings& o, double lr) {
  std::vector<std::string> out;
  auto add = [&](std::string message, const char* consequence) {
    if (!message.empty()) out.push_back(message + consequence);
  };
  const bool low_optimizer = p.of(op_class::optimizer) == class_precision::low;
  if (low_optimizer && o.kind != optimizer_kind::sgd)
    add(representability("adam eps", o.eps, p.low), ": the denominator sqrt(v) + eps can be 0 or lose eps");
  const bool stored = !p.master_weights && !p.is_fp32();
  const bool divide = p.scaling.mode == loss_scaling::kind::fixed && p.scaling.divide_lr;
  if (stored) add(representability("learning rate", lr, p.low), ": updates are computed with a degraded step");
  if (divide) {
    if (o.kind != optimizer_kind::sgd)
      out.push_back("loss_scale_method divide_lr is only correct for linear optimizers (sgd), not " +
                    std::string(o.kind == optimizer_kind::adam ? "adam" : "adamw"));
    if (stored)
      add(representability("learning rate / loss scale", lr / p.scaling.scale, p.low),
          ": the effective step underflows");
  }
  if (p.partials_block != 0 && p.partials == accumulation::fp32)
    out.push_back("partials_block = " + std::to_string(p.partials_block) + " has no effect with fp32 partials");
  return out;
}

}  // namespace lab
