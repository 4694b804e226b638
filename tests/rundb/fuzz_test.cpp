// The reader never crashes on damaged files: truncated and bit-flipped copies
// of a real database either read normally or throw a rundb::error.
#include <gtest/gtest.h>

#include <random>

#include "rundb/errors.hpp"
#include "rundb/reader.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb_test;

// Calls every reader query once; lets only rundb::error escape.
void read_everything(const std::filesystem::path& file) {
  rundb::reader r(file);
  for (const auto& run : r.runs()) {
    r.run(run.id);
    r.step_count(run.id);
    r.last_step(run.id);
    r.steps(run.id);
    r.steps(run.id, {}, 7);
    r.skipped_steps(run.id);
    r.stats_steps(run.id);
    r.roles(run.id);
    r.totals_by_layer(run.id);
    r.counts_by_layer_and_step(run.id, "grad_weight", rundb::counted_stat::overflows, 3);
    r.tensor_stats({.run = run.id, .with_histograms = true});
    for (const auto& layer : r.layers(run.id)) r.histogram(run.id, layer, "grad_weight", 1000);
    r.events(run.id);
    r.evaluations(run.id);
    r.shadow_errors(run.id);
  }
  r.format("binary16");
  for (const auto& name : rundb::reader::table_names()) r.read_table(name);
  r.data_version();
}

enum class outcome { read, clear_error };

outcome try_read(const std::filesystem::path& file, const std::string& bytes) {
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
  write_file(file, bytes);
  try {
    read_everything(file);
    return outcome::read;
  } catch (const rundb::error& e) {
    EXPECT_NE(std::string(e.what()).find(file.filename().string()), std::string::npos)
        << "error does not name the file: " << e.what();
    return outcome::clear_error;
  }
}

class RundbFuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    write_sample(dir_ / "original.db");
    original_ = read_bytes(dir_ / "original.db");
    ASSERT_GT(original_.size(), 8192u);
    ASSERT_EQ(try_read(dir_ / "copy.db", original_), outcome::read);
  }
  scratch_dir dir_{"fuzz"};
  std::string original_;
};

TEST_F(RundbFuzz, TruncatedCopiesReadOrFailClearly) {
  std::vector<std::size_t> sizes{0, 1, 15, 16, 99, 100, 101, 511, 512, 1024};
  for (std::size_t page = 4096; page < original_.size(); page += 4096) {
    for (std::size_t delta : {page - 1, page, page + 1, page + 100}) sizes.push_back(delta);
  }
  std::size_t clear_errors = 0;
  for (std::size_t size : sizes) {
    if (size >= original_.size()) continue;
    if (try_read(dir_ / "copy.db", original_.substr(0, size)) == outcome::clear_error) ++clear_errors;
  }
  EXPECT_GT(clear_errors, 0u);  // truncation must be noticed at least sometimes
}

TEST_F(RundbFuzz, BitFlippedCopiesReadOrFailClearly) {
  std::mt19937_64 rng(20261122);
  std::uniform_int_distribution<std::size_t> position(0, original_.size() - 1);
  std::uniform_int_distribution<int> bit(0, 7);
  std::size_t clear_errors = 0;
  auto flip_and_read = [&](std::string bytes, std::size_t at) {
    bytes[at] = static_cast<char>(bytes[at] ^ (1 << bit(rng)));
    if (try_read(dir_ / "copy.db", bytes) == outcome::clear_error) ++clear_errors;
  };
  for (std::size_t at = 0; at < 100; ++at) flip_and_read(original_, at);  // the file header
  for (std::size_t page = 0; page < original_.size(); page += 4096) {   // page headers
    for (std::size_t at = page + (page == 0 ? 100 : 0); at < page + 112 && at < original_.size(); at += 3) {
      flip_and_read(original_, at);
    }
  }
  for (int i = 0; i < 600; ++i) {  // anywhere, several bits at once
    std::string bytes = original_;
    for (int k = 0; k < 1 + i % 4; ++k) {
      const std::size_t at = position(rng);
      bytes[at] = static_cast<char>(bytes[at] ^ (1 << bit(rng)));
    }
    if (try_read(dir_ / "copy.db", bytes) == outcome::clear_error) ++clear_errors;
  }
  EXPECT_GT(clear_errors, 0u);
}

}  // namespace
