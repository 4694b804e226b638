// rundb-synth: writes a synthetic but plausible run database (dynamic loss
// scaling with skipped steps, per-layer statistics and histograms, events,
// evaluations) through rundb::writer. Used to test and time readers on
// databases of any size without training, and as a live writer for tests.
//
//   rundb-synth OUT.db [--steps N] [--layers L] [--stats-every K] [--runs R]
//                      [--delay-ms D] [--leave-running] [--name NAME]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <string_view>
#include <thread>

#include "rundb/writer.hpp"

namespace {

struct synth_options {
  std::string file;
  std::string name = "synthetic";
  std::int64_t steps = 1000;
  int layers = 4;
  std::int64_t stats_every = 10;
  int runs = 1;
  int delay_ms = 0;
  bool leave_running = false;
};

synth_options parse(int argc, char** argv) {
  synth_options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--steps") o.steps = std::stoll(value());
    else if (arg == "--layers") o.layers = std::stoi(value());
    else if (arg == "--stats-every") o.stats_every = std::stoll(value());
    else if (arg == "--runs") o.runs = std::stoi(value());
    else if (arg == "--delay-ms") o.delay_ms = std::stoi(value());
    else if (arg == "--name") o.name = value();
    else if (arg == "--leave-running") o.leave_running = true;
    else if (!arg.empty() && arg[0] != '-' && o.file.empty()) o.file = arg;
    else throw std::runtime_error("unknown argument " + std::string(arg));
  }
  if (o.file.empty()) throw std::runtime_error("usage: rundb-synth OUT.db [--steps N] [--layers L] ...");
  if (o.stats_every < 1 || o.layers < 1 || o.steps < 0 || o.runs < 1) throw std::runtime_error("bad sizes");
  return o;
}

// Counts of values whose binade exponents are normally spread around
// `centre`, over the binades [2^first, 2^(last+1)) with an under- and an
// overflow bin at either end.
rundb::histogram binade_histogram(int first, int last, double centre, double spread, std::uint64_t count,
                                  std::mt19937_64& rng) {
  rundb::histogram h{first, std::vector<std::uint64_t>(static_cast<std::size_t>(last - first + 3))};
  std::normal_distribution<double> exponent(centre, spread);
  for (std::uint64_t i = 0; i < count; ++i) {
    const double e = std::floor(exponent(rng));
    if (e < first) ++h.bins.front();
    else if (e > last) ++h.bins.back();
    else ++h.bins[static_cast<std::size_t>(e - first) + 1];
  }
  return h;
}

// binary16 values log-normally spread around 2^centre (smallest subnormal .. largest binade).
rundb::histogram fp16_histogram(double centre, double spread, std::uint64_t count, std::mt19937_64& rng) {
  return binade_histogram(-24, 15, centre, spread, count, rng);
}

// log2(|δ| / ulp(w)) spread normally around `centre`, over [2^-10, 2^10).
rundb::histogram ratio_histogram(double centre, double spread, std::uint64_t count, std::mt19937_64& rng) {
  return binade_histogram(-10, 9, centre, spread, count, rng);
}

void write_run(rundb::writer& w, const synth_options& o, int run_index) {
  const auto id = w.begin_run({.name = o.name + (o.runs > 1 ? "-" + std::to_string(run_index) : ""),
                               .config_yaml = "model: synthetic\nlayers: " + std::to_string(o.layers) +
                                              "\nprecision: fp16-mixed\nloss_scale: dynamic\n",
                               .numlab_version = "synthetic"});
  w.declare_format({"binary16", 11, -14, 15, true, true});
  std::mt19937_64 rng(1234 + static_cast<unsigned>(run_index));
  std::uniform_real_distribution<double> unit(0, 1);
  double scale = 65536;
  std::int64_t good_steps = 0;
  for (std::int64_t s = 0; s < o.steps; ++s) {
    const double t = static_cast<double>(s) / static_cast<double>(std::max<std::int64_t>(o.steps, 1));
    // Overflow in a scaled gradient becomes likelier the larger the scale.
    const bool overflow = unit(rng) < 1e-3 * scale / 4096;
    rundb::step_record step{.run = id, .step = s, .epoch = s / 1000,
                            .loss = 2.3 * std::exp(-3 * t) + 0.1 + 0.05 * unit(rng) + 0.1 * run_index,
                            .loss_scale = scale, .skipped = overflow, .lr = 0.01 * (1 - 0.5 * t),
                            .grad_norm = 1 + unit(rng), .wall_time = 0.002 * static_cast<double>(s)};
    if (overflow) {
      const int layer = static_cast<int>(unit(rng) * o.layers);
      step.skip_reason = "inf in grad_weight of layer" + std::to_string(layer);
      w.add_event({id, s, rundb::event_kind::skipped, "layer" + std::to_string(layer), step.skip_reason});
      scale /= 2;
      good_steps = 0;
    } else if (++good_steps == 2000) {
      scale *= 2;
      good_steps = 0;
    }
    w.add_step(step);
    if (s % o.stats_every == 0) {
      for (int l = 0; l < o.layers; ++l) {
        const double depth = static_cast<double>(l) / o.layers;
        for (const char* role : {"activation", "grad_weight", "update"}) {
          const std::string r = role;
          // Activations grow with depth (deep layers brush fp16's max); gradients
          // are stored scaled, so they sit log2(scale) binades above their true size.
          const double centre = r == "activation"    ? 2 + 9 * depth
                                : r == "grad_weight" ? -28 - 4 * depth - 4 * t + std::log2(scale)
                                                     : -18 - 3 * t;
          rundb::tensor_stats_record ts{.run = id, .step = s, .layer = "layer" + std::to_string(l),
                                        .op = l % 2 ? "dense" : "conv2d", .role = r, .format = "binary16",
                                        .count = 4096};
          ts.hist = fp16_histogram(centre, 3, 512, rng);
          const double per = static_cast<double>(ts.count) / 512;
          ts.underflows = static_cast<std::uint64_t>(static_cast<double>(ts.hist.bins.front()) * per);
          ts.overflows = static_cast<std::uint64_t>(static_cast<double>(ts.hist.bins.back()) * per);
          for (std::size_t b = 1; b <= 10; ++b) ts.subnormals += static_cast<std::uint64_t>(static_cast<double>(ts.hist.bins[b]) * per);
          ts.max_abs = std::ldexp(1.0, static_cast<int>(centre + 6));
          ts.rms = std::ldexp(1.0, static_cast<int>(centre));
          if (r == "update") {
            ts.swamped = static_cast<std::uint64_t>(ts.count * (0.05 + 0.3 * depth * t));
            ts.partially_swamped = static_cast<std::uint64_t>(ts.count * 0.2 * (1 - depth));
            ts.ulp_ratio = ratio_histogram(2 - 4 * depth * t, 2, 512, rng);
          }
          w.add_tensor_stats(std::move(ts));
        }
      }
    }
    if (s % 1000 == 999) w.add_evaluation({id, s / 1000, s, *step.loss * 1.05, 0.6 + 0.3 * t});
    if (o.delay_ms > 0) {
      w.flush();
      std::this_thread::sleep_for(std::chrono::milliseconds(o.delay_ms));
    }
  }
  if (!o.leave_running) w.finish_run(id, rundb::run_status::finished);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto options = parse(argc, argv);
    rundb::writer w(options.file);
    for (int r = 0; r < options.runs; ++r) write_run(w, options, r);
    w.flush();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rundb-synth: %s\n", e.what());
    return 2;
  }
  return 0;
}
