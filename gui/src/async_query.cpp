// The per-view query runner; see async_query.hpp.
#include "async_query.hpp"

#include <algorithm>

namespace numlab_gui {

query_runner::query_runner(QObject* parent, int min_rest_ms) : QObject(parent), min_rest_ms_(min_rest_ms) {
  pool_.setMaxThreadCount(1);
  pool_.setObjectName("numlab-gui queries");
  rest_.setSingleShot(true);
  connect(&rest_, &QTimer::timeout, this, &query_runner::start_pending);
}

query_runner::~query_runner() {
  if (interrupt_) interrupt_->store(true);
  pool_.waitForDone();
}

void query_runner::enqueue(job next, bool interrupts) {
  const bool was_busy = busy();
  if (!running_ && !rest_.isActive()) {
    start(std::move(next));
  } else {
    // A newer request replaces a waiting one: requests never pile up.
    pending_ = std::move(next);
    pending_interrupts_ = pending_interrupts_ || interrupts;
    if (interrupts && running_ && interrupt_) interrupt_->store(true);
    if (interrupts && !running_) {
      rest_.stop();
      start_pending();
    }
  }
  if (!was_busy) emit busy_changed(true);
}

void query_runner::start(job next) {
  running_ = true;
  ++started_;
  most_running_ = std::max(most_running_, ++now_running_);
  clock_.start();
  next();
}

void query_runner::finish(const std::function<void()>& deliver) {
  running_ = false;
  --now_running_;
  interrupt_.reset();
  QElapsedTimer applying;
  applying.start();
  deliver();
  longest_apply_ms_ = std::max(longest_apply_ms_, applying.elapsed());
  if (!pending_) {
    emit busy_changed(false);
    return;
  }
  if (pending_interrupts_) {
    start_pending();
  } else {
    rest_.start(std::max<int>(min_rest_ms_, static_cast<int>(std::min<qint64>(clock_.elapsed(), 10000))));
  }
}

void query_runner::start_pending() {
  if (!pending_ || running_) return;
  job next = std::move(*pending_);
  pending_.reset();
  pending_interrupts_ = false;
  start(std::move(next));
}

}  // namespace numlab_gui
