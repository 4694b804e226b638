// What the training-throughput benchmarks step through: a model, Adam
// (eps 1e-4) over its parameters, and a loader of synthetic batches (four
// batches' worth of make_synthetic data, shuffled), with OpenBLAS held to
// one thread so the worker threads asked for are the only parallelism.
#pragma once

#include <cblas.h>
#include <sys/resource.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "lab/batches.hpp"
#include "lab/models.hpp"
#include "lab/optimizer.hpp"

namespace numlab_bench {

/// The tutorial conv model on 28x28x1 images.
inline lab::model_spec tutorial_conv() { return {}; }

/// ResNet-8 on 32x32x3 images.
inline lab::model_spec resnet8() {
  lab::model_spec spec;
  spec.name = "resnet";
  spec.depth = 8;
  spec.channels = 3;
  spec.height = spec.width = 32;
  return spec;
}

/// A freshly initialised model (seed 1), its optimizer and batches.
struct synthetic_training {
  synthetic_training(const lab::model_spec& spec, std::size_t batch_size)
      : net((openblas_set_num_threads(1), lab::make_model(spec))),
        data(lab::make_synthetic(batch_size * 4, spec.channels, spec.height, spec.width, spec.classes, 1.0f, 2)),
        loader(data, batch_size, true, true, 3) {
    lab::rng init(1);
    net->initialise(init);
    params = net->parameters();
    lab::optimizer_settings settings;
    settings.eps = 1e-4f;
    opt = std::make_unique<lab::optimizer>(settings, params);
    loader.start_epoch(0);
  }
  /// Loads batch `i` (modulo the batches there are) into `b`.
  void fill(std::size_t i) { loader.fill(i % loader.batches_per_epoch(), b); }

  std::unique_ptr<lab::sequential> net;
  std::vector<lab::parameter*> params;
  std::unique_ptr<lab::optimizer> opt;
  lab::dataset data;
  lab::batch_loader loader;
  lab::batch b;
  lab::tensor logits, grad;
};

/// Minor page faults of this process so far (getrusage): memory the kernel
/// mapped in on first touch, such as a buffer freed and allocated again.
inline std::int64_t minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

/// Counts the page faults of the training steps after the first (which
/// touches every buffer for the first time): call step() at the start of
/// each timed step, per_step() after the loop. A step that keeps its buffers
/// takes none.
class steady_faults {
 public:
  void step() {
    if (++steps_ == 2) at_second_ = minor_faults();
  }
  [[nodiscard]] double per_step() const {
    return steps_ < 2 ? 0.0 : static_cast<double>(minor_faults() - at_second_) / static_cast<double>(steps_ - 1);
  }

 private:
  std::int64_t steps_ = 0;
  std::int64_t at_second_ = 0;
};

}  // namespace numlab_bench
