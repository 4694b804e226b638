// Writing and reading sweep folders, point states, Slurm scripts (sweep/plan.hpp).
#include "sweep/plan.hpp"

#include "sweep/point_lock.hpp"

#include <fstream>
#include <sstream>

#include <lab/errors.hpp>
#include <rundb/errors.hpp>
#include <rundb/reader.hpp>

namespace sweep {
namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `text` to `file` unless it already holds exactly that; a different
// content means the folder belongs to another sweep.
void write_or_match(const std::filesystem::path& file, const std::string& text, const std::filesystem::path& dir) {
  if (std::filesystem::exists(file)) {
    if (read_text(file) == text) return;
    throw lab::input_error(dir.string() + ": holds a different sweep (" + file.filename().string() +
                           " differs); give this spec its own folder");
  }
  const auto partial = file.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary);
    out << text;
    if (!out.flush()) throw lab::input_error(partial + ": cannot write");
  }
  std::filesystem::rename(partial, file);
}

// A word for sh: single-quoted, embedded quotes closed and escaped.
std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// "0-3,5,7-9": consecutive indices as ranges, as sbatch --array takes them.
std::string index_ranges(const std::vector<std::size_t>& indices) {
  std::string out;
  for (std::size_t i = 0; i < indices.size();) {
    std::size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(indices[i]);
    if (j > i) out.append(1, '-').append(std::to_string(indices[j]));
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string_view to_string(point_state state) {
  switch (state) {
    case point_state::finished: return "finished";
    case point_state::diverged: return "diverged";
    case point_state::trapped: return "trapped";
    case point_state::failed: return "failed";
    case point_state::interrupted: return "interrupted";
    case point_state::running: return "running";
    case point_state::killed: return "killed";
    case point_state::not_started: return "not-started";
  }
  return "not-started";
}

bool is_done(point_state state) {
  return state == point_state::finished || state == point_state::diverged || state == point_state::trapped;
}

void write_plan(const spec& s, const std::vector<point>& points, std::span<const std::filesystem::path> config_dirs,
                const std::filesystem::path& dir) {
  const layout files{dir};
  // Resolve every point first: a bad key fails before anything is written.
  std::vector<std::string> configs;
  configs.reserve(points.size());
  for (const auto& p : points) configs.push_back(lab::to_yaml(resolve(s, p, config_dirs)));
  std::filesystem::create_directories(dir / "configs");
  std::filesystem::create_directories(dir / "runs");
  std::filesystem::create_directories(files.logs());
  std::string table = "index\tname";
  for (const auto& a : s.grid) table += "\t" + a.key;
  table += "\n";
  for (const auto& p : points) {
    table += std::to_string(p.index) + "\t" + p.name;
    for (const auto& c : p.coordinates) table += "\t" + c.value;
    table += "\n";
  }
  write_or_match(files.points(), table, dir);
  for (std::size_t i = 0; i < points.size(); ++i) write_or_match(files.config(points[i]), configs[i], dir);
  std::filesystem::copy_file(s.file, dir / "spec.yml", std::filesystem::copy_options::overwrite_existing);
}

std::vector<point> read_plan(const std::filesystem::path& dir) {
  const layout files{dir};
  std::ifstream in(files.points());
  if (!in) throw lab::input_error(dir.string() + ": not a sweep folder (no points.tsv)");
  const auto split = [](const std::string& line) {
    std::vector<std::string> fields;
    std::stringstream row(line);
    std::string field;
    while (std::getline(row, field, '\t')) fields.push_back(field);
    return fields;
  };
  std::string line;
  std::getline(in, line);
  const auto header = split(line);
  if (header.size() < 3 || header[0] != "index" || header[1] != "name") {
    throw lab::input_error(files.points().string() + ":1: not a sweep plan header");
  }
  std::vector<point> points;
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    const auto fields = split(line);
    if (fields.size() != header.size() || fields[0] != std::to_string(points.size())) {
      throw lab::input_error(files.points().string() + ":" + std::to_string(number) + ": malformed point");
    }
    point p{points.size(), fields[1], {}};
    for (std::size_t k = 2; k < fields.size(); ++k) p.coordinates.push_back({header[k], fields[k]});
    points.push_back(std::move(p));
  }
  return points;
}

point_state recorded_state(const layout& files, const point& p) {
  const auto file = files.database(p);
  if (!std::filesystem::exists(file)) return point_state::not_started;
  try {
    rundb::reader db(file);
    const auto runs = db.runs();
    if (runs.empty()) return point_state::running;  // between creating the file and beginning the run
    switch (runs.back().status) {
      case rundb::run_status::finished: return point_state::finished;
      case rundb::run_status::diverged: return point_state::diverged;
      case rundb::run_status::trapped: return point_state::trapped;
      case rundb::run_status::interrupted: return point_state::interrupted;
      case rundb::run_status::running: return point_state::running;
      case rundb::run_status::failed: return point_state::failed;
      case rundb::run_status::killed: return point_state::killed;
    }
  } catch (const rundb::error&) {
    return point_state::failed;  // a file it could not even open: being created, or a crash while it was
  }
  return point_state::failed;
}

// The lock is probed before the database is opened, and a point whose lock a
// live process holds is `running` unread: its writer may be on another node,
// and SQLite in WAL mode wants every reader of a database being written on
// the writer's node (the WAL index is shared memory), so over NFS a reader
// elsewhere may read it torn. Once the lock is seen free it is held shared
// for the read, so that no writer can begin meanwhile.
point_state state_of(const layout& files, const point& p) {
  const auto lock = files.lock(p);
  switch (probe_lock(lock)) {
    case lock_state::held: return point_state::running;
    case lock_state::unknown: return recorded_state(files, p);  // no locks here: nobody can tell running from killed
    case lock_state::free: break;
  }
  if (!std::filesystem::exists(lock)) {
    // Never tried by a `sweep point`; a database here was put by hand (or by a
    // numlab older than the lock), and nobody can be writing it through a sweep.
    const point_state recorded = recorded_state(files, p);
    return recorded == point_state::running ? point_state::killed : recorded;
  }
  const auto hold = point_lock::share_if_idle(lock);
  if (!hold) return point_state::running;  // a `sweep point` took it between the probe and now
  const point_state recorded = recorded_state(files, p);
  if (recorded == point_state::running) return point_state::killed;  // unfinished, and nobody trains it
  // Tried but no database: an error before it made one (its log says which), or killed in that instant.
  if (recorded == point_state::not_started) return point_state::failed;
  return recorded;
}

std::optional<std::pair<layout, point>> point_of_database(const std::filesystem::path& database) {
  const auto runs = database.parent_path();
  if (database.extension() != ".db" || runs.filename() != "runs") return std::nullopt;
  std::pair<layout, point> found{layout{runs.parent_path()}, point{0, database.stem().string(), {}}};
  if (found.first.database(found.second) != database || !std::filesystem::exists(found.first.lock(found.second)))
    return std::nullopt;
  return found;
}

std::string slurm_script(const std::string& sweep_name, const slurm_resources& r, const std::filesystem::path& dir,
                         const std::filesystem::path& numlab, const std::vector<std::size_t>& indices) {
  const layout files{dir};
  std::string s = "#!/bin/bash\n# numlab sweep '" + sweep_name + "': one array task per pending point.\n";
  s += "#SBATCH --job-name=" + sweep_name + "\n";
  s += "#SBATCH --array=" + index_ranges(indices);
  if (r.max_parallel > 0) s.append(1, '%').append(std::to_string(r.max_parallel));
  s += "\n";
  s += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=" + std::to_string(r.cpus_per_task) + "\n";
  s += "#SBATCH --mem=" + r.memory + "\n#SBATCH --time=" + r.time + "\n";
  if (!r.partition.empty()) s += "#SBATCH --partition=" + r.partition + "\n";
  if (!r.account.empty()) s += "#SBATCH --account=" + r.account + "\n";
  for (const auto& o : r.options) s += "#SBATCH " + o + "\n";
  s += "#SBATCH --output=" + (files.logs() / "slurm-%A_%a.out").string() + "\n";
  s += "exec " + shell_quote(numlab.string()) + " sweep point " + shell_quote(dir.string()) +
       " \"$SLURM_ARRAY_TASK_ID\"\n";
  return s;
}

}  // namespace sweep
