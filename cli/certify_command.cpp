// `numlab certify [--format ...] [--op ...] [--mode ...] [--sample N]`:
// libnum's fp16/bf16 arithmetic against the AVX-512 round-to-odd oracle on
// every operand pair (or a sample of first operands; fma: a sample of (a, c)), one certificate line
// per (format, operation, rounding direction). Exit code 1 if any pair
// differs, 2 for bad options or a CPU without AVX-512.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <certify/certificate.hpp>
#include <lab/errors.hpp>

#include "cli_text.hpp"
#include "commands.hpp"

namespace numlab::cli {
namespace {

struct certify_options {
  std::vector<std::string> formats{"fp16", "bf16"};
  std::vector<std::string> operations{"add", "sub", "mul", "div", "sqrt"};
  std::vector<std::string> modes{"ne", "na", "rz", "ru", "rd", "ro"};
  unsigned sample = 1;
  unsigned threads = 0;  // all hardware threads: the enumeration is embarrassingly parallel
};

// The values of `all` whose names are listed in `names`, in the order given.
template <typename T, std::size_t N>
std::vector<T> parse_names(const std::vector<std::string>& names, const T (&all)[N], const char* option) {
  std::vector<T> chosen;
  for (const std::string& text : names) {
    bool found = false;
    for (const T value : all) {
      if (certify::name(value) == text) {
        chosen.push_back(value);
        found = true;
      }
    }
    if (!found) {
      std::string known;
      for (const T value : all) known += (known.empty() ? "" : ", ") + std::string(certify::name(value));
      throw lab::input_error("certify: unknown " + std::string(option) + " '" + text + "' (known: " + known + ")");
    }
  }
  return chosen;
}

unsigned worker_threads(unsigned requested) {
  return requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

int run_certify(const certify_options& o) {
  const auto formats = parse_names(o.formats, certify::all_formats, "--format");
  const auto operations = parse_names(o.operations, certify::all_operations, "--op");
  const auto modes = parse_names(o.modes, certify::all_directions, "--mode");
  if (o.sample == 0 || certify::row_length % o.sample != 0) {
    throw lab::input_error("certify: --sample " + std::to_string(o.sample) + " must be a power of two up to 65536");
  }
  certify::require_oracle();  // before any output, so a refusal leaves no half table
  std::cout << "# numlab certify: libnum against the AVX-512 round-to-odd oracle\n\n"
            << "commit " << certify::source_commit() << "; rows of first operands: "
            << (o.sample == 1 ? std::string("all") : "1/" + std::to_string(o.sample)) << "; threads " << worker_threads(o.threads)
            << "; flags: inexact, underflow (tininess after and before rounding), overflow, divide-by-zero, "
               "invalid\n\n"
            << "| format | op | mode | pairs | mismatches | seconds | hash (XXH3-64) |\n"
            << "|---|---|---|---:|---:|---:|---|\n"
            << std::flush;
  std::uint64_t pairs = 0, mismatches = 0;
  double seconds = 0;
  for (const auto f : formats) {
    for (const auto op : operations) {
      for (const auto mode : modes) {
        const certify::certificate c = certify::run({f, op, mode, o.sample, o.threads});
        char line[160];
        std::snprintf(line, sizeof line, "| %s | %s | %s | %" PRIu64 " | %" PRIu64 " | %.1f | %s |\n",
                      std::string(certify::name(f)).c_str(), std::string(certify::name(op)).c_str(),
                      std::string(certify::name(mode)).c_str(), c.pairs, c.mismatches, c.seconds,
                      hex_text(c.hash, 16).c_str());
        std::cout << line << std::flush;
        for (const certify::mismatch& m : c.first_mismatches) {
          std::cerr << "mismatch " << certify::name(f) << ' ' << certify::name(op) << ' ' << certify::name(mode)
                    << " a=" << hex_text(m.a, 4) << " b=" << hex_text(m.b, 4)
                    << (op == certify::operation::fma ? " c=" + hex_text(m.c, 4) : std::string()) << ": oracle " << hex_text(m.oracle_bits, 4)
                    << " flags " << hex_text(m.oracle_flags, 2) << ", libnum " << hex_text(m.libnum_bits, 4) << " flags "
                    << hex_text(m.libnum_flags, 2) << '\n';
        }
        pairs += c.pairs;
        mismatches += c.mismatches;
        seconds += c.seconds;
      }
    }
  }
  char total[160];
  std::snprintf(total, sizeof total, "\ntotal: %" PRIu64 " pairs, %" PRIu64 " mismatches, %.1f s\n", pairs,
                mismatches, seconds);
  std::cout << total;
  return mismatches == 0 ? 0 : 1;
}

}  // namespace

void add_certify_command(CLI::App& app) {
  auto options = std::make_shared<certify_options>();
  CLI::App* cmd = app.add_subcommand(
      "certify", "Compare libnum's fp16/bf16 add, sub, mul, div, sqrt with an independent AVX-512 oracle on "
                 "every operand pair, results and flags (docs/certify.md)");
  cmd->add_option("--format", options->formats, "fp16, bf16 (comma-separated; default both)")->delimiter(',');
  cmd->add_option("--op", options->operations,
                  "add, sub, mul, div, sqrt, fma (default all but fma; fma checks rows of sampled (a, c) "
                  "against every b)")
      ->delimiter(',');
  cmd->add_option("--mode", options->modes, "ne, na, rz, ru, rd, ro (default all)")->delimiter(',');
  cmd->add_option("--sample", options->sample,
                  "check 1/N of the first operands (a fixed scattered set; sqrt always checks all)");
  cmd->add_option("--threads", options->threads, "worker threads (0 = all hardware threads)");
  cmd->callback([options] {
    // Exit code 1 for mismatches, apart from main's 2 for bad input.
    if (const int code = run_certify(*options); code != 0) std::exit(code);
  });
}

}  // namespace numlab::cli
