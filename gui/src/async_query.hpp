// Runs a view's database queries on the view's own worker thread and hands
// the result (or the error message) back on the UI thread, so views never
// block on SQLite.
//
// Why not QtConcurrent's global pool: Qt's raster paint engine uses that pool
// too, so long queries there stall painting. Each runner owns a one-thread
// pool instead, which also means at most one query per view at a time:
//   - submit() is for what the user asked for: it interrupts the running
//     query (through the flag every query receives) and starts as soon as
//     that one has stopped;
//   - refresh() is for live updates: it never interrupts, and at most one
//     waits; it starts only after a rest as long as the previous query took
//     (at least min_rest_ms), so a slow view reads at most half of the time
//     and the writer's WAL checkpoints can complete in between.
// Queries open their own reader and close it when they return, so no read
// transaction outlives a query. A result superseded by a newer request is
// dropped, never shown.
#pragma once

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace numlab_gui {

/// Set when a query should stop early; queries pass it to rundb::reader.
using interrupt_flag = std::atomic<bool>;

/// Why a view loads: the user asked (interrupts what runs), or the live
/// watcher saw new rows (waits its turn).
enum class reload_cause { user, live };

class query_runner : public QObject {
  Q_OBJECT

 public:
  explicit query_runner(QObject* parent = nullptr, int min_rest_ms = 500);
  /// Interrupts the running query and waits for the worker to finish it.
  ~query_runner() override;

  /// Runs `query` as soon as possible, interrupting a running one; `apply`
  /// or `fail` runs on the UI thread unless a later request superseded it.
  template <typename T>
  void submit(std::function<T(const interrupt_flag&)> query, std::function<void(T)> apply,
              std::function<void(const QString&)> fail) {
    enqueue(make_job<T>(std::move(query), std::move(apply), std::move(fail)), true);
  }
  /// Like submit(), but never interrupts and waits for the rest period.
  template <typename T>
  void refresh(std::function<T(const interrupt_flag&)> query, std::function<void(T)> apply,
               std::function<void(const QString&)> fail) {
    enqueue(make_job<T>(std::move(query), std::move(apply), std::move(fail)), false);
  }

  /// submit() for reload_cause::user, refresh() for reload_cause::live.
  template <typename T>
  void load(reload_cause cause, std::function<T(const interrupt_flag&)> query, std::function<void(T)> apply,
            std::function<void(const QString&)> fail) {
    if (cause == reload_cause::user) submit<T>(std::move(query), std::move(apply), std::move(fail));
    else refresh<T>(std::move(query), std::move(apply), std::move(fail));
  }

  /// True while a query runs or waits.
  bool busy() const { return running_ || pending_.has_value(); }
  /// Queries started so far (tests check that refreshes do not pile up).
  int started() const { return started_; }
  /// The most queries this runner ever had running at once (1 by design).
  int most_running() const { return most_running_; }
  /// The longest time one result took to apply on the UI thread (the view's
  /// own work on it, before painting): what a live refresh can stall.
  qint64 longest_apply_ms() const { return longest_apply_ms_; }

 signals:
  void busy_changed(bool busy);

 private:
  // A job starts its query on the pool and calls finish(apply-or-drop) when done.
  using job = std::function<void()>;

  template <typename T>
  job make_job(std::function<T(const interrupt_flag&)> query, std::function<void(T)> apply,
               std::function<void(const QString&)> fail) {
    return [this, query = std::move(query), apply = std::move(apply), fail = std::move(fail)]() mutable {
      struct outcome {
        std::optional<T> value;
        QString error;
      };
      auto interrupt = std::make_shared<interrupt_flag>(false);
      interrupt_ = interrupt;
      auto* watcher = new QFutureWatcher<outcome>(this);
      connect(watcher, &QFutureWatcherBase::finished, this,
              [this, watcher, apply = std::move(apply), fail = std::move(fail)]() mutable {
                // Moved, not copied: a histogram history is tens of megabytes.
                outcome result = watcher->future().takeResult();
                watcher->deleteLater();
                const bool superseded = pending_.has_value() && pending_interrupts_;
                finish([&] {
                  if (superseded) return;
                  if (result.value) apply(std::move(*result.value));
                  else fail(result.error);
                });
              });
      watcher->setFuture(QtConcurrent::run(&pool_, [query = std::move(query), interrupt]() -> outcome {
        try {
          return {query(*interrupt), {}};
        } catch (const std::exception& e) {
          return {std::nullopt, QString::fromStdString(e.what())};
        }
      }));
    };
  }

  void enqueue(job next, bool interrupts);
  void start(job next);
  void finish(const std::function<void()>& deliver);
  void start_pending();

  QThreadPool pool_;
  QTimer rest_;
  QElapsedTimer clock_;
  int min_rest_ms_;
  bool running_ = false;
  std::optional<job> pending_;
  bool pending_interrupts_ = false;
  std::shared_ptr<interrupt_flag> interrupt_;
  int started_ = 0;
  int most_running_ = 0;
  int now_running_ = 0;
  qint64 longest_apply_ms_ = 0;
};

}  // namespace numlab_gui
