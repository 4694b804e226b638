// The committed EXPERIMENTS.md is exactly its header, index and the
// concatenation of the committed results/NAME.md files, so it cannot drift
// from the results it summarises.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "experiments/experiment.hpp"
#include "experiments/output.hpp"

namespace numlab::experiments {
namespace {

const std::filesystem::path source_dir = NUMLAB_SOURCE_DIR;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ExperimentsMd, EndsWithTheConcatenationOfResultsMarkdownInRegistryOrder) {
  const std::string committed = read_text(source_dir / "EXPERIMENTS.md");
  std::string sections;
  for (const experiment& e : all_experiments()) {
    const auto md = source_dir / "results" / (std::string(e.name) + ".md");
    ASSERT_TRUE(std::filesystem::exists(md)) << md;
    sections += read_text(md);
  }
  ASSERT_GE(committed.size(), sections.size());
  EXPECT_EQ(committed.substr(committed.size() - sections.size()), sections)
      << "EXPERIMENTS.md is stale: run scripts/regenerate-experiments.sh";
}

TEST(ExperimentsMd, IsWhatRenderingTheResultsFolderGives) {
  // render_experiments_md names the folder as it is given, so render from the source tree.
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(source_dir);
  const std::string rendered = render_experiments_md("results");
  std::filesystem::current_path(previous);
  EXPECT_EQ(read_text(source_dir / "EXPERIMENTS.md"), rendered);
}

TEST(ExperimentsMd, EveryResultsMarkdownBelongsToARegisteredExperiment) {
  std::set<std::string> names;
  for (const experiment& e : all_experiments()) names.insert(std::string(e.name));
  for (const auto& entry : std::filesystem::directory_iterator(source_dir / "results")) {
    if (entry.path().extension() != ".md") continue;
    EXPECT_EQ(names.count(entry.path().stem().string()), 1u) << entry.path();
  }
}

}  // namespace
}  // namespace numlab::experiments
