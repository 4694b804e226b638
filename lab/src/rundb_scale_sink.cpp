#include "lab/rundb_scale_sink.hpp"

#include "lab/run_tracer.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace lab {
namespace {

num::role_tag filter_role(gemm_operand o) {
  switch (o) {
    case gemm_operand::activation: return trace_tag(tensor_role::activation);
    case gemm_operand::weight: return trace_tag(tensor_role::weight);
    case gemm_operand::gradient: return trace_tag(tensor_role::grad_input);
  }
  return trace_tag(tensor_role::activation);
}

// Another part of the same operand at the same step.
void merge(scale_observation& into, const scale_observation& part) {
  auto& s = into.stats;
  const auto& p = part.stats;
  s.counts += p.counts;
  for (const auto& [binade, blocks] : p.scale_binades) s.scale_binades[binade] += blocks;
  s.zero_scale_blocks += p.zero_scale_blocks;
  s.signal_energy += p.signal_energy;
  s.noise_energy += p.noise_energy;
  s.nonzero_finite += p.nonzero_finite;
  s.finite += p.finite;
  // The row's amax is the largest part's, and its scale that part's scale,
  // so the two describe the same values: where each part has a scale of its
  // own (NVFP4's second level under the Hadamard transform, taken from each
  // part's transformed values), that is the scale the whole tensor's amax
  // gives; where the parts share the scale, it is that scale.
  if (part.amax > into.amax) {
    into.amax = part.amax;
    into.scale = part.scale;
  }
}

}  // namespace

rundb::scale_stats_record scale_stats_row(rundb::run_id run, const scale_observation& o) {
  rundb::scale_stats_record r;
  r.run = run;
  r.step = static_cast<std::int64_t>(o.step);
  r.layer = o.layer;
  r.op = std::string(o.gemm);
  r.role = std::string(gemm_operand_name(o.operand));
  r.scaled_format = num::scaled_format_name(o.stats.format);
  const auto& c = o.stats.counts;
  r.count = c.elements;
  r.blocks = c.blocks;
  r.amax = o.amax;
  r.scale = o.scale;
  r.amax_history = o.amax_history;
  r.block_underflow = c.block_underflow;
  r.underflow_to_zero = c.underflow_to_zero;
  r.saturated = c.saturated;
  r.scale_underflow = c.scale_underflow;
  r.scale_overflow = c.scale_overflow;
  if (const double snr = o.stats.snr_db(); std::isfinite(snr)) r.snr_db = snr;
  const auto& binades = o.stats.scale_binades;
  if (!binades.empty() || o.stats.zero_scale_blocks > 0) {
    // bins[0]: below the first binade (zero scales); the last bin: above the last (none).
    const int first = binades.empty() ? 0 : binades.begin()->first;
    const int last = binades.empty() ? -1 : binades.rbegin()->first;
    r.scale_hist.first_exponent = first;
    r.scale_hist.bins.assign(static_cast<std::size_t>(last - first + 1) + 2, 0);
    r.scale_hist.bins.front() = o.stats.zero_scale_blocks;
    for (const auto& [binade, blocks] : binades) r.scale_hist.bins[static_cast<std::size_t>(binade - first) + 1] = blocks;
  }
  return r;
}

rundb_scale_sink::rundb_scale_sink(rundb::writer& db, rundb::run_id run, num::sink_filter filter)
    : db_(db), run_(run), filter_(std::move(filter)) {}

rundb_scale_sink::~rundb_scale_sink() {
  try {
    flush();
  } catch (...) {  // a writer failure is reported by the writer's next call
  }
}

bool rundb_scale_sink::wants(std::string_view layer, gemm_operand operand, std::uint64_t step) const {
  std::string site(layer);
  site.append(".").append(gemm_operand_name(operand));
  return filter_.accepts(site, filter_role(operand), step);
}

void rundb_scale_sink::on_scale(const scale_observation& o) {
  auto& kept = pending_.insert_or_assign(std::make_tuple(o.step, o.layer, std::string(o.gemm), o.operand, o.part), o)
                   .first->second;
  kept.stats.amax_over_scale = {};  // per block, and no column of the row
}

void rundb_scale_sink::flush() {
  // The parts of one operand are neighbours in the map, in part order.
  for (auto it = pending_.begin(); it != pending_.end();) {
    const auto& [step, layer, gemm, operand, part] = it->first;
    scale_observation row = it->second;
    auto next = std::next(it);
    for (; next != pending_.end(); ++next) {
      const auto& [s, l, g, o, p] = next->first;
      if (s != step || l != layer || g != gemm || o != operand) break;
      merge(row, next->second);
    }
    db_.add_scale_stats(scale_stats_row(run_, row));
    it = next;
  }
  pending_.clear();
}

}  // namespace lab
