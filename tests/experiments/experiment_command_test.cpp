// `numlab experiment ...` as a user runs it: exit codes, messages, files.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <rundb/reader.hpp>

namespace {

struct command_result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

command_result run_numlab(const std::string& arguments) {
  const std::string command = std::string(NUMLAB_BINARY) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::string output;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::filesystem::path fresh_folder(const std::string& name) {
  const auto folder = std::filesystem::temp_directory_path() / ("numlab-experiment-test-" + name);
  std::filesystem::remove_all(folder);
  return folder;
}

TEST(ExperimentCommand, UnknownNameExitsWithCodeTwoAndNamesIt) {
  const command_result r = run_numlab("experiment nonsense");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("numlab: unknown experiment 'nonsense'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("swamping-add"), std::string::npos) << r.output;
}

TEST(ExperimentCommand, ListShowsEveryExperiment) {
  const command_result r = run_numlab("experiment list");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* name : {"swamping-add", "swamping-sum", "formats", "optimizer-epsilon", "harmonic"}) {
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  }
}

TEST(ExperimentCommand, WritesMarkdownCsvAndExperimentsMd) {
  const auto folder = fresh_folder("formats");
  const auto summary = folder / "EXPERIMENTS.md";
  const command_result r = run_numlab("experiment formats --tiny --out " + folder.string() + " --experiments-md " +
                                      summary.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("| fp16 | 16 | 16 | 5 | 10 | 65504 |"), std::string::npos);
  const std::string md = read_file(folder / "formats.md");
  EXPECT_NE(md.find("| fp16 | 16 | 16 | 5 | 10 | 65504 |"), std::string::npos);
  EXPECT_NE(read_file(folder / "formats.csv").find("parameters,fp16,16,16,5,10,65504,"), std::string::npos);
  const std::string all = read_file(summary);
  EXPECT_NE(all.find(md), std::string::npos);
  EXPECT_NE(all.find("Not generated yet: run `numlab experiment harmonic"), std::string::npos);
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    EXPECT_EQ(entry.path().string().find(".partial"), std::string::npos) << entry.path();
  }
  std::filesystem::remove_all(folder);
}

TEST(ExperimentCommand, TrainingExperimentWritesARunDatabaseWithEachTrainingRun) {
  const auto folder = fresh_folder("amp-mlp");
  const command_result r = run_numlab("experiment amp-mlp --tiny --out " + folder.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto file = folder / "amp-mlp.db";
  EXPECT_NE(r.output.find("wrote " + file.string()), std::string::npos) << r.output;
  rundb::reader db(file);
  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].name, "fp32");
  EXPECT_EQ(runs[1].name, "autocast fp16 + GradScaler");
  EXPECT_EQ(runs[2].name, "autocast bf16");
  for (const auto& run : runs) {
    EXPECT_EQ(run.status, rundb::run_status::finished) << run.name;
    EXPECT_FALSE(db.steps(run.id).empty()) << run.name;
    EXPECT_FALSE(db.tensor_stats({.run = run.id}).empty()) << run.name;
    EXPECT_EQ(db.evaluations(run.id).size(), 1u) << run.name;  // one epoch at the tiny size
  }
  // The fp16 run's tensors are recorded in fp16 where autocast computes in it.
  bool fp16_rows = false;
  for (const auto& row : db.tensor_stats({.run = runs[1].id})) fp16_rows = fp16_rows || row.format == "fp16";
  EXPECT_TRUE(fp16_rows);
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    EXPECT_EQ(entry.path().string().find(".partial"), std::string::npos) << entry.path();
  }
  std::filesystem::remove_all(folder);
}

TEST(ExperimentCommand, UnwritableOutputFolderExitsWithCodeTwoAndWritesNothing) {
  const auto folder = fresh_folder("blocked");
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "file") << "not a folder";
  const command_result r = run_numlab("experiment formats --out " + (folder / "file" / "sub").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("numlab: cannot create folder"), std::string::npos) << r.output;
  std::filesystem::remove_all(folder);
}

}  // namespace
