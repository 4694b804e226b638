#include "experiments/output.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include <unistd.h>

namespace numlab::experiments {
namespace {

void create_folder(const std::filesystem::path& folder) {
  if (folder.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw std::runtime_error("cannot create folder '" + folder.string() + "': " + error.message());
}

table comparison_table(const std::vector<reference_check>& checks) {
  table t("comparison", "Compared with the tutorials",
          {"quantity measured", "source", "tutorial printed", "numlab measured", "test", "verdict"});
  for (const reference_check& c : checks)
    t.add_row({c.quantity, c.source, c.published, c.computed, c.test, c.verdict});
  return t;
}

table facts_table(const std::vector<reference_fact>& facts) {
  table t("reference-facts", "Reference facts (no measurement could contradict these, so they are not verdicts)",
          {"quantity", "source", "tutorial printed", "numlab", "why not a verdict"});
  for (const reference_fact& f : facts) t.add_row({f.quantity, f.source, f.published, f.numlab, f.why});
  return t;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("cannot read '" + path.string() + "'");
  return text.str();
}

}  // namespace

std::string render_markdown(const experiment& e, const experiment_result& r) {
  std::string out = "## " + std::string(e.name) + "\n\n" + std::string(e.description) + "\n\n";
  if (!r.settings.empty()) {
    out += "Settings:\n\n";
    for (const std::string& s : r.settings) out += "- " + s + "\n";
    out += "\n";
  }
  for (const table& t : r.tables) out += t.to_markdown() + "\n";
  if (!r.findings.empty()) {
    out += "Findings:\n\n";
    for (const std::string& f : r.findings) out += "- " + f + "\n";
    out += "\n";
  }
  if (!r.checks.empty()) out += comparison_table(r.checks).to_markdown() + "\n";
  if (!r.facts.empty()) out += facts_table(r.facts).to_markdown() + "\n";
  return out;
}

std::string render_csv(const experiment_result& r) {
  std::vector<table> all = r.tables;
  if (!r.checks.empty()) all.push_back(comparison_table(r.checks));
  if (!r.facts.empty()) all.push_back(facts_table(r.facts));
  std::string out;
  std::vector<std::string> ids;
  for (const table& t : all) {
    // A reader finds a table by its id, so one id may name only one table.
    if (std::find(ids.begin(), ids.end(), t.id()) != ids.end())
      throw std::logic_error("two tables with the id '" + t.id() + "' in one CSV");
    ids.push_back(t.id());
    if (!out.empty()) out += '\n';
    out += t.to_csv();
  }
  return out;
}

staged_path::staged_path(std::filesystem::path destination)
    : destination_(std::move(destination)),
      temporary_(destination_.string() + ".partial-" + std::to_string(::getpid())) {
  remove_temporary();
}

staged_path::~staged_path() {
  if (!committed_) remove_temporary();
}

void staged_path::commit() {
  std::error_code error;
  std::filesystem::rename(temporary_, destination_, error);
  if (error) {
    throw std::runtime_error("cannot rename '" + temporary_.string() + "' to '" + destination_.string() +
                             "': " + error.message());
  }
  committed_ = true;
}

void staged_path::remove_temporary() const {
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
  // SQLite's companions, left by a process that was killed while recording.
  for (const char* suffix : {"-wal", "-shm", "-journal"})
    std::filesystem::remove(temporary_.string() + suffix, ignored);
}

namespace {

// A file written in full under its staged temporary name.
staged_path staged_text(const std::filesystem::path& destination, std::string_view text) {
  staged_path file(destination);
  std::ofstream out(file.temporary(), std::ios::binary | std::ios::trunc);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write '" + file.temporary().string() + "'");
  return file;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  create_folder(path.parent_path());
  staged_text(path, text).commit();
}

void write_results(const experiment& e, const experiment_result& r, const std::filesystem::path& output_dir) {
  create_folder(output_dir);
  const std::string name(e.name);
  staged_path markdown = staged_text(output_dir / (name + ".md"), render_markdown(e, r));
  staged_path csv = staged_text(output_dir / (name + ".csv"), render_csv(r));
  markdown.commit();
  csv.commit();
}

staged_run_database::staged_run_database(const std::filesystem::path& output_dir, std::string_view name)
    : file_((create_folder(output_dir), output_dir / (std::string(name) + ".db"))) {}

std::optional<std::filesystem::path> staged_run_database::commit() {
  if (!std::filesystem::exists(file_.temporary())) return std::nullopt;
  file_.commit();
  return file_.destination();
}

std::string render_experiments_md(const std::filesystem::path& output_dir) {
  const std::string dir = output_dir.generic_string();
  std::string out =
      "# Experiments\n\n"
      "<!-- Generated by `numlab experiment all --out " + dir +
      " --experiments-md EXPERIMENTS.md` (scripts/regenerate-experiments.sh); do not edit by hand. -->\n\n"
      "After this header the file is the concatenation of `" + dir +
      "/NAME.md` in the order below, each as last generated by `numlab experiment NAME`: the settings, the "
      "tables, the findings, then every value or claim the tutorial printed beside what numlab measured, the "
      "test applied and its verdict (\"not decided\" where a run diverged or one seed gives no estimate of "
      "seed noise), and reference facts that no measurement could contradict. Training comparisons run at 5 "
      "seeds (mean ± sd, paired Student-t intervals). The same tables are in `NAME.csv` (per table a header "
      "row `table,<columns>`, numeric columns without units, the unit in the header; the first field of each "
      "row is the table's id, unique in the file; the comparison rows are the table `comparison`). "
      "Experiments that train also leave `NAME.db`, the run database of their first seed's training runs "
      "(not committed: `numlab inspect NAME.db`, or open it in `numlab-gui`).\n\n"
      "Runs at the tutorials' full sizes (`numlab experiment NAME --full --out " + dir +
      "/full`, one seed unless the file says more, minutes to hours on 2 cores) are not part of this file:";
  std::string full_runs;
  for (const experiment& e : all_experiments()) {
    const std::filesystem::path md = output_dir / "full" / (std::string(e.name) + ".md");
    if (std::filesystem::exists(md)) {
      full_runs += std::string(full_runs.empty() ? " " : ", ") + "[" + std::string(e.name) + "](" + dir + "/full/" +
                   std::string(e.name) + ".md)";
    }
  }
  out += (full_runs.empty() ? std::string(" none yet") : full_runs) + ".\n\n";
  for (const experiment& e : all_experiments()) {
    out += "- [" + std::string(e.name) + "](#" + std::string(e.name) + "): " + std::string(e.description) + "\n";
  }
  out += "\n";
  for (const experiment& e : all_experiments()) {
    const std::filesystem::path md = output_dir / (std::string(e.name) + ".md");
    if (std::filesystem::exists(md)) {
      out += read_file(md);
    } else {
      out += "## " + std::string(e.name) + "\n\n" + std::string(e.description) +
             "\n\nNot generated yet: run `numlab experiment " + std::string(e.name) + " --out " + dir +
             " --experiments-md EXPERIMENTS.md`.\n\n";
    }
  }
  return out;
}

}  // namespace numlab::experiments
