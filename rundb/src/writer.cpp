// The run-database writer: a queue drained by one background thread that
// commits batches in transactions.
#include "rundb/writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "bucket_summary.hpp"
#include "histogram_blob.hpp"
#include "rundb/errors.hpp"
#include "rundb/schema.hpp"
#include "schema_sql.hpp"
#include "sqlite.hpp"

namespace rundb {
namespace {

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

std::int64_t as_int(std::uint64_t count) { return static_cast<std::int64_t>(count); }

// Binds a histogram to its exponent column and the blob column after it (both NULL when empty).
void bind_histogram(detail::statement& st, int exponent_index, const histogram& h) {
  if (h.bins.empty()) {
    st.bind_null(exponent_index).bind_null(exponent_index + 1);
  } else {
    st.bind(exponent_index, std::int64_t{h.first_exponent});
    st.bind_blob(exponent_index + 1, detail::encode_counts(h.bins));
  }
}

}  // namespace

// The writer's connection and its prepared statements; used by one thread at a time.
class writer::connection {
 public:
  explicit connection(const std::filesystem::path& file, bool sync_every_commit)
      : db_(file.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX) {
    if (detail::is_empty_database(db_)) {
      // WAL first: it is persistent and lets readers work alongside the writer.
      db_.exec("PRAGMA journal_mode=WAL");
      detail::create_schema(db_);
    } else {
      detail::check_schema(db_);
      // An older file's tables may reject what this version writes (a
      // 'diverged' status in version 1): it stays readable, not appendable.
      if (const auto version = db_.query_int("PRAGMA user_version"); version != schema_version)
        throw error(file.string() + ": run database schema version " + std::to_string(version) +
                    " was written by an older numlab; write new runs to a new file" +
                    (version >= 3 ? " (or run `numlab inspect --upgrade` on it first)" : ""));
      db_.exec("PRAGMA journal_mode=WAL");
    }
    db_.exec(sync_every_commit ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
    prepare();
  }

  detail::database& db() { return db_; }

  run_id insert_run(const run_info& run) {
    detail::transaction tx(db_);
    insert_run_->bind(1, std::string_view(run.name))
        .bind(2, std::string_view(run.start_time))
        .bind(3, std::string_view(run.config_yaml))
        .bind(4, std::string_view(run.numlab_version))
        .bind(5, std::string_view(run.host))
        .bind(6, to_string(run_status::running));
    insert_run_->run();
    const run_id id = sqlite3_last_insert_rowid(db_.handle());
    tx.commit();
    return id;
  }

  void write(const step_record& s) {
    insert_step_->bind(1, s.run).bind(2, s.step).bind(3, s.epoch).bind(4, s.loss).bind(5, s.loss_scale);
    insert_step_->bind(6, std::int64_t{s.skipped ? 1 : 0});
    if (s.skip_reason.empty()) insert_step_->bind_null(7);
    else insert_step_->bind(7, std::string_view(s.skip_reason));
    insert_step_->bind(8, s.lr).bind(9, s.grad_norm).bind(10, s.wall_time);
    insert_step_->run();
  }

  void write(const tensor_stats_record& t) {
    auto& st = *insert_stats_;
    st.bind(1, t.run).bind(2, t.step).bind(3, std::string_view(t.layer)).bind(4, std::string_view(t.op));
    st.bind(5, std::string_view(t.role)).bind(6, std::string_view(t.format)).bind(7, as_int(t.count));
    st.bind(8, as_int(t.zeros)).bind(9, as_int(t.subnormals)).bind(10, as_int(t.underflows));
    st.bind(11, as_int(t.overflows)).bind(12, as_int(t.nans)).bind(13, as_int(t.infs));
    st.bind(14, t.min_abs).bind(15, t.min_nonzero_abs).bind(16, t.max_abs).bind(17, t.mean);
    st.bind(18, t.rms).bind(19, as_int(t.swamped)).bind(20, as_int(t.partially_swamped));
    bind_histogram(st, 21, t.hist);
    bind_histogram(st, 23, t.ulp_ratio);
    st.run();
    auto [at, added] = touched_.try_emplace({t.run, t.layer, t.role}, t.step, t.step);
    if (!added) {
      at->second.first = std::min(at->second.first, t.step);
      at->second.second = std::max(at->second.second, t.step);
    }
  }

  /// Brings the summaries of the buckets the statistics written since the
  /// last call fall into up to date; called before each commit.
  void summarize_touched_buckets() {
    for (const auto& [site, steps] : touched_) {
      const auto& [run, layer, role] = site;
      summarizer_->append(run, layer, role, steps.first, steps.second);
    }
    touched_.clear();
  }

  /// Forgets the buckets touched by a batch that was rolled back.
  void forget_touched_buckets() {
    touched_.clear();
    summarizer_->forget();
  }

  void write(const event_record& e) {
    insert_event_->bind(1, e.run).bind(2, e.step).bind(3, to_string(e.kind));
    if (e.layer.empty()) insert_event_->bind_null(4);
    else insert_event_->bind(4, std::string_view(e.layer));
    insert_event_->bind(5, std::string_view(e.message));
    insert_event_->run();
  }

  void write(const evaluation_record& e) {
    insert_evaluation_->bind(1, e.run).bind(2, e.epoch).bind(3, e.step);
    if (std::isnan(e.loss)) insert_evaluation_->bind_null(4);
    else insert_evaluation_->bind(4, e.loss);
    insert_evaluation_->bind(5, e.accuracy).run();
  }

  void write(const scale_stats_record& t) {
    auto& st = *insert_scale_stats_;
    st.bind(1, t.run).bind(2, t.step).bind(3, std::string_view(t.layer)).bind(4, std::string_view(t.op));
    st.bind(5, std::string_view(t.role)).bind(6, std::string_view(t.scaled_format));
    st.bind(7, as_int(t.count)).bind(8, as_int(t.blocks)).bind(9, t.amax).bind(10, t.scale);
    if (t.amax_history.empty()) st.bind_null(11);
    else st.bind_blob(11, detail::encode_reals(t.amax_history));
    st.bind(12, as_int(t.block_underflow)).bind(13, as_int(t.underflow_to_zero)).bind(14, as_int(t.saturated));
    st.bind(15, as_int(t.scale_underflow)).bind(16, as_int(t.scale_overflow)).bind(17, t.snr_db);
    bind_histogram(st, 18, t.scale_hist);
    st.run();
  }

  void write(const coordinates_job& c) {
    run_exists_->bind(1, c.run);
    const bool known = run_exists_->step();
    run_exists_->reset();
    if (!known) throw error(db_.file() + ": set_coordinates: no run with id " + std::to_string(c.run));
    delete_coordinates_->bind(1, c.run).run();
    for (const auto& [key, value] : c.coordinates) {
      insert_coordinate_->bind(1, c.run).bind(2, std::string_view(key)).bind(3, std::string_view(value)).run();
    }
  }

  void write(const shadow_error_record& e) {
    insert_shadow_->bind(1, e.run).bind(2, e.step).bind(3, std::string_view(e.layer));
    insert_shadow_->bind(4, std::string_view(e.role)).bind(5, e.rel_error).run();
  }

  void write(const format_info& f) {
    insert_format_->bind(1, std::string_view(f.name)).bind(2, std::int64_t{f.precision});
    insert_format_->bind(3, std::int64_t{f.emin}).bind(4, std::int64_t{f.emax});
    insert_format_->bind(5, std::int64_t{f.subnormals}).bind(6, std::int64_t{f.infinities}).run();
  }

  void write(const finish_job& f) {
    finish_run_->bind(1, to_string(f.status)).bind(2, std::string_view(utc_now_iso8601()));
    finish_run_->bind(3, f.run).run();
    if (sqlite3_changes(db_.handle()) != 1) {
      throw error(db_.file() + ": finish_run: no run with id " + std::to_string(f.run));
    }
  }

 private:
  void prepare() {
    using detail::statement;
    insert_run_ = std::make_unique<statement>(db_,
        "INSERT INTO runs(name, start_time, config_yaml, numlab_version, host, status) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    insert_step_ = std::make_unique<statement>(db_,
        "INSERT OR REPLACE INTO steps(run_id, step, epoch, loss, loss_scale, skipped, "
        "skip_reason, lr, grad_norm, wall_time) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
    insert_stats_ = std::make_unique<statement>(db_,
        "INSERT INTO tensor_stats(run_id, step, layer, op, role, format, count, zeros, "
        "subnormals, underflows, overflows, nans, infs, min_abs, min_nonzero_abs, max_abs, "
        "mean, rms, swamped, partially_swamped, hist_first_exponent, histogram, "
        "ulp_ratio_first_exponent, ulp_ratio_histogram) VALUES "
        "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24)");
    insert_event_ = std::make_unique<statement>(db_,
        "INSERT INTO events(run_id, step, kind, layer, message) VALUES (?1,?2,?3,?4,?5)");
    insert_evaluation_ = std::make_unique<statement>(db_,
        "INSERT INTO evaluations(run_id, epoch, step, loss, accuracy) VALUES (?1,?2,?3,?4,?5)");
    insert_shadow_ = std::make_unique<statement>(db_,
        "INSERT INTO shadow_errors(run_id, step, layer, role, rel_error) VALUES (?1,?2,?3,?4,?5)");
    insert_format_ = std::make_unique<statement>(db_,
        "INSERT OR REPLACE INTO formats(name, precision, emin, emax, subnormals, infinities) "
        "VALUES (?1,?2,?3,?4,?5,?6)");
    insert_scale_stats_ = std::make_unique<statement>(db_,
        "INSERT INTO scale_stats(run_id, step, layer, op, role, scaled_format, count, blocks, amax, scale, "
        "amax_history, block_underflow, underflow_to_zero, saturated, scale_underflow, scale_overflow, "
        "snr_db, scale_hist_first_exponent, scale_histogram) VALUES "
        "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)");
    run_exists_ = std::make_unique<statement>(db_, "SELECT 1 FROM runs WHERE id = ?1");
    delete_coordinates_ = std::make_unique<statement>(db_, "DELETE FROM run_coordinates WHERE run_id = ?1");
    insert_coordinate_ = std::make_unique<statement>(db_,
        "INSERT INTO run_coordinates(run_id, key, value) VALUES (?1, ?2, ?3)");
    finish_run_ = std::make_unique<statement>(db_,
        "UPDATE runs SET status = ?1, end_time = ?2 WHERE id = ?3");
    summarizer_ = std::make_unique<detail::bucket_summarizer>(db_);
  }

  detail::database db_;
  std::unique_ptr<detail::statement> insert_run_, insert_step_, insert_stats_, insert_event_,
      insert_evaluation_, insert_shadow_, insert_format_, insert_scale_stats_, run_exists_,
      delete_coordinates_, insert_coordinate_, finish_run_;
  std::unique_ptr<detail::bucket_summarizer> summarizer_;
  // Per (run, layer, role) of the current batch: the first and last step written.
  std::map<std::tuple<run_id, std::string, std::string>, std::pair<std::int64_t, std::int64_t>> touched_;
};

writer::writer(std::filesystem::path file, writer_options options)
    : path_(std::move(file)), options_(options) {
  if (options_.max_batch == 0) options_.max_batch = 1;
  if (options_.max_queued == 0) options_.max_queued = 1;
  db_ = std::make_unique<connection>(path_, options_.sync_every_commit);
  worker_ = std::thread([this] { background_loop(); });
}

writer::~writer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  worker_.join();
}

run_id writer::begin_run(run_info run) {
  if (run.start_time.empty()) run.start_time = utc_now_iso8601();
  if (run.host.empty()) run.host = host_name();
  {
    std::lock_guard lock(mutex_);
    throw_if_failed();
  }
  std::lock_guard db_lock(db_mutex_);
  return db_->insert_run(run);
}

void writer::add_step(step_record step) { enqueue(std::move(step)); }

namespace {

void check_histograms(const std::filesystem::path& path, const tensor_stats_record& stats) {
  if (stats.hist.bins.size() == 1 || stats.ulp_ratio.bins.size() == 1) {
    throw error(path.string() + ": histogram of " + stats.layer + "/" + stats.role +
                " has 1 bin; it needs an underflow and an overflow bin at least");
  }
}

}  // namespace

void writer::add_tensor_stats(tensor_stats_record stats) {
  check_histograms(path_, stats);
  enqueue(std::move(stats));
}

void writer::add_tensor_stats(std::vector<tensor_stats_record> batch) {
  for (const tensor_stats_record& stats : batch) check_histograms(path_, stats);
  std::vector<job> items;
  items.reserve(batch.size());
  for (tensor_stats_record& stats : batch) items.emplace_back(std::move(stats));
  enqueue_all(std::move(items));
}

void writer::add_event(event_record event) { enqueue(std::move(event)); }
void writer::add_evaluation(evaluation_record evaluation) { enqueue(std::move(evaluation)); }
void writer::add_shadow_error(shadow_error_record error) { enqueue(std::move(error)); }
void writer::declare_format(format_info format) { enqueue(std::move(format)); }

void writer::add_scale_stats(scale_stats_record stats) {
  if (stats.scale_hist.bins.size() == 1) {
    throw error(path_.string() + ": scale histogram of " + stats.layer + "/" + stats.role +
                " has 1 bin; it needs an underflow and an overflow bin at least");
  }
  enqueue(std::move(stats));
}

void writer::set_coordinates(run_id run, std::vector<coordinate> coordinates) {
  std::set<std::string_view> keys;
  for (const auto& c : coordinates) {
    if (c.key.empty()) throw error(path_.string() + ": run " + std::to_string(run) + ": empty coordinate key");
    if (!keys.insert(c.key).second) {
      throw error(path_.string() + ": run " + std::to_string(run) + ": coordinate key '" + c.key + "' given twice");
    }
  }
  enqueue(coordinates_job{run, std::move(coordinates)});
}

void writer::finish_run(run_id run, run_status status) {
  enqueue(finish_job{run, status});
  flush();
}

void writer::flush() {
  std::unique_lock lock(mutex_);
  const std::uint64_t target = enqueued_;
  progress_.wait(lock, [&] { return committed_ >= target || failure_; });
  throw_if_failed();
}

void writer::enqueue(job item) {
  std::unique_lock lock(mutex_);
  throw_if_failed();
  progress_.wait(lock, [&] { return queue_.size() < options_.max_queued || failure_; });
  throw_if_failed();
  queue_.push_back(std::move(item));
  ++enqueued_;
  lock.unlock();
  work_ready_.notify_one();
}

void writer::enqueue_all(std::vector<job> items) {
  if (items.empty()) return;
  std::unique_lock lock(mutex_);
  throw_if_failed();
  // All at once, so the worker wakes to the whole batch; like enqueue, it
  // waits only while the queue is full, so a batch larger than max_queued
  // still goes in (the queue overshoots once rather than never draining).
  progress_.wait(lock, [&] { return queue_.size() < options_.max_queued || failure_; });
  throw_if_failed();
  for (job& item : items) queue_.push_back(std::move(item));
  enqueued_ += items.size();
  lock.unlock();
  work_ready_.notify_one();
}

void writer::throw_if_failed() {
  if (!failure_) return;
  try {
    std::rethrow_exception(failure_);
  } catch (const error&) {
    throw;
  } catch (const std::exception& e) {
    throw error(path_.string() + ": writing failed: " + e.what());
  }
}

void writer::background_loop() {
  std::vector<job> batch;
  for (;;) {
    batch.clear();
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping with nothing left
      while (!queue_.empty() && batch.size() < options_.max_batch) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    progress_.notify_all();  // producers waiting on back-pressure may continue
    std::exception_ptr failed;
    {
      std::lock_guard lock(mutex_);
      failed = failure_;
    }
    if (!failed) {
      try {
        std::lock_guard db_lock(db_mutex_);
        detail::transaction tx(db_->db());
        for (const job& item : batch) std::visit([&](const auto& r) { db_->write(r); }, item);
        db_->summarize_touched_buckets();
        tx.commit();
      } catch (...) {
        db_->forget_touched_buckets();
        failed = std::current_exception();
      }
    }
    {
      std::lock_guard lock(mutex_);
      if (failed && !failure_) failure_ = failed;
      committed_ += batch.size();  // after a failure, jobs are dropped but still counted
    }
    progress_.notify_all();
  }
}

}  // namespace rundb
