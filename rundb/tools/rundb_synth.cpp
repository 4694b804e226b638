// rundb-synth: writes a synthetic but plausible run database (dynamic loss
// scaling with skipped steps, per-layer statistics and histograms, events,
// evaluations, optionally scaled-format statistics and sweep coordinates)
// through rundb::writer. Used to test and time readers on databases of any
// size without training, and as a live writer for tests.
//
//   rundb-synth OUT.db [--steps N] [--layers L] [--stats-every K] [--runs R]
//                      [--delay-ms D] [--leave-running] [--name NAME]
//                      [--scale-stats FORMAT [--amax-history H]]
//                      [--coordinate KEY=V1,V2,...]...
//
// --scale-stats writes a scale_stats row per layer and role at every stats
// step, as a recipe quantizing to FORMAT (a scaled-format name, e.g. mxfp8)
// would; with --amax-history H > 0 each keeps an amax history of H steps and a
// delayed per-tensor scale from it. Each --coordinate adds a swept key; run r
// sits at the r-th point of their grid (the last key varying fastest).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

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
  std::string scaled_format;  // empty: no scale_stats
  int amax_history = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> grid;  // --coordinate keys and values
};

// "KEY=V1,V2,..." -> the key and its values.
std::pair<std::string, std::vector<std::string>> parse_coordinate(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == 0 || eq == std::string::npos || eq + 1 == text.size()) {
    throw std::runtime_error("--coordinate " + text + ": expected KEY=V1,V2,...");
  }
  std::pair<std::string, std::vector<std::string>> out{text.substr(0, eq), {}};
  std::size_t from = eq + 1;
  for (;;) {
    const auto comma = text.find(',', from);
    out.second.push_back(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (out.second.back().empty()) throw std::runtime_error("--coordinate " + text + ": empty value");
    if (comma == std::string::npos) return out;
    from = comma + 1;
  }
}

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
    else if (arg == "--scale-stats") o.scaled_format = value();
    else if (arg == "--amax-history") o.amax_history = std::stoi(value());
    else if (arg == "--coordinate") o.grid.push_back(parse_coordinate(value()));
    else if (!arg.empty() && arg[0] != '-' && o.file.empty()) o.file = arg;
    else throw std::runtime_error("unknown argument " + std::string(arg));
  }
  if (o.file.empty()) throw std::runtime_error("usage: rundb-synth OUT.db [--steps N] [--layers L] ...");
  if (o.stats_every < 1 || o.layers < 1 || o.steps < 0 || o.runs < 1 || o.amax_history < 0) {
    throw std::runtime_error("bad sizes");
  }
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

// Run `run_index`'s point of the --coordinate grid, the last key varying fastest.
std::vector<rundb::coordinate> grid_point(const synth_options& o, int run_index) {
  std::vector<rundb::coordinate> point(o.grid.size());
  auto rest = static_cast<std::size_t>(run_index);
  for (std::size_t k = o.grid.size(); k-- > 0;) {
    const auto& [key, values] = o.grid[k];
    point[k] = {key, values[rest % values.size()]};
    rest /= values.size();
  }
  return point;
}

// What quantizing one tensor to a block-scaled format did: the block scales'
// binades spread around the tensor's magnitude, a few blocks flushed or clamped.
rundb::scale_stats_record synthetic_scale_stats(const synth_options& o, rundb::run_id run, std::int64_t step,
                                                const std::string& layer, const std::string& role, double centre,
                                                std::vector<double>& history, std::mt19937_64& rng) {
  constexpr std::uint64_t elements = 4096, block = 32;
  rundb::scale_stats_record s{.run = run, .step = step, .layer = layer, .op = "dense", .role = role,
                              .scaled_format = o.scaled_format, .count = elements, .blocks = elements / block};
  s.scale_hist = binade_histogram(-40, 40, centre - 8, 2, s.blocks, rng);  // E8M0 scales near the data; e4m3 emax = 8
  s.amax = std::ldexp(1.0 + std::uniform_real_distribution<double>(0, 1)(rng), static_cast<int>(centre + 3));
  s.block_underflow = s.scale_hist.bins.front() * 3;
  s.underflow_to_zero = s.scale_hist.bins.front();
  s.saturated = s.scale_hist.bins.back();
  s.snr_db = 30 + std::normal_distribution<double>(0, 1)(rng);
  if (o.amax_history > 0) {
    history.insert(history.begin(), *s.amax);
    if (history.size() > static_cast<std::size_t>(o.amax_history)) history.resize(static_cast<std::size_t>(o.amax_history));
    s.amax_history = history;
    s.scale = *std::max_element(history.begin(), history.end()) / 448;  // decode scale: amax maps to e4m3's max
  }
  return s;
}

void write_run(rundb::writer& w, const synth_options& o, int run_index) {
  const auto id = w.begin_run({.name = o.name + (o.runs > 1 ? "-" + std::to_string(run_index) : ""),
                               .config_yaml = "model: synthetic\nlayers: " + std::to_string(o.layers) +
                                              "\nprecision: fp16-mixed\nloss_scale: dynamic\n",
                               .numlab_version = "synthetic"});
  w.declare_format({"binary16", 11, -14, 15, true, true});
  if (!o.grid.empty()) w.set_coordinates(id, grid_point(o, run_index));
  std::map<std::string, std::vector<double>> amax_histories;  // per layer/role, most recent first
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
          if (!o.scaled_format.empty()) {
            const std::string layer = "layer" + std::to_string(l);
            w.add_scale_stats(synthetic_scale_stats(o, id, s, layer, r, centre, amax_histories[layer + "/" + r], rng));
          }
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
