// The Problems view; see problems_view.hpp.
#include "problems_view.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "plot_style.hpp"
#include "run_queries.hpp"

namespace numlab_gui {
namespace {

constexpr const char* trouble_style = "QLabel { color: #b00020; }";
constexpr const char* fine_style = "QLabel { color: #2ca02c; }";

QString where(const problem_site& site) {
  QString text = QString("step %1").arg(site.step);
  if (!site.layer.empty()) text += ", " + qstr(site.layer);
  if (!site.role.empty()) text += " (" + qstr(site.role) + ")";
  if (!site.what.empty()) text += ": " + qstr(site.what);
  return text;
}

}  // namespace

problems_view::problems_view(QWidget* parent)
    : QWidget(parent),
      title_(new QLabel(this)),
      overflow_(new QLabel(this)),
      nan_(new QLabel(this)),
      skipped_(new QLabel(this)),
      underflow_(new QLabel(this)),
      overflow_button_(new QPushButton("Go to first overflow", this)),
      nan_button_(new QPushButton("Go to first NaN", this)),
      skipped_button_(new QPushButton("Show histogram", this)),
      skipped_chart_button_(new QPushButton("Show on the loss-scale chart", this)),
      underflow_button_(new QPushButton("Show histogram", this)),
      queries_(new query_runner(this)),
      ranking_queries_(new query_runner(this)) {
  QFont big = title_->font();
  big.setPointSizeF(big.pointSizeF() * 1.4);
  big.setBold(true);
  title_->setFont(big);
  // A long run name wraps instead of holding the window at its own width.
  title_->setWordWrap(true);
  title_->setText("Open a run database (File > Open, or drop one here)");
  auto* grid = new QGridLayout;
  grid->setColumnStretch(1, 1);
  grid->setVerticalSpacing(14);
  // Object names let tests (and accessibility tools) find each button.
  overflow_button_->setObjectName("overflow_histogram");
  nan_button_->setObjectName("nan_histogram");
  skipped_button_->setObjectName("skipped_histogram");
  skipped_chart_button_->setObjectName("skipped_chart");
  underflow_button_->setObjectName("underflow_histogram");
  QPushButton* const only_one = nullptr;  // the rows' second buttons
  const std::array rows{std::tuple{"First overflow / Inf", overflow_, overflow_button_, only_one},
                        std::tuple{"First NaN", nan_, nan_button_, only_one},
                        std::tuple{"Skipped steps", skipped_, skipped_button_, skipped_chart_button_},
                        std::tuple{"Worst underflow", underflow_, underflow_button_, only_one}};
  int row = 0;
  for (const auto& [name, label, button, second] : rows) {
    auto* heading = new QLabel(QString("<b>%1</b>").arg(name), this);
    grid->addWidget(heading, row, 0, Qt::AlignTop);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(label, row, 1, Qt::AlignTop);
    auto* buttons = new QVBoxLayout;
    for (QPushButton* b : {button, second}) {
      if (b == nullptr) continue;
      b->setEnabled(false);
      buttons->addWidget(b);
    }
    grid->addLayout(buttons, row, 2, Qt::AlignTop);
    ++row;
  }
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(24, 18, 24, 18);
  layout->addWidget(title_);
  layout->addSpacing(12);
  layout->addLayout(grid);
  layout->addStretch(1);
  connect(overflow_button_, &QPushButton::clicked, this, [this] { go_to_first_overflow(); });
  connect(nan_button_, &QPushButton::clicked, this, [this] { go_to_first_nan(); });
  connect(underflow_button_, &QPushButton::clicked, this, [this] { go_to_worst_underflow(); });
  connect(skipped_button_, &QPushButton::clicked, this, [this] { go_to_first_skip(); });
  connect(skipped_chart_button_, &QPushButton::clicked, this, [this] {
    if (summary_.first_skip) emit overview_requested(summary_.first_skip->step);
  });
}

void problems_view::set_run(const run_ref& run) {
  run_ = run;
  ranking_ready_ = false;
  reload();
}

void problems_view::reload(reload_cause cause) {
  if (run_.file.isEmpty()) return;
  const run_ref run = run_;
  queries_->load<problem_summary>(
      cause, [run](const interrupt_flag& interrupt) { return load_problems(run, interrupt); },
      [this](problem_summary value) {
        summary_ = std::move(value);
        show_summary();
        emit loaded();
      },
      [this](const QString& error) { emit failed(error); });
  ranking_queries_->load<underflow_ranking>(
      cause, [run](const interrupt_flag& interrupt) { return load_underflow_ranking(run, interrupt); },
      [this](underflow_ranking value) {
        ranking_ = std::move(value);
        ranking_ready_ = true;
        show_ranking();
        emit ranking_loaded();
      },
      [this](const QString& error) { emit failed(error); });
  if (!ranking_ready_) show_ranking();
}

void problems_view::show_summary() {
  title_->setText(QString("Problems in %1 — %2 steps").arg(summary_.run.label).arg(summary_.counts.steps));
  const auto show = [](QLabel* label, QPushButton* button, const std::optional<problem_site>& site,
                       const QString& none) {
    label->setText(site ? where(*site) : none);
    label->setStyleSheet(site ? trouble_style : fine_style);
    button->setEnabled(site.has_value());
  };
  show(overflow_, overflow_button_, summary_.first_overflow, "none: no overflow event and no skipped step");
  show(nan_, nan_button_, summary_.first_nan, "none: no NaN or trap event");
  if (summary_.skipped.empty()) {
    skipped_->setText("none");
    skipped_->setStyleSheet(fine_style);
    skipped_button_->setEnabled(false);
    skipped_chart_button_->setEnabled(false);
  } else {
    QString steps;
    const std::size_t listed = std::min<std::size_t>(summary_.skipped.size(), 12);
    for (std::size_t i = 0; i < listed; ++i) steps += (i ? ", " : "") + QString::number(summary_.skipped[i].step);
    if (listed < summary_.skipped.size()) steps += ", ...";
    skipped_->setText(QString("%1 of %2 steps skipped (%3): %4")
                          .arg(summary_.skipped.size())
                          .arg(summary_.counts.steps)
                          .arg(percent(summary_.skipped.size(), static_cast<std::uint64_t>(summary_.counts.steps)))
                          .arg(steps));
    skipped_->setStyleSheet(trouble_style);
    skipped_button_->setEnabled(true);
    skipped_chart_button_->setEnabled(true);
  }
}

void problems_view::show_ranking() {
  if (!ranking_ready_) {
    underflow_->setText("computing (reads every statistics row)...");
    underflow_->setStyleSheet({});
    underflow_button_->setEnabled(false);
    return;
  }
  if (ranking_.worst.empty()) {
    underflow_->setText("none: no value underflowed to zero");
    underflow_->setStyleSheet(fine_style);
    underflow_button_->setEnabled(false);
    return;
  }
  QString text;
  for (const auto& t : ranking_.worst) {
    text += QString("%1%2 / %3: %4 of values underflowed to zero over the run")
                .arg(text.isEmpty() ? "" : "\n", qstr(t.layer), qstr(t.role), percent(t.underflows, t.count));
  }
  if (ranking_.worst_step) text += QString("\nworst step of %1: %2").arg(qstr(ranking_.worst.front().layer), where(*ranking_.worst_step));
  underflow_->setText(text);
  underflow_->setStyleSheet(trouble_style);
  underflow_button_->setEnabled(ranking_.worst_step.has_value());
}

bool problems_view::go_to(const std::optional<problem_site>& site) {
  if (!site) return false;
  emit histogram_requested(qstr(site->layer), qstr(site->role), site->step);
  return true;
}

bool problems_view::go_to_first_overflow() { return go_to(summary_.first_overflow); }
bool problems_view::go_to_first_nan() { return go_to(summary_.first_nan); }
bool problems_view::go_to_first_skip() { return go_to(summary_.first_skip); }
bool problems_view::go_to_worst_underflow() { return go_to(ranking_.worst_step); }

QString problems_view::overflow_text() const { return overflow_->text(); }
QString problems_view::nan_text() const { return nan_->text(); }
QString problems_view::skipped_text() const { return skipped_->text(); }
QString problems_view::underflow_text() const { return underflow_->text(); }

}  // namespace numlab_gui
