// Reading sweep specs and expanding their grids (sweep/spec.hpp).
#include "sweep/spec.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <set>

#include <lab/errors.hpp>

namespace sweep {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw lab::input_error(where + ": " + what);
}

std::string where_of(const std::filesystem::path& file, const YAML::Node& node) {
  return file.string() + ":" + std::to_string(node.Mark().line + 1);
}

// A scalar, or a flat list joined by ',' (the form config files give lists in).
std::string value_text(const std::filesystem::path& file, const std::string& key, const YAML::Node& node) {
  std::string text;
  if (node.IsScalar()) {
    text = node.as<std::string>();
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      if (!item.IsScalar()) fail(where_of(file, item), "key '" + key + "': nested lists are not config values");
      if (!text.empty()) text += ',';
      text += item.as<std::string>();
    }
  } else if (!node.IsNull()) {
    fail(where_of(file, node), "key '" + key + "' must be a scalar or a list");
  }
  // Values end up in a tab-separated plan and in file names: one line each.
  if (text.find_first_of("\t\r\n") != std::string::npos) {
    fail(where_of(file, node), "key '" + key + "': a value may not hold a tab or a line break");
  }
  return text;
}

// "A..B" with integers A <= B: every integer from A to B.
bool parse_range(const std::string& text, std::vector<std::string>& out) {
  const auto dots = text.find("..");
  if (dots == std::string::npos) return false;
  long long first = 0, last = 0;
  const char* begin = text.data();
  const auto a = std::from_chars(begin, begin + dots, first);
  const auto b = std::from_chars(begin + dots + 2, begin + text.size(), last);
  if (a.ec != std::errc() || a.ptr != begin + dots || b.ec != std::errc() || b.ptr != begin + text.size()) return false;
  if (last < first || last - first >= 100000) return false;
  for (long long v = first; v <= last; ++v) out.push_back(std::to_string(v));
  return true;
}

axis read_axis(const std::filesystem::path& file, const std::string& key, const YAML::Node& node) {
  axis a{key, {}, where_of(file, node)};
  if (node.IsSequence()) {
    for (const auto& item : node) a.values.push_back(value_text(file, key, item));
  } else if (node.IsScalar()) {
    const std::string text = node.as<std::string>();
    if (text.find("..") != std::string::npos && !parse_range(text, a.values)) {
      fail(a.where, "grid key '" + key + "': '" + text + "' is not a range A..B of integers with A <= B");
    }
    if (a.values.empty()) a.values.push_back(value_text(file, key, node));
  } else {
    fail(a.where, "grid key '" + key + "' needs a list of values or a range A..B");
  }
  if (a.values.empty()) fail(a.where, "grid key '" + key + "' has no values");
  std::set<std::string> seen;
  for (const auto& v : a.values) {
    if (!seen.insert(v).second) fail(a.where, "grid key '" + key + "' lists '" + v + "' twice");
  }
  return a;
}

int read_count(const std::filesystem::path& file, const std::string& key, const YAML::Node& node) {
  const std::string text = value_text(file, key, node);
  int v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || v < 0) {
    fail(where_of(file, node), "slurm." + key + ": '" + text + "' is not a non-negative integer");
  }
  return v;
}

slurm_resources read_slurm(const std::filesystem::path& file, const YAML::Node& node) {
  if (!node.IsMap()) fail(where_of(file, node), "'slurm' must be a mapping");
  slurm_resources r;
  for (const auto& item : node) {
    const auto key = item.first.as<std::string>();
    const YAML::Node& v = item.second;
    if (key == "partition") r.partition = value_text(file, key, v);
    else if (key == "account") r.account = value_text(file, key, v);
    else if (key == "time") r.time = value_text(file, key, v);
    else if (key == "mem") r.memory = value_text(file, key, v);
    else if (key == "cpus_per_task") r.cpus_per_task = read_count(file, key, v);
    else if (key == "max_parallel") r.max_parallel = read_count(file, key, v);
    else if (key == "options" && v.IsSequence()) {
      for (const auto& o : v) r.options.push_back(value_text(file, key, o));
    } else {
      fail(where_of(file, item.first), "unknown slurm key '" + key +
                                           "' (partition, account, time, mem, cpus_per_task, max_parallel, "
                                           "options: a list)");
    }
  }
  if (r.cpus_per_task < 1) fail(where_of(file, node), "slurm.cpus_per_task must be at least 1");
  return r;
}

}  // namespace

spec read_spec(const std::filesystem::path& file) {
  if (!std::filesystem::is_regular_file(file)) throw lab::input_error(file.string() + ": sweep spec not found");
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    fail(file.string() + ":" + std::to_string(e.mark.line + 1), "malformed YAML (" + e.msg + ")");
  }
  if (!root.IsMap()) fail(file.string(), "a sweep spec is a mapping with a 'grid' section");
  spec s;
  s.file = file;
  s.name = file.stem().string();
  bool has_grid = false;
  for (const auto& item : root) {
    const auto key = item.first.as<std::string>();
    const YAML::Node& v = item.second;
    if (key == "name") {
      s.name = value_text(file, key, v);
    } else if (key == "base") {
      s.base = value_text(file, key, v);
    } else if (key == "set" || key == "grid") {
      if (!v.IsMap()) fail(where_of(file, v), "'" + key + "' must be a mapping of config keys");
      std::set<std::string> keys;
      for (const auto& entry : v) {
        const auto name = entry.first.as<std::string>();
        if (!keys.insert(name).second) fail(where_of(file, entry.first), "key '" + name + "' given twice");
        if (key == "set") s.fixed.push_back({name, value_text(file, name, entry.second), where_of(file, entry.first)});
        else s.grid.push_back(read_axis(file, name, entry.second));
      }
      has_grid = has_grid || key == "grid";
    } else if (key == "slurm") {
      s.slurm = read_slurm(file, v);
    } else {
      fail(where_of(file, item.first), "unknown section '" + key + "' (name, base, set, grid, slurm)");
    }
  }
  if (!has_grid || s.grid.empty()) fail(file.string(), "the spec has no 'grid' keys to sweep");
  for (const auto& f : s.fixed) {
    for (const auto& a : s.grid) {
      if (a.key == f.key) fail(f.where, "key '" + f.key + "' is both set and swept (" + a.where + ")");
    }
  }
  if (s.name.empty() || s.name.find_first_of("/\\") != std::string::npos) {
    fail(file.string(), "the sweep name '" + s.name + "' must be non-empty and hold no slash");
  }
  return s;
}

std::string point_name(const std::vector<rundb::coordinate>& coordinates) {
  std::string name;
  for (const auto& [key, value] : coordinates) {
    if (!name.empty()) name += ',';
    name.append(key).append(1, '=').append(value);
  }
  for (char& c : name) {
    const bool kept = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      std::string_view("._+=,-").find(c) != std::string_view::npos;
    if (!kept) c = '_';
  }
  return name;
}

std::vector<point> expand(const spec& s) {
  std::size_t total = 1;
  for (const auto& a : s.grid) {
    if (total > 10'000'000 / a.values.size()) fail(s.file.string(), "the grid has more than 10 million points");
    total *= a.values.size();
  }
  std::vector<point> points(total);
  std::set<std::string> names;
  for (std::size_t i = 0; i < total; ++i) {
    point& p = points[i];
    p.index = i;
    p.coordinates.resize(s.grid.size());
    std::size_t rest = i;  // mixed radix, the last key the fastest digit
    for (std::size_t k = s.grid.size(); k-- > 0;) {
      const auto& values = s.grid[k].values;
      p.coordinates[k] = {s.grid[k].key, values[rest % values.size()]};
      rest /= values.size();
    }
    p.name = point_name(p.coordinates);
    if (!names.insert(p.name).second) {
      fail(s.file.string(), "two grid points are both named '" + p.name +
                                "': values that differ only in characters a file name cannot hold");
    }
  }
  return points;
}

lab::train_config resolve(const spec& s, const point& p, std::span<const std::filesystem::path> config_dirs) {
  lab::train_config config;
  if (!s.base.empty()) {
    const auto beside = s.file.parent_path() / s.base;
    lab::apply_config_file(config, std::filesystem::is_regular_file(beside) ? beside
                                                                             : lab::resolve_config(s.base, config_dirs));
  }
  for (const auto& f : s.fixed) lab::set_config_value(config, f.key, f.value, f.where);
  for (std::size_t k = 0; k < p.coordinates.size(); ++k) {
    lab::set_config_value(config, p.coordinates[k].key, p.coordinates[k].value, s.grid[k].where);
  }
  try {
    lab::validate(config);
  } catch (const lab::input_error& e) {
    throw lab::input_error(s.file.string() + ": point " + p.name + ": " + e.what());
  }
  config.trace.db.clear();
  return config;
}

}  // namespace sweep
