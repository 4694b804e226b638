// IDX and CIFAR-10 readers on small files written here, including corrupt
// ones; batching, shuffling and augmentation.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <set>

#include "lab/batches.hpp"
#include "lab/dataset.hpp"
#include "lab/errors.hpp"
#include "temp_dir.hpp"

namespace lab {
namespace {

using testing::temp_dir;
using testing::write_bytes;

std::vector<unsigned char> idx_bytes(const std::vector<std::uint32_t>& dims, const std::vector<unsigned char>& data) {
  std::vector<unsigned char> out = {0, 0, 0x08, static_cast<unsigned char>(dims.size())};
  for (auto d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<unsigned char>((d >> shift) & 0xff));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

void write_gz(const std::filesystem::path& file, const std::vector<unsigned char>& bytes) {
  gzFile f = gzopen(file.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  gzclose(f);
}

// Three 2x2 images with labels 7, 0, 9.
void write_tiny_fashion(const temp_dir& dir, const std::string& prefix) {
  std::vector<unsigned char> pixels = {0, 255, 51, 102, 1, 2, 3, 4, 5, 6, 7, 8};
  write_gz(dir / (prefix + "-images-idx3-ubyte.gz"), idx_bytes({3, 2, 2}, pixels));
  write_gz(dir / (prefix + "-labels-idx1-ubyte.gz"), idx_bytes({3}, {7, 0, 9}));
}

TEST(IdxReader, ReadsGzippedAndPlainFiles) {
  temp_dir dir;
  write_tiny_fashion(dir, "train");
  const idx_array a = read_idx(dir / "train-images-idx3-ubyte.gz");
  EXPECT_EQ(a.dims, (std::vector<std::size_t>{3, 2, 2}));
  ASSERT_EQ(a.values.size(), 12u);
  EXPECT_EQ(a.values[1], 255);
  write_bytes(dir / "plain", idx_bytes({2}, {4, 5}));
  EXPECT_EQ(read_idx(dir / "plain").values, (std::vector<std::uint8_t>{4, 5}));
}

TEST(IdxReader, LoadsFashionMnistLayout) {
  temp_dir dir;
  write_tiny_fashion(dir, "train");
  write_tiny_fashion(dir, "t10k");
  const dataset d = load_fashion_mnist(dir.path(), "test");
  EXPECT_EQ(d.images.shape(), (shape{3, 1, 2, 2}));
  EXPECT_EQ(d.labels, (std::vector<std::int32_t>{7, 0, 9}));
  EXPECT_FLOAT_EQ(d.images[1], 1.0f);
  EXPECT_FLOAT_EQ(d.images[2], 0.2f);
}

void expect_error_mentions(const std::function<void()>& f, const std::string& a, const std::string& b) {
  try {
    f();
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(a), std::string::npos) << what;
    EXPECT_NE(what.find(b), std::string::npos) << what;
  }
}

TEST(IdxReader, CorruptFilesGiveClearErrors) {
  temp_dir dir;
  const auto f = dir / "bad";
  write_bytes(f, {1, 2, 8, 1, 0, 0, 0, 1, 5});
  expect_error_mentions([&] { read_idx(f); }, f.string(), "magic");
  write_bytes(f, idx_bytes({4}, {1, 2, 3}));
  expect_error_mentions([&] { read_idx(f); }, f.string(), "truncated");
  write_bytes(f, idx_bytes({2}, {1, 2, 3}));
  expect_error_mentions([&] { read_idx(f); }, f.string(), "holds 3");
  auto wrong_type = idx_bytes({1}, {1});
  wrong_type[2] = 0x0d;
  write_bytes(f, wrong_type);
  expect_error_mentions([&] { read_idx(f); }, f.string(), "unsigned byte");
  // a gzip stream cut in half
  const auto gz = dir / "cut.gz";
  write_gz(gz, idx_bytes({3000}, std::vector<unsigned char>(3000, 7)));
  auto size = std::filesystem::file_size(gz);
  std::filesystem::resize_file(gz, size / 2);
  EXPECT_THROW(read_idx(gz), input_error);
  expect_error_mentions([&] { read_idx(dir / "missing.gz"); }, "missing.gz", "not found");
}

TEST(IdxReader, MismatchedImageAndLabelCounts) {
  temp_dir dir;
  write_tiny_fashion(dir, "t10k");
  write_gz(dir / "t10k-labels-idx1-ubyte.gz", idx_bytes({2}, {1, 2}));
  expect_error_mentions([&] { load_fashion_mnist(dir.path(), "test"); }, "3 images", "2 labels");
  write_gz(dir / "t10k-labels-idx1-ubyte.gz", idx_bytes({3}, {1, 2, 10}));
  expect_error_mentions([&] { load_fashion_mnist(dir.path(), "test"); }, "label 10", "index 2");
}

std::vector<unsigned char> cifar_records(const std::vector<unsigned char>& labels) {
  std::vector<unsigned char> out;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    out.push_back(labels[i]);
    for (std::size_t p = 0; p < 3072; ++p) out.push_back(static_cast<unsigned char>((p + i) % 256));
  }
  return out;
}

TEST(CifarReader, ReadsBatchesAndRejectsCorruptOnes) {
  temp_dir dir;
  for (int b = 1; b <= 5; ++b) write_bytes(dir / ("data_batch_" + std::to_string(b) + ".bin"), cifar_records({1, 2}));
  write_bytes(dir / "test_batch.bin", cifar_records({9, 0, 3}));
  const dataset train = load_cifar10(dir.path(), "train");
  EXPECT_EQ(train.images.shape(), (shape{10, 3, 32, 32}));
  EXPECT_EQ(train.labels[9], 2);
  const dataset test = load_cifar10(dir.path(), "test");
  ASSERT_EQ(test.labels, (std::vector<std::int32_t>{9, 0, 3}));
  // record 1, channel 1 (green), pixel 0 = byte 1024 + 1 = 1025 % 256 = 1
  EXPECT_FLOAT_EQ(test.images[3072 + 1024], 1.0f / 255.0f);

  auto truncated = cifar_records({1, 2});
  truncated.pop_back();
  write_bytes(dir / "test_batch.bin", truncated);
  expect_error_mentions([&] { load_cifar10(dir.path(), "test"); }, "test_batch.bin", "whole number");
  write_bytes(dir / "test_batch.bin", cifar_records({11}));
  expect_error_mentions([&] { load_cifar10(dir.path(), "test"); }, "test_batch.bin", "label 11");
  std::filesystem::remove(dir / "data_batch_3.bin");
  expect_error_mentions([&] { load_cifar10(dir.path(), "train"); }, "data_batch_3.bin", "not found");
}

TEST(Batches, ShuffleIsASeededPermutationAndDropLastDrops) {
  const dataset d = make_synthetic(10, 1, 2, 2, 3, 0.1f, 4);
  batch_loader keep(d, 4, true, false, 7);
  batch_loader drop(d, 4, true, true, 7);
  EXPECT_EQ(keep.batches_per_epoch(), 3u);
  EXPECT_EQ(drop.batches_per_epoch(), 2u);
  keep.start_epoch(0);
  std::multiset<float> seen;
  batch b;
  for (std::size_t i = 0; i < 3; ++i) {
    keep.fill(i, b);
    for (std::size_t j = 0; j < b.labels.size(); ++j) seen.insert(b.images[j * 4]);
  }
  std::multiset<float> all;
  for (std::size_t i = 0; i < 10; ++i) all.insert(d.images[i * 4]);
  EXPECT_EQ(seen, all);
  // same seed and epoch: same order; another epoch: another order
  batch a, c;
  keep.start_epoch(1);
  keep.fill(0, a);
  batch_loader again(d, 4, true, false, 7);
  again.start_epoch(1);
  again.fill(0, c);
  EXPECT_EQ(a.labels, c.labels);
  EXPECT_EQ(std::vector<float>(a.images.values().begin(), a.images.values().end()),
            std::vector<float>(c.images.values().begin(), c.images.values().end()));
}

TEST(Batches, CropAndFlipMoveButKeepPixels) {
  dataset d;
  d.images = tensor({1, 1, 3, 3});
  for (std::size_t i = 0; i < 9; ++i) d.images[i] = static_cast<float>(i + 1);
  d.labels = {0};
  batch_loader flip(d, 1, false, false, 1, augmentation{0, true});
  std::size_t mirrored = 0, same = 0;
  batch b;
  for (std::uint64_t e = 0; e < 40; ++e) {
    flip.start_epoch(e);
    flip.fill(0, b);
    if (b.images[0] == 3.0f && b.images[2] == 1.0f) ++mirrored;
    if (b.images[0] == 1.0f && b.images[2] == 3.0f) ++same;
  }
  EXPECT_EQ(mirrored + same, 40u);
  EXPECT_GT(mirrored, 5u);
  EXPECT_GT(same, 5u);
  batch_loader crop(d, 1, false, false, 1, augmentation{1, false});
  for (std::uint64_t e = 0; e < 20; ++e) {
    crop.start_epoch(e);
    crop.fill(0, b);
    // the centre pixel of the crop is always some original pixel
    EXPECT_GE(b.images[4], 1.0f);
    float sum = 0;
    for (float v : b.images.values()) sum += v;
    EXPECT_LE(sum, 45.0f);
  }
}

}  // namespace
}  // namespace lab
