// Writing experiment results: results/NAME.md, results/NAME.csv and the
// top-level EXPERIMENTS.md, each replaced atomically.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "experiment.hpp"

namespace numlab::experiments {

/// The Markdown report of one run: description, settings, tables, findings
/// and the comparison with the tutorial's printed values.
std::string render_markdown(const experiment& e, const experiment_result& r);

/// The CSV of one run: every table, blank line between tables.
std::string render_csv(const experiment_result& r);

/// Writes `text` to `path` through a temporary file in the same folder and a
/// rename, so `path` is either its old content or the whole new one. Throws
/// std::runtime_error naming the path on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

/// Writes output_dir/NAME.md and output_dir/NAME.csv (creating the folder);
/// both are fully written to temporaries before either is renamed into place.
void write_results(const experiment& e, const experiment_result& r,
                   const std::filesystem::path& output_dir);

/// EXPERIMENTS.md: for every registered experiment, its results/NAME.md from
/// `output_dir` (or a line saying how to generate it), under one header that
/// says which command regenerated the file.
std::string render_experiments_md(const std::filesystem::path& output_dir);

}  // namespace numlab::experiments
