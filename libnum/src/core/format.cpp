// Format validation, names and parsing.
#include "libnum/format.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

namespace num {

std::optional<std::string> format::problem() const {
  if (precision < 2 || precision > 24) return "precision must be in [2, 24] (got " + std::to_string(precision) + ")";
  if (emin < -126) return "emin must be >= -126 (got " + std::to_string(emin) + ")";
  if (emax > 127) return "emax must be <= 127 (got " + std::to_string(emax) + ")";
  if (emin > 0) return "emin must be <= 0 (got " + std::to_string(emin) + ")";
  if (emax < 1) return "emax must be >= 1 (got " + std::to_string(emax) + ")";
  const int top = emax + bias() + (infinities ? 1 : 0);
  if (top != (1 << exponent_bits()) - 1) {
    return "emin " + std::to_string(emin) + " and emax " + std::to_string(emax) +
           " do not fill an exponent field (need emax - emin + " + (infinities ? "3" : "2") +
           " to be a power of two)";
  }
  if (total_bits() > 32) return "format needs " + std::to_string(total_bits()) + " bits (at most 32)";
  return std::nullopt;
}

double ulp(const format& f, double x) {
  if (x == 0 || !std::isfinite(x)) return f.min_subnormal();
  return f.ulp_at_exponent(std::ilogb(x));
}

format make_format(int precision, int emin, int emax, bool subnormals, bool infinities) {
  const format f{precision, emin, emax, subnormals, infinities};
  if (auto why = f.problem()) throw std::invalid_argument("invalid format: " + *why);
  return f;
}

std::string format_name(const format& f) {
  if (f == binary16) return "fp16";
  if (f == bfloat16_format) return "bf16";
  if (f == fp8_e5m2) return "e5m2";
  if (f == fp8_e4m3) return "e4m3";
  if (f == tf32) return "tf32";
  if (f == binary32) return "fp32";
  return "p=" + std::to_string(f.precision) + ",emin=" + std::to_string(f.emin) +
         ",emax=" + std::to_string(f.emax) + ",subnormals=" + (f.subnormals ? "1" : "0") +
         ",inf=" + (f.infinities ? "1" : "0");
}

namespace {

int parse_int(std::string_view text, std::string_view whole) {
  int value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end) {
    throw std::invalid_argument("format '" + std::string(whole) + "': '" + std::string(text) +
                                "' is not an integer");
  }
  return value;
}

format parse_parameter_list(std::string_view text) {
  int precision = 0, emin = 1, emax = 0;
  bool have_p = false, have_emin = false, have_emax = false;
  bool subnormals = true, infinities = true;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw std::invalid_argument("format '" + std::string(text) + "': expected key=value, got '" +
                                  std::string(item) + "'");
    }
    const std::string_view key = item.substr(0, eq);
    const int value = parse_int(item.substr(eq + 1), text);
    if (key == "p") { precision = value; have_p = true; }
    else if (key == "emin") { emin = value; have_emin = true; }
    else if (key == "emax") { emax = value; have_emax = true; }
    else if (key == "subnormals") subnormals = value != 0;
    else if (key == "inf") infinities = value != 0;
    else throw std::invalid_argument("format '" + std::string(text) + "': unknown key '" + std::string(key) + "'");
  }
  if (!have_p || !have_emin || !have_emax) {
    throw std::invalid_argument("format '" + std::string(text) + "': p, emin and emax are required");
  }
  return make_format(precision, emin, emax, subnormals, infinities);
}

}  // namespace

format parse_format(std::string_view text) {
  if (text == "fp16" || text == "binary16" || text == "half" || text == "f16") return binary16;
  if (text == "bf16" || text == "bfloat16") return bfloat16_format;
  if (text == "e5m2" || text == "fp8-e5m2") return fp8_e5m2;
  if (text == "e4m3" || text == "fp8-e4m3") return fp8_e4m3;
  if (text == "tf32") return tf32;
  if (text == "fp32" || text == "binary32" || text == "float" || text == "f32") return binary32;
  if (text.find('=') != std::string_view::npos) return parse_parameter_list(text);
  if (text.size() >= 4 && text[0] == 'e') {
    const auto m = text.find('m');
    if (m != std::string_view::npos && m > 1) {
      const int exponent_bits = parse_int(text.substr(1, m - 1), text);
      const int fraction_bits = parse_int(text.substr(m + 1), text);
      if (exponent_bits < 2 || exponent_bits > 8) {
        throw std::invalid_argument("format '" + std::string(text) + "': exponent bits must be in [2, 8]");
      }
      const int emax = (1 << (exponent_bits - 1)) - 1;
      return make_format(fraction_bits + 1, 1 - emax, emax, true, true);
    }
  }
  throw std::invalid_argument("unknown format '" + std::string(text) +
                              "' (expected fp16, bf16, e4m3, e5m2, tf32, fp32, eXmY or "
                              "p=..,emin=..,emax=..[,subnormals=0|1][,inf=0|1])");
}

}  // namespace num
