// numlab.rundb's C++ side: the run-database reader and writer
// (rundb/reader.hpp, rundb/writer.hpp), so Python reads and writes exactly
// the schema numlab inspect and numlab-gui read (rundb/SCHEMA.md).
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <libnum/format.hpp>
#include <rundb/errors.hpp>
#include <rundb/reader.hpp>
#include <rundb/writer.hpp>

#include "bindings.hpp"
#include "numpy_arrays.hpp"

namespace numlab::python {
namespace {

/// What one column's cells hold, which decides its NumPy dtype.
struct column_kind {
  bool blobs = false, text = false, reals = false, nulls = false;
};

column_kind kind_of(const rundb::table& t, std::size_t c) {
  column_kind k;
  for (const auto& row : t.rows) {
    const rundb::cell& v = row[c];
    k.blobs = k.blobs || std::holds_alternative<std::vector<std::uint64_t>>(v) ||
              std::holds_alternative<std::vector<double>>(v);
    k.text = k.text || std::holds_alternative<std::string>(v);
    k.reals = k.reals || std::holds_alternative<double>(v);
    k.nulls = k.nulls || std::holds_alternative<std::monostate>(v);
  }
  return k;
}

py::object object_column(const rundb::table& t, std::size_t c) {
  py::list items;
  for (const auto& row : t.rows) {
    const rundb::cell& v = row[c];
    if (const auto* s = std::get_if<std::string>(&v)) {
      items.append(*s);
    } else if (const auto* counts = std::get_if<std::vector<std::uint64_t>>(&v)) {
      items.append(py::array_t<std::uint64_t>(static_cast<py::ssize_t>(counts->size()), counts->data()));
    } else if (const auto* reals = std::get_if<std::vector<double>>(&v)) {
      items.append(py::array_t<double>(static_cast<py::ssize_t>(reals->size()), reals->data()));
    } else {
      items.append(py::none());
    }
  }
  py::object column = py::module_::import("numpy").attr("empty")(t.rows.size(), py::arg("dtype") = "object");
  for (py::ssize_t i = 0; i < static_cast<py::ssize_t>(t.rows.size()); ++i) {
    column.attr("__setitem__")(i, items[static_cast<std::size_t>(i)]);
  }
  return column;
}

// Integer columns stay int64 unless they hold NULLs; REAL columns (and
// integer ones with NULLs) become float64 with NaN for NULL; TEXT and
// BLOBs become object arrays (str, uint64 count arrays or float64 amax
// histories, None for NULL).
py::object numpy_column(const rundb::table& t, std::size_t c) {
  const column_kind k = kind_of(t, c);
  const auto n = static_cast<py::ssize_t>(t.rows.size());
  if (k.blobs || k.text) return object_column(t, c);
  if (!k.reals && !k.nulls) {
    py::array_t<std::int64_t> column(n);
    for (py::ssize_t i = 0; i < n; ++i) column.mutable_at(i) = std::get<std::int64_t>(t.rows[static_cast<std::size_t>(i)][c]);
    return column;
  }
  py::array_t<double> column(n);
  for (py::ssize_t i = 0; i < n; ++i) {
    const rundb::cell& v = t.rows[static_cast<std::size_t>(i)][c];
    if (const auto* r = std::get_if<double>(&v)) column.mutable_at(i) = *r;
    else if (const auto* j = std::get_if<std::int64_t>(&v)) column.mutable_at(i) = static_cast<double>(*j);
    else column.mutable_at(i) = std::numeric_limits<double>::quiet_NaN();
  }
  return column;
}

py::dict columns_of(const rundb::table& t) {
  py::dict d;
  for (std::size_t c = 0; c < t.columns.size(); ++c) d[py::str(t.columns[c])] = numpy_column(t, c);
  return d;
}

using record = rundb::tensor_stats_record;
/// The keys of a numlab.stats dict and the record fields (table columns) they fill.
constexpr std::pair<const char*, std::uint64_t record::*> count_columns[] = {
    {"count", &record::count},           {"zeros", &record::zeros}, {"subnormals", &record::subnormals},
    {"underflows", &record::underflows}, {"overflows", &record::overflows}, {"nans", &record::nans},
    {"infs", &record::infs}};
constexpr std::pair<const char*, double record::*> real_columns[] = {
    {"min_abs", &record::min_abs}, {"min_nonzero_abs", &record::min_nonzero_abs}, {"max_abs", &record::max_abs},
    {"mean", &record::mean},       {"rms", &record::rms}};

/// A writer the Python object owns until close() (or the end of a with block).
class run_writer {
 public:
  explicit run_writer(const std::filesystem::path& path) : db_(std::make_unique<rundb::writer>(path)) {}

  rundb::run_id begin_run(std::string name, std::string config_yaml, std::string version) {
    rundb::run_info info;
    info.name = std::move(name);
    info.config_yaml = std::move(config_yaml);
    info.numlab_version = std::move(version);
    auto& db = open();
    py::gil_scoped_release unlocked;
    return db.begin_run(std::move(info));
  }

  void add_step(const rundb::step_record& step) { open().add_step(step); }

  // `stats` is a dict as numlab.stats returns it; its format is declared on
  // first use so readers can shade the format's ranges.
  void add_tensor_stats(rundb::run_id run, std::int64_t step, std::string layer, std::string op, std::string role,
                        const py::dict& stats) {
    open().add_tensor_stats(record_of(run, step, std::move(layer), std::move(op), std::move(role), stats));
  }

  // One step's (layer, op, role, stats) tuples, committed together.
  void add_tensor_stats_many(rundb::run_id run, std::int64_t step, const py::list& rows) {
    std::vector<record> batch;
    batch.reserve(rows.size());
    for (const py::handle row : rows) {
      const auto fields = row.cast<py::tuple>();
      if (fields.size() != 4)
        throw py::value_error("add_tensor_stats_many rows: each must be (layer, op, role, stats), got " +
                              std::to_string(fields.size()) + " items");
      batch.push_back(record_of(run, step, fields[0].cast<std::string>(), fields[1].cast<std::string>(),
                                fields[2].cast<std::string>(), fields[3].cast<py::dict>()));
    }
    auto& db = open();
    py::gil_scoped_release unlocked;
    db.add_tensor_stats(std::move(batch));
  }

  void add_event(rundb::run_id run, std::int64_t step, const std::string& kind, std::string message,
                 std::string layer) {
    const auto parsed = rundb::parse_event_kind(kind);
    if (!parsed) throw py::value_error("add_event kind: unknown event kind '" + kind +
                                       "' (expected overflow, nan, skipped, trap or warning)");
    open().add_event({run, step, *parsed, std::move(layer), std::move(message)});
  }

  void finish_run(rundb::run_id run, const std::string& status) {
    const auto parsed = rundb::parse_run_status(status);
    if (!parsed) throw py::value_error("finish_run status: unknown run status '" + status +
                                       "' (expected running, finished, failed, trapped, interrupted, "
                                       "diverged or killed)");
    auto& db = open();
    py::gil_scoped_release unlocked;
    db.finish_run(run, *parsed);
  }

  void flush() {
    auto& db = open();
    py::gil_scoped_release unlocked;
    db.flush();
  }

  void close() {
    py::gil_scoped_release unlocked;
    db_.reset();
  }

 private:
  rundb::writer& open() {
    if (!db_) throw py::value_error("RunWriter: the writer is closed");
    return *db_;
  }

  record record_of(rundb::run_id run, std::int64_t step, std::string layer, std::string op, std::string role,
                   const py::dict& stats) {
    record r;
    r.run = run;
    r.step = step;
    r.layer = std::move(layer);
    r.op = std::move(op);
    r.role = std::move(role);
    r.format = stats["format"].cast<std::string>();
    for (const auto& [key, member] : count_columns) r.*member = stats[key].cast<std::uint64_t>();
    for (const auto& [key, member] : real_columns) r.*member = stats[key].cast<double>();
    if (stats.contains("histogram")) {
      const auto bins = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(stats["histogram"]);
      r.hist.first_exponent = stats["hist_first_exponent"].cast<std::int32_t>();
      r.hist.bins.assign(bins.data(), bins.data() + bins.size());
    }
    declare(r.format);
    return r;
  }

  void declare(const std::string& name) {
    if (!declared_.insert(name).second) return;
    const num::format f = num::parse_format(name);
    open().declare_format({name, f.precision, f.emin, f.emax, f.subnormals, f.infinities});
  }

  std::unique_ptr<rundb::writer> db_;
  std::set<std::string> declared_;
};

}  // namespace

void bind_rundb(py::module_& m) {
  static py::exception<rundb::error> run_database_error(m, "RunDatabaseError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const rundb::error& e) {
      PyErr_SetString(run_database_error.ptr(), e.what());
    }
  });

  py::class_<rundb::reader>(m, "RunReader", "Read-only access to a run database (rundb::reader).")
      .def(py::init<const std::filesystem::path&>(), py::arg("path"))
      .def_static("table_names", &rundb::reader::table_names)
      .def(
          "table",
          [](rundb::reader& r, const std::string& name, std::optional<rundb::run_id> run) {
            return columns_of(r.read_table(name, run));
          },
          py::arg("name"), py::arg("run") = py::none(),
          "A table (or one run's rows of it) as a dict of NumPy columns.");

  py::class_<run_writer>(m, "RunWriter", "Appends runs to a run database (rundb::writer), creating it if absent.")
      .def(py::init<const std::filesystem::path&>(), py::arg("path"))
      .def("begin_run", &run_writer::begin_run, py::arg("name"), py::arg("config_yaml") = "",
           py::arg("numlab_version") = NUMLAB_VERSION, "Inserts a run with status 'running'; returns its id.")
      .def(
          "add_step",
          [](run_writer& w, rundb::run_id run, std::int64_t step, std::int64_t epoch, std::optional<double> loss,
             std::optional<double> loss_scale, bool skipped, std::string skip_reason, std::optional<double> lr,
             std::optional<double> grad_norm, std::optional<double> wall_time) {
            w.add_step({run, step, epoch, loss, loss_scale, skipped, std::move(skip_reason), lr, grad_norm, wall_time});
          },
          py::arg("run"), py::arg("step"), py::kw_only(), py::arg("epoch") = 0, py::arg("loss") = py::none(),
          py::arg("loss_scale") = py::none(), py::arg("skipped") = false, py::arg("skip_reason") = "",
          py::arg("lr") = py::none(), py::arg("grad_norm") = py::none(), py::arg("wall_time") = py::none())
      .def("add_tensor_stats", &run_writer::add_tensor_stats, py::arg("run"), py::arg("step"), py::arg("layer"),
           py::arg("op"), py::arg("role"), py::arg("stats"),
           "Queues one tensor's statistics, a dict as numlab.stats returns it.")
      .def("add_tensor_stats_many", &run_writer::add_tensor_stats_many, py::arg("run"), py::arg("step"),
           py::arg("rows"),
           "Queues a list of (layer, op, role, stats) tuples of one step at once: they commit in one "
           "transaction instead of one each.")
      .def("add_event", &run_writer::add_event, py::arg("run"), py::arg("step"), py::arg("kind"),
           py::arg("message"), py::arg("layer") = "")
      .def("finish_run", &run_writer::finish_run, py::arg("run"), py::arg("status") = "finished")
      .def("flush", &run_writer::flush, "Returns once everything queued is committed.")
      .def("close", &run_writer::close, "Commits everything queued and closes the file.")
      .def("__enter__", [](run_writer& w) -> run_writer& { return w; })
      .def("__exit__", [](run_writer& w, const py::args&) { w.close(); });
}

}  // namespace numlab::python
