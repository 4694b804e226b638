// Scale statistics into the run database (rundb_scale_sink) and out again:
// one row's histogram worked out by hand, and a traced fp8-delayed run from
// the CLI whose rows, histories and `numlab inspect` summary are checked.
#include <gtest/gtest.h>

#include <rundb/reader.hpp>

#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "lab/rundb_scale_sink.hpp"
#include "temp_dir.hpp"

namespace lab {
namespace {

std::string run_numlab(const std::string& args, int& exit_code) {
  const std::string command = std::string("cd ") + NUMLAB_SOURCE_DIR + " && " + NUMLAB_BINARY + " " + args + " 2>&1";
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) output += buffer.data();
  const int status = pclose(pipe);
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

// The scale_stats rows (with histograms) of `numlab train --config ARGS`
// (synthetic data, batch 8) traced into `db`; empty if the run failed.
std::vector<rundb::scale_stats_record> traced_scale_rows(const std::string& args, const std::filesystem::path& db) {
  int code = -1;
  const std::string out = run_numlab("train --config " + args + " --dataset synthetic --test-limit 8 --batch-size 8 "
                                     "--trace.db " + db.string(), code);
  EXPECT_EQ(code, 0) << out;
  if (code != 0) return {};
  rundb::reader r(db);
  rundb::scale_stats_query q;
  q.run = 1;
  q.with_histograms = true;
  return r.scale_stats(q);
}

TEST(ScaleStatsRow, BinadesBecomeTheHistogramWithZeroScalesBelow) {
  scale_observation o;
  o.layer = "fc";
  o.gemm = "dgrad";
  o.operand = gemm_operand::weight;
  o.step = 7;
  o.stats.format = *num::find_scaled_format("nvfp4");
  o.stats.counts.elements = 64;
  o.stats.counts.blocks = 4;
  o.stats.counts.block_underflow = 3;
  o.stats.scale_binades = {{-9, 1}, {-6, 2}};
  o.stats.zero_scale_blocks = 1;
  o.stats.signal_energy = 100.0;
  o.stats.noise_energy = 1.0;
  o.amax = 2.5;
  o.scale = 0.125;
  o.amax_history = {2.5, 2.0};
  const auto r = scale_stats_row(3, o);
  EXPECT_EQ(r.run, 3);
  EXPECT_EQ(r.step, 7);
  EXPECT_EQ(r.op, "dgrad");
  EXPECT_EQ(r.role, "weight");
  EXPECT_EQ(r.scaled_format, "nvfp4");
  EXPECT_EQ(r.scale_hist.first_exponent, -9);
  // below, -9, -8, -7, -6, above
  EXPECT_EQ(r.scale_hist.bins, (std::vector<std::uint64_t>{1, 1, 0, 0, 2, 0}));
  EXPECT_DOUBLE_EQ(*r.snr_db, 20.0);
  EXPECT_EQ(r.block_underflow, 3u);
  EXPECT_EQ(r.amax_history, (std::vector<double>{2.5, 2.0}));
}

TEST(ScaleStatsRow, PartsMergeInPartOrderWhicheverArrivesFirst) {
  // Signal energies 2^-53, 2^-53, 1 of parts 0, 1, 2 sum to 1 + 2^-52 in part
  // order but to 1 from part 2 on. The row takes the largest amax, part 2's,
  // and that part's scale with it (not part 0's): amax and scale of the same
  // values.
  const double tiny = 0x1p-53;
  const auto part = [&](std::size_t number, double signal, double scale) {
    scale_observation o;
    o.layer = "conv";
    o.gemm = "forward";
    o.operand = gemm_operand::activation;
    o.step = 2;
    o.part = number;
    o.stats.format = *num::find_scaled_format("nvfp4");
    o.stats.counts.elements = 16;
    o.stats.counts.blocks = 1;
    o.stats.signal_energy = signal;
    o.stats.noise_energy = 1.0;
    o.amax = static_cast<double>(number);
    o.scale = scale;
    return o;
  };
  const double in_order = 10.0 * std::log10((tiny + tiny + 1.0) / 3.0);
  ASSERT_NE(in_order, 10.0 * std::log10((1.0 + tiny + tiny) / 3.0));  // the order shows
  testing::temp_dir dir;
  const auto file = dir / "parts.db";
  {
    rundb::writer db(file);
    const auto run = db.begin_run({.name = "parts"});
    rundb_scale_sink sink(db, run, num::sink_filter{});
    sink.on_scale(part(2, 1.0, 0.125));
    sink.on_scale(part(0, tiny, 0.5));
    sink.on_scale(part(1, tiny, 0.25));
    sink.flush();
    db.finish_run(run, rundb::run_status::finished);
  }
  rundb::reader r(file);
  const auto rows = r.scale_stats({.run = r.runs().at(0).id});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].count, 48u);
  EXPECT_EQ(rows[0].amax, 2.0);
  EXPECT_EQ(rows[0].scale, 0.125);
  ASSERT_TRUE(rows[0].snr_db);
  EXPECT_EQ(*rows[0].snr_db, in_order);
}

TEST(ScaleStatsTrace, DelayedRunRecordsEveryOperandAtTracedStepsWithItsHistory) {
  testing::temp_dir dir;
  const auto db = dir / "run.db";
  const auto rows = traced_scale_rows("tutorial_conv_fp8_delayed --train-limit 32 --max-steps 4 --trace.every 2", db);
  ASSERT_FALSE(rows.empty());
  int code = -1;
  // 3 layers (conv1 has no input gradient: no dgrad), steps 0 and 2.
  std::map<std::int64_t, std::size_t> per_step;
  std::map<std::tuple<std::string, std::string, std::string, std::int64_t>, rundb::scale_stats_record> by_key;
  for (const auto& row : rows) {
    ++per_step[row.step];
    by_key[{row.layer, row.op, row.role, row.step}] = row;
  }
  EXPECT_EQ(per_step, (std::map<std::int64_t, std::size_t>{{0, 16}, {2, 16}}));
  for (const auto& [key, row] : by_key) {
    const auto& [layer, op, role, step] = key;
    SCOPED_TRACE(layer + " " + op + " " + role);
    EXPECT_EQ(row.scaled_format, role == "gradient" ? "e5m2/fp32-given/tensor" : "e4m3/fp32-given/tensor");
    ASSERT_TRUE(row.amax && row.scale);
    if (step == 0) {
      EXPECT_EQ(*row.scale, 1.0);  // empty history
      EXPECT_TRUE(row.amax_history.empty());
    } else {
      // Steps 1 and 0, most recent first; step 0's is the amax its row recorded.
      ASSERT_EQ(row.amax_history.size(), 2u);
      EXPECT_EQ(row.amax_history[1], *by_key.at({layer, op, role, 0}).amax);
    }
  }
  const std::string summary = run_numlab("inspect " + db.string(), code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(summary.find("scaled formats: 32 operand records, 16 GEMM operands"), std::string::npos) << summary;
  EXPECT_NE(summary.find("conv2 forward weight [e4m3/fp32-given/tensor]: steps 0..2 (2)"), std::string::npos)
      << summary;
}

TEST(ScaleStatsTrace, Nvfp4RowsRecordTheScaleOfTheirAmaxAlsoForHadamardTransformedConvParts) {
  // NVFP4's tensor scale is RN(amax / (6 * 448)) in fp32, so a row whose amax
  // and scale describe the same values has amax / (2688 * scale) within fp32
  // rounding of 1. conv2d's wgrad runs in parts (chunks of images) and under
  // the Hadamard transform each part takes the scale of its own transformed
  // values: the row must pair the largest part amax with that part's scale
  // (part 0's gave ratios up to 1.28).
  testing::temp_dir dir;
  const auto rows = traced_scale_rows("tutorial_conv_nvfp4 --train-limit 16 --max-steps 2 --trace.every 1",
                                      dir / "nvfp4.db");
  std::size_t wgrad_rows = 0;
  for (const auto& row : rows) {
    SCOPED_TRACE(row.layer + " " + row.op + " " + row.role + " step " + std::to_string(row.step));
    ASSERT_TRUE(row.amax && row.scale);
    EXPECT_NEAR(*row.amax / (2688.0 * *row.scale), 1.0, 0x1p-23);
    wgrad_rows += static_cast<std::size_t>(row.op == "wgrad");
  }
  EXPECT_EQ(wgrad_rows, 12u);  // conv1, conv2, logits x activation, gradient x 2 steps
}

}  // namespace
}  // namespace lab
