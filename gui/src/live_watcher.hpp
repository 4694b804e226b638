// Notices when a run database changes on disk (a trainer committing to it)
// by polling the size and time of the file and its WAL, without any query,
// so live views refresh only when there is something new.
#pragma once

#include <QObject>
#include <QStringList>
#include <QTimer>

#include <map>

namespace numlab_gui {

class live_watcher : public QObject {
  Q_OBJECT

 public:
  explicit live_watcher(QObject* parent = nullptr, int interval_ms = 1000);

  /// Replaces the set of watched files; their current state is the baseline.
  void watch(const QStringList& files);
  void set_enabled(bool enabled);
  bool enabled() const { return timer_.isActive(); }
  void set_interval(int interval_ms) { timer_.setInterval(interval_ms); }

 signals:
  /// `file` (or its write-ahead log) changed since the last poll.
  void changed(const QString& file);

 private:
  void poll();
  static QString signature(const QString& file);

  QTimer timer_;
  std::map<QString, QString> signatures_;
};

}  // namespace numlab_gui
