// `numlab formats [--format X]`: the parameters and extreme values of the
// built-in formats (or of one format, custom ones included).
#include <iostream>
#include <stdexcept>
#include <memory>
#include <string>
#include <vector>

#include "usage_error.hpp"
#include <libnum/format.hpp>
#include <libnum/scaled_format.hpp>

#include "cli_table.hpp"
#include "commands.hpp"
#include "cli_text.hpp"
#include "scaled_round.hpp"

namespace numlab::cli {
namespace {

// max = (2 - 2^k) * 2^emax, where k is 1-p with infinities (all-ones
// significand) and 2-p without (the all-ones significand is NaN).
std::string max_as_powers(const num::format& f) {
  const int k = (f.infinities ? 1 : 2) - f.precision;
  if (k == 0) return power_of_two_text(f.emax);
  return "(2 - " + power_of_two_text(k) + ") * " + power_of_two_text(f.emax);
}

void print_format(const num::format& f, std::string_view description, std::ostream& out) {
  out << num::format_name(f) << ": " << description << '\n';
  text_table table({{""}, {""}, {""}});
  table.add_row({"bits", std::to_string(f.total_bits()) + " = 1 sign + " + std::to_string(f.exponent_bits()) +
                             " exponent + " + std::to_string(f.fraction_bits()) + " fraction",
                 "(exponent bias " + std::to_string(f.bias()) + ")"});
  table.add_row({"precision", "p = " + std::to_string(f.precision), "(significand bits, hidden bit included)"});
  table.add_row({"exponents", "emin = " + std::to_string(f.emin) + ", emax = " + std::to_string(f.emax), ""});
  table.add_row({"max", shortest_text(f.max()), "= " + max_as_powers(f)});
  table.add_row({"min normal", shortest_text(f.min_normal()), "= " + power_of_two_text(f.emin)});
  if (f.subnormals) {
    table.add_row({"min subnormal", shortest_text(f.min_subnormal()),
                   "= " + power_of_two_text(f.emin - f.fraction_bits())});
  } else {
    table.add_row({"min subnormal", "none", "(no subnormals: below min normal only 0)"});
  }
  table.add_row({"epsilon", shortest_text(f.epsilon()), "= " + power_of_two_text(-f.fraction_bits())});
  table.add_row({"subnormals", f.subnormals ? "yes" : "no", ""});
  table.add_row({"infinities", f.infinities ? "yes" : "no",
                 f.infinities ? "(NaN: exponent all ones, fraction nonzero)" : "(NaN: only S.1...1.1...1)"});
  table.print(out, 2);
}

// The scaled formats: element, block, scale rule and scale encoding.
void print_scaled_formats(std::ostream& out) {
  out << "scaled formats (element x block scale; docs/SCALED_FORMATS.md):\n";
  text_table table({{"name"}, {"element"}, {"element max", align::right}, {"block"}, {"scale rule"}, {""}});
  for (const auto& named : num::named_scaled_formats()) {
    const num::scaled_format& f = named.format;
    table.add_row({std::string(named.name), std::string(num::element_name(f.element)),
                   shortest_text(num::element_max(f.element)),
                   f.block == num::whole_tensor_block ? "tensor"
                                                      : std::to_string(f.block.rows) + "x" + std::to_string(f.block.cols),
                   std::string(num::scale_rule_name(f.rule)), std::string(named.description)});
  }
  table.print(out, 2);
  out << "  or ELEMENT/RULE[/BLOCK]: elements e2m1 e2m3 e3m2 e4m3 e5m2 int8; rules mx-floor mx-rceil mx-even nvfp4 "
         "fp32-amax fp32-amax-pow2; blocks N, RxC, tensor\n";
}

}  // namespace

void add_formats_command(CLI::App& app) {
  auto* command = app.add_subcommand("formats", "Show each format's bits, precision, range and epsilon");
  auto format_text = std::make_shared<std::string>();
  command->add_option("--format,-f", *format_text,
                      "one format: fp16 bf16 e4m3 e5m2 tf32 fp32, eXmY, or p=..,emin=..,emax=..[,subnormals=0|1]"
                      "[,inf=0|1]");
  command->callback([format_text] {
    if (!format_text->empty() && num::looks_like_scaled_format(*format_text)) {
      try {
        std::cout << scaled_format_title(num::parse_scaled_format(*format_text)) << '\n';
      } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("formats --format: ") + e.what());
      }
      return;
    }
    if (!format_text->empty()) {
      const num::format f = parse_format_option(*format_text, "formats --format");
      for (const num::described_format& b : num::builtin_formats) {
        if (b.value == f) return print_format(f, b.description, std::cout);
      }
      return print_format(f, "custom format", std::cout);
    }
    for (std::size_t i = 0; i < std::size(num::builtin_formats); ++i) {
      if (i > 0) std::cout << '\n';
      print_format(num::builtin_formats[i].value, num::builtin_formats[i].description, std::cout);
    }
    std::cout << '\n';
    print_scaled_formats(std::cout);
  });
}

}  // namespace numlab::cli
