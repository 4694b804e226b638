// Polling of run-database files; see live_watcher.hpp.
#include "live_watcher.hpp"

#include <QFileInfo>

namespace numlab_gui {

live_watcher::live_watcher(QObject* parent, int interval_ms) : QObject(parent) {
  timer_.setInterval(interval_ms);
  connect(&timer_, &QTimer::timeout, this, &live_watcher::poll);
  timer_.start();
}

QString live_watcher::signature(const QString& file) {
  // Commits append to the WAL (or, after a checkpoint, rewrite it in place,
  // which still moves its modification time).
  QString text;
  for (const QString& part : {file, file + "-wal"}) {
    const QFileInfo info(part);
    text += QString("%1:%2;").arg(info.exists() ? info.size() : -1).arg(
        info.exists() ? info.lastModified().toMSecsSinceEpoch() : 0);
  }
  return text;
}

void live_watcher::watch(const QStringList& files) {
  signatures_.clear();
  for (const auto& file : files) signatures_[file] = signature(file);
}

void live_watcher::set_enabled(bool enabled) {
  if (enabled) timer_.start();
  else timer_.stop();
}

void live_watcher::poll() {
  for (auto& [file, last] : signatures_) {
    const QString now = signature(file);
    if (now == last) continue;
    last = now;
    emit changed(file);
  }
}

}  // namespace numlab_gui
