// `numlab round VALUE... --format F --mode M|all`: how values round into a
// format — the result in decimal (shortest and exact) and as bits, its error
// against the input, and the flags raised; with `--mode sr --samples N`, the
// empirical behaviour of stochastic rounding beside its exact probabilities.
//
// Adding an option: a field in round_options, a line in add_round_options, and
// its use in run_round.
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <libnum/codec.hpp>
#include <libnum/format.hpp>
#include <libnum/philox.hpp>
#include <libnum/rounding.hpp>
#include <libnum/scaled_format.hpp>
#include <libnum/text.hpp>

#include "cli_table.hpp"
#include "commands.hpp"
#include "cli_text.hpp"
#include "round_stats.hpp"
#include "scaled_round.hpp"
#include "usage_error.hpp"

namespace numlab::cli {
namespace {

/// The command line of `numlab round`, as given.
struct round_options {
  std::vector<std::string> values;
  std::string format = "fp16";
  std::string modes = "all";
  int random_bits = 32;
  std::uint64_t seed = 0;
  std::uint64_t samples = 0;
  std::string tininess = "after";
  std::string overflow = "ieee";
  bool overflow_given = false;  ///< --overflow was on the command line
  num::nan_convention nans = num::nan_convention::first_operand;
  std::string stats_file;  ///< --stats: statistics of a dumped tensor
  bool raw = false;        ///< --raw: the --stats file is little-endian fp32
};

void add_round_options(CLI::App& command, round_options& o) {
  command.add_option("values", o.values,
                     "numbers to round: decimal or hex-float (0.1, -1e-8, 0x1.8p3, inf, nan), or a bit pattern "
                     "of the format (0x3c00) taken as is");
  command.add_option("--format,-f", o.format,
                     "fp16 bf16 e4m3 e5m2 tf32 fp32, eXmY, or p=..,emin=..,emax=..[,subnormals=0|1][,inf=0|1]; "
                     "or a scaled format: mxfp8 mxfp8-e5m2 mxfp6-e2m3 mxfp6-e3m2 mxfp4 mxint8 nvfp4 nvfp4-2d "
                     "fp8-tensor fp8-block ..., or ELEMENT/RULE[/BLOCK] (numlab formats lists them)")
      ->capture_default_str();
  command.add_option("--mode,-m", o.modes, "rounding: ne na rz ru rd ro sr, a comma-separated list, or all")
      ->capture_default_str();
  command.add_option("--bits,-r", o.random_bits, "random bits r of stochastic rounding")
      ->check(CLI::Range(1, 32))
      ->capture_default_str();
  command.add_option("--seed", o.seed, "seed of the Philox stream (seed, 0) that feeds stochastic rounding")
      ->capture_default_str();
  command.add_option("--samples", o.samples,
                     "with sr: round each value N times (random words 0..N-1) and compare the neighbours' "
                     "frequencies with their exact probabilities");
  command.add_option("--tininess", o.tininess, "underflow tininess: after or before rounding")
      ->check(CLI::IsMember({"after", "before"}))
      ->capture_default_str();
  command
      .add_option_function<std::string>(
          "--overflow",
          [&o](const std::string& value) {
            o.overflow = value;
            o.overflow_given = true;
          },
          "overflow: ieee (inf or max by direction), saturate, nan (default ieee; saturate for scaled formats)")
      ->check(CLI::IsMember({"ieee", "saturate", "nan"}));
  add_nan_convention_option(command, o.nans);
  command.add_option("--stats", o.stats_file,
                     "print tensor statistics (zeros, underflows, subnormals, overflows, histogram) of the numbers "
                     "in FILE, one per line, as rounded into the format with each mode");
  command.add_flag("--raw", o.raw, "with --stats: FILE is raw little-endian fp32");
}

/// The options resolved into libnum's terms.
struct rounding_setup {
  num::format format;
  std::optional<num::scaled_format> scaled;  ///< set when --format names a scaled format
  std::vector<num::rounding> modes;
  num::round_spec spec;  ///< every attribute but the mode, which each row sets
  num::random_stream random;
  std::uint64_t samples;
};

std::vector<num::rounding> parse_modes(const std::string& text) {
  if (text == "all") return {std::begin(num::all_roundings), std::end(num::all_roundings)};
  std::vector<num::rounding> modes;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    modes.push_back(num::parse_rounding(text.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return modes;
}

rounding_setup resolve(const round_options& o) {
  rounding_setup s{num::binary16, std::nullopt, {}, {}, num::random_stream(o.seed, 0), o.samples};
  if (num::looks_like_scaled_format(o.format)) {
    try {
      s.scaled = num::parse_scaled_format(o.format);
    } catch (const std::invalid_argument& e) {
      throw usage_error(std::string("round --format: ") + e.what());
    }
  } else {
    s.format = parse_format_option(o.format, "round --format");
  }
  try {
    s.modes = parse_modes(o.modes);
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("round --mode: ") + e.what());
  }
  s.spec.random_bits = o.random_bits;
  s.spec.tiny = num::parse_tininess(o.tininess);
  s.spec.nans = o.nans;
  // Scaled formats saturate unless --overflow is given (OCP MX §6.3).
  s.spec.overflow = s.scaled && !o.overflow_given ? num::overflow_mode::saturate
                                                  : num::parse_overflow_mode(o.overflow);
  bool stochastic = false;
  for (const num::rounding m : s.modes) stochastic = stochastic || m == num::rounding::stochastic;
  if (s.samples > 0 && !stochastic) throw usage_error("round: --samples needs --mode sr (or all)");
  if (s.samples > 0 && s.scaled) throw usage_error("round: --samples works with per-element formats only");
  if (s.scaled && o.nans != num::nan_convention::first_operand)
    throw usage_error("round: --nans works with per-element formats only (the scaled formats' NaNs follow their "
                      "spec: docs/SCALED_FORMATS.md)");
  return s;
}

num::round_spec with_mode(const rounding_setup& s, num::rounding mode) {
  num::round_spec spec = s.spec;
  spec.mode = mode;
  return spec;
}

// "0x3c00": what num::parse_value takes as a bit pattern rather than a number.
bool is_bit_pattern(const std::string& text) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return false;
  for (std::size_t i = 2; i < text.size(); ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

num::rounded round_value(const rounding_setup& s, const std::string& text, num::rounding mode,
                         std::uint32_t random_word) {
  try {
    return num::parse_value(s.format, text, with_mode(s, mode), random_word);
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("round: ") + e.what());
  }
}

// The input as a long double: exact for bit patterns, else correctly rounded to
// 64 bits, which leaves the error columns' four digits exact.
long double input_value(const rounding_setup& s, const std::string& text) {
  if (is_bit_pattern(text)) return num::to_double(s.format, round_value(s, text, num::rounding::nearest_even, 0).bits);
  return std::strtold(text.c_str(), nullptr);
}

long double value_of(const num::format& f, std::uint32_t bits) { return num::to_double(f, bits); }

std::string error_text(long double result, long double x) {
  if (result == x) return "0";
  if (!std::isfinite(result) || !std::isfinite(x)) return "-";
  return approximate_text(result - x);
}

std::string relative_error_text(long double result, long double x) {
  if (result == x) return "0";
  if (!std::isfinite(result) || !std::isfinite(x) || x == 0) return "-";
  return approximate_text((result - x) / x);
}

void print_rounding_table(const rounding_setup& s, const std::vector<std::string>& values, std::ostream& out) {
  text_table table({{"value"},
                    {"mode"},
                    {"result"},
                    {"exact result"},
                    {"bits"},
                    {"abs error", align::right},
                    {"rel error", align::right},
                    {"flags"}});
  bool stochastic = false;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0 && s.modes.size() > 1) table.add_break();
    const long double x = input_value(s, values[i]);
    for (std::size_t m = 0; m < s.modes.size(); ++m) {
      stochastic = stochastic || s.modes[m] == num::rounding::stochastic;
      const num::rounded r = round_value(s, values[i], s.modes[m], s.random.word(i));
      const long double result = value_of(s.format, r.bits);
      table.add_row({m == 0 ? values[i] : "", std::string(num::rounding_name(s.modes[m])),
                     num::to_shortest_decimal(s.format, r.bits), num::to_exact_decimal(s.format, r.bits),
                     num::to_hex_bits(s.format, r.bits), error_text(result, x), relative_error_text(result, x),
                     num::flags_to_string(r.raised)});
    }
  }
  table.print(out);
  out << "\nerrors are signed: abs error = result - value, rel error = (result - value) / value\n";
  if (stochastic) {
    out << "sr draws once per value: value i uses word i of the Philox stream (seed " << s.random.seed()
        << ", stream 0), r = " << s.spec.random_bits << " random bits\n";
  }
}

// Counts, over `samples` stochastic roundings of one value, how often each
// neighbour comes out, beside the probability the definition gives it: with f
// the discarded fraction in ulps, away from zero with probability floor(f*2^r)/2^r.
void print_stochastic_samples(const rounding_setup& s, const std::string& text, std::ostream& out) {
  const num::rounded below = round_value(s, text, num::rounding::toward_negative, 0);
  const num::rounded above = round_value(s, text, num::rounding::toward_positive, 0);
  out << "\nstochastic rounding of " << text << " into " << num::format_name(s.format) << ": " << s.samples
      << " samples, r = " << s.spec.random_bits << ", seed " << s.random.seed() << '\n';
  if (below.bits == above.bits) {
    out << "  exact in the format: every draw gives " << num::to_shortest_decimal(s.format, below.bits) << " ("
        << num::to_hex_bits(s.format, below.bits) << ")\n";
    return;
  }
  const long double x = input_value(s, text);
  const long double low = value_of(s.format, below.bits), high = value_of(s.format, above.bits);
  const bool negative = x < 0;
  const long double toward_zero = negative ? high : low;
  // Beyond max the definition takes max + ulp(max) as the next grid point.
  const long double away = negative ? low : high;
  const long double spacing = std::isfinite(away) ? std::fabs(away - toward_zero)
                                                  : static_cast<long double>(s.format.ulp_at_exponent(s.format.emax));
  const long double fraction = std::fmin(std::fabs(x - toward_zero) / spacing, 1.0L);
  const long double scale = std::ldexp(1.0L, s.spec.random_bits);
  const long double p_away = std::floor(fraction * scale) / scale;
  const long double p_above = negative ? 1 - p_away : p_away;

  std::uint64_t count_below = 0, count_above = 0;
  long double sum = 0;
  const num::round_spec spec = with_mode(s, num::rounding::stochastic);
  for (std::uint64_t i = 0; i < s.samples; ++i) {
    const num::rounded r = num::parse_value(s.format, text, spec, s.random.word(i));
    count_below += r.bits == below.bits;
    count_above += r.bits == above.bits;
    sum += value_of(s.format, r.bits);
  }
  const auto n = static_cast<long double>(s.samples);
  text_table table({{"neighbour"}, {"value"}, {"bits"}, {"exact probability", align::right},
                    {"observed frequency", align::right}});
  table.add_row({"below", num::to_shortest_decimal(s.format, below.bits), num::to_hex_bits(s.format, below.bits),
                 approximate_text(1 - p_above), approximate_text(count_below / n)});
  table.add_row({"above", num::to_shortest_decimal(s.format, above.bits), num::to_hex_bits(s.format, above.bits),
                 approximate_text(p_above), approximate_text(count_above / n)});
  if (count_below + count_above != s.samples) {
    table.add_row({"other", "", "", "0", approximate_text((n - count_below - count_above) / n)});
  }
  table.print(out, 2);
  // An overflowing neighbour (inf or NaN) drawn with any probability dominates the mean.
  const long double expected = p_away > 0 && !std::isfinite(away)
                                   ? away
                                   : toward_zero + (negative ? -p_away : p_away) * spacing;
  out << "  mean of the samples " << approximate_text(sum / n, 10) << ", exact expectation "
      << approximate_text(expected, 10) << " (bias " << error_text(expected, x) << " against the value)\n";
}

// ", NaNs cuda" where --nans chose other than the default.
std::string nans_text(num::nan_convention c) {
  return c == num::nan_convention::first_operand ? "" : ", NaNs " + std::string(num::nan_convention_name(c));
}

// Everything is written to `out` at the end, so bad input leaves no partial table.
void run_round(const round_options& o, std::ostream& out) {
  const rounding_setup s = resolve(o);
  if (o.values.empty() && o.stats_file.empty()) throw usage_error("round: give values to round or --stats FILE");
  if (o.raw && o.stats_file.empty()) throw usage_error("round: --raw needs --stats FILE");
  std::ostringstream text;
  if (s.scaled) {
    text << scaled_format_title(*s.scaled) << ", tininess " << o.tininess << " rounding, overflow "
         << num::overflow_mode_name(s.spec.overflow) << nans_text(o.nans) << "\n\n";
    if (!o.stats_file.empty()) {
      print_scaled_stats(*s.scaled, o.stats_file, read_stats_values(o.stats_file, o.raw), s.modes, s.spec, o.seed,
                         text);
    }
    if (!o.values.empty()) print_scaled_rounding(*s.scaled, o.values, s.modes, s.spec, o.seed, text);
    out << text.str();
    return;
  }
  text << format_title(s.format) << ", tininess " << o.tininess << " rounding, overflow " << o.overflow << nans_text(o.nans)
       << "\n\n";
  if (!o.stats_file.empty()) {
    const std::vector<float> values = read_stats_values(o.stats_file, o.raw);
    for (const num::rounding mode : s.modes) {
      print_round_stats(o.stats_file, values, s.format, with_mode(s, mode), s.random, text);
    }
  }
  if (!o.values.empty()) print_rounding_table(s, o.values, text);
  if (s.samples > 0) {
    for (const std::string& value : o.values) print_stochastic_samples(s, value, text);
  }
  out << text.str();
}

}  // namespace

void add_round_command(CLI::App& app) {
  auto* command = app.add_subcommand("round", "Round numbers into a format and show results, errors and flags");
  auto options = std::make_shared<round_options>();
  add_round_options(*command, *options);
  command->callback([options] { run_round(*options, std::cout); });
}

}  // namespace numlab::cli
