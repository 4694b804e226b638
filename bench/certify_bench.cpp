// `numlab certify`'s two halves side by side, per row of 65536 operand pairs
// on one thread: the AVX-512 round-to-odd oracle, and libnum's scalar core
// (both tininess rules, as the certificate runs it).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include <certify/certificate.hpp>

namespace {

using certify::direction;
using certify::format16;
using certify::operation;

constexpr std::uint16_t first_operand = 0x3C6E;  // a normal number; the row sweeps all second operands

void set_labels(benchmark::State& state, format16 f, operation op) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * certify::row_length));
  state.SetLabel(std::string(certify::name(f)) + " " + std::string(certify::name(op)));
}

void BM_oracle_row(benchmark::State& state) {
  const auto f = static_cast<format16>(state.range(0));
  const auto op = static_cast<operation>(state.range(1));
  if (!certify::oracle_supported()) {
    state.SkipWithError("no AVX-512 F");
    return;
  }
  std::vector<std::uint16_t> bits(certify::row_length);
  std::vector<std::uint8_t> flags(certify::row_length);
  for (auto _ : state) {
    certify::oracle_row(f, op, direction::nearest_even, {first_operand, 0}, bits, flags);
    benchmark::DoNotOptimize(bits.data());
  }
  set_labels(state, f, op);
}

void BM_libnum_row_both_tininess_rules(benchmark::State& state) {
  const auto f = static_cast<format16>(state.range(0));
  const auto op = static_cast<operation>(state.range(1));
  std::vector<std::uint16_t> bits(certify::row_length);
  std::vector<std::uint8_t> flags(certify::row_length);
  const certify::job j{f, op, direction::nearest_even, 1, 1};
  for (auto _ : state) {
    certify::libnum_row(j, {first_operand, 0}, bits, flags);
    benchmark::DoNotOptimize(bits.data());
  }
  set_labels(state, f, op);
}

void formats_and_operations(benchmark::internal::Benchmark* b) {
  for (const format16 f : certify::all_formats) {
    for (const operation op : {operation::add, operation::mul, operation::div}) {
      b->Args({static_cast<int>(f), static_cast<int>(op)});
    }
  }
}

BENCHMARK(BM_oracle_row)->Apply(formats_and_operations)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_libnum_row_both_tininess_rules)->Apply(formats_and_operations)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
