// Runs a database query on Qt's thread pool and hands the result (or the
// error message) back on the UI thread, so views never block on SQLite.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <utility>

namespace numlab_gui {

/// The outcome of a background query: a value, or the message of what failed.
template <typename T>
struct query_result {
  std::optional<T> value;
  QString error;
};

/// Starts `query` on a worker thread; `done` runs on `owner`'s thread when it
/// finishes, unless `owner` was destroyed first.
template <typename T>
void run_query(QObject* owner, std::function<T()> query, std::function<void(query_result<T>)> done) {
  auto* watcher = new QFutureWatcher<query_result<T>>(owner);
  QObject::connect(watcher, &QFutureWatcherBase::finished, owner, [watcher, done = std::move(done)] {
    done(watcher->result());
    watcher->deleteLater();
  });
  watcher->setFuture(QtConcurrent::run([query = std::move(query)]() -> query_result<T> {
    try {
      return {query(), {}};
    } catch (const std::exception& e) {
      return {std::nullopt, QString::fromStdString(e.what())};
    }
  }));
}

/// A view's reload: runs `query` in the background and, unless a later reload
/// has begun meanwhile (`generation`, a member of `owner`, moved on), hands the
/// value to `apply` or the error message to `fail`, both on the UI thread.
template <typename T>
void run_latest_query(QObject* owner, std::uint64_t& generation, std::function<T()> query,
                      std::function<void(T)> apply, std::function<void(const QString&)> fail) {
  const std::uint64_t mine = ++generation;
  run_query<T>(owner, std::move(query),
               [&generation, mine, apply = std::move(apply), fail = std::move(fail)](query_result<T> result) {
                 if (mine != generation) return;
                 if (!result.value) {
                   fail(result.error);
                   return;
                 }
                 apply(std::move(*result.value));
               });
}

}  // namespace numlab_gui
