// Problems: the first screen. What went wrong in the shown run, each item
// one click from where it shows: the first overflow / Inf, the first NaN,
// the skipped steps, and the layers whose values underflow to zero most.
// The first three come from indexed queries (fast on any run); the
// underflow ranking scans every statistics row, so it follows on its own.
#pragma once

#include <QWidget>

#include <optional>

#include "async_query.hpp"
#include "run_data.hpp"

class QLabel;
class QPushButton;

namespace numlab_gui {

class problems_view : public QWidget {
  Q_OBJECT

 public:
  explicit problems_view(QWidget* parent = nullptr);

  /// Shows `run`'s problems; loads in the background, then emits loaded()
  /// (and ranking_loaded() when the underflow ranking follows).
  void set_run(const run_ref& run);
  /// Loads again: at once for `user`, after the runners' rest for `live`.
  void reload(reload_cause cause = reload_cause::user);
  query_runner* queries() const { return queries_; }
  query_runner* ranking_queries() const { return ranking_queries_; }

  const problem_summary& summary() const { return summary_; }
  const underflow_ranking& ranking() const { return ranking_; }
  /// The text shown for each item (for tests and screenshots).
  QString overflow_text() const;
  QString nan_text() const;
  QString skipped_text() const;
  QString underflow_text() const;

  /// Asks for the histogram of the first overflow; false when there is none.
  bool go_to_first_overflow();
  /// Asks for the histogram of the first NaN; false when there is none.
  bool go_to_first_nan();
  /// Asks for the histogram of the first skipped step (the layer its reason
  /// blames, where the database says); false when no step was skipped.
  bool go_to_first_skip();
  /// Asks for the histogram where the worst layer underflowed most; false when none did.
  bool go_to_worst_underflow();

 signals:
  void loaded();
  void ranking_loaded();
  void failed(const QString& message);
  /// Show `layer`'s `role` histogram (role empty: the view's choice) at `step`.
  void histogram_requested(const QString& layer, const QString& role, std::int64_t step);
  /// Show the loss-scale chart with `step` marked.
  void overview_requested(std::int64_t step);

 private:
  void show_summary();
  void show_ranking();
  bool go_to(const std::optional<problem_site>& site);

  QLabel* title_;
  QLabel* overflow_;
  QLabel* nan_;
  QLabel* skipped_;
  QLabel* underflow_;
  QPushButton* overflow_button_;
  QPushButton* nan_button_;
  QPushButton* skipped_button_;
  QPushButton* skipped_chart_button_;
  QPushButton* underflow_button_;
  query_runner* queries_;
  query_runner* ranking_queries_;
  run_ref run_;
  problem_summary summary_;
  underflow_ranking ranking_;
  bool ranking_ready_ = false;
};

}  // namespace numlab_gui
