// `numlab inspect RUN.db`: summarise runs stored in a run database, show one
// layer's history, or export a table as CSV / JSON. Reads through
// rundb::reader only, so it works while a trainer is still writing the file.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "rundb/compare.hpp"
#include "rundb/export.hpp"
#include "rundb/reader.hpp"
#include "rundb/schema.hpp"
#include "rundb/summary.hpp"
#include "rundb/upgrade.hpp"

namespace numlab::cli {
namespace {

struct inspect_options {
  std::string file;
  std::optional<std::int64_t> run;
  std::string layer;
  std::string csv_table;
  std::string json_table;
  bool first_nonfinite = false;
  std::string compare;
  bool upgrade = false;
};

// "a,b" -> {"a", "b"}
std::vector<std::string> split_keys(const std::string& text) {
  std::vector<std::string> keys;
  std::size_t from = 0;
  for (;;) {
    const auto comma = text.find(',', from);
    keys.push_back(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) return keys;
    from = comma + 1;
  }
}

void run_inspect(const inspect_options& o) {
  if (o.upgrade) {
    const int was = rundb::upgrade(o.file);
    std::cout << o.file << ": schema version " << was
              << (was == rundb::schema_version ? ", already current\n"
                                               : " upgraded to " + std::to_string(rundb::schema_version) + "\n");
    return;
  }
  rundb::reader db(o.file);
  if (!o.compare.empty()) {
    const auto keys = split_keys(o.compare);
    rundb::write_comparison(keys, rundb::compare_runs(db, keys), std::cout);
    return;
  }
  if (!o.csv_table.empty() || !o.json_table.empty()) {
    if (o.run) db.run(*o.run);  // a clear error for an unknown id
    const bool csv = !o.csv_table.empty();
    const auto data = db.read_table(csv ? o.csv_table : o.json_table, o.run);
    if (csv) rundb::write_csv(data, std::cout);
    else rundb::write_json(data, std::cout);
    return;
  }
  std::vector<rundb::run_id> runs;
  if (o.run) {
    runs.push_back(db.run(*o.run).id);
  } else {
    for (const auto& r : db.runs()) runs.push_back(r.id);
  }
  if (runs.empty()) {
    std::cout << o.file << ": no runs recorded yet\n";
    return;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i) std::cout << "\n";
    if (o.first_nonfinite) rundb::write_first_nonfinite(db, runs[i], std::cout);
    else if (o.layer.empty()) rundb::write_run_summary(db, runs[i], std::cout);
    else rundb::write_layer_history(db, runs[i], o.layer, std::cout);
  }
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto options = std::make_shared<inspect_options>();
  auto* cmd = app.add_subcommand("inspect", "Summarise a run database, show a layer, or export a table");
  cmd->add_option("file", options->file, "Run database (.db)")->required();
  cmd->add_option("--run", options->run, "Only this run id (default: every run in the file)");
  cmd->add_option("--layer", options->layer, "Show this layer's statistics at every recorded step");
  auto* first = cmd->add_flag("--first-nonfinite", options->first_nonfinite,
                               "Show where each run first went NaN or infinite, and what followed");
  std::string tables;
  for (const auto& name : rundb::reader::table_names()) tables += (tables.empty() ? "" : ", ") + name;
  auto* csv = cmd->add_option("--csv", options->csv_table, "Export TABLE as CSV to stdout (" + tables + ")");
  auto* json = cmd->add_option("--json", options->json_table, "Export TABLE as JSON to stdout");
  auto* compare = cmd->add_option("--compare", options->compare,
                                  "Compare the runs grouped by sweep KEY (or KEY,KEY...): outcomes, final accuracy, "
                                  "overflow events and skipped steps as mean ± sd");
  auto* upgrade = cmd->add_flag("--upgrade", options->upgrade,
                                "Upgrade the file in place from schema version 3 to this numlab's version (adds the "
                                "per-bucket summaries the viewer reads)");
  upgrade->excludes(csv)->excludes(json)->excludes(first)->excludes(compare);
  compare->excludes(csv)->excludes(json)->excludes(first);
  csv->excludes(json);
  first->excludes(csv)->excludes(json);
  cmd->callback([options] { run_inspect(*options); });
}

}  // namespace numlab::cli
