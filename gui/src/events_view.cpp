// The events table; see events_view.hpp.
#include "events_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "async_query.hpp"
#include "plot_style.hpp"
#include "run_queries.hpp"

namespace numlab_gui {

events_view::events_view(QWidget* parent)
    : QWidget(parent), kind_filter_(new QComboBox(this)), summary_(new QLabel(this)), table_(new QTableWidget(this)) {
  kind_filter_->addItems({"all", "overflow", "nan", "skipped", "trap", "warning"});
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel("Show", this));
  controls->addWidget(kind_filter_);
  controls->addWidget(new QLabel("(double-click a row to jump to it)", this), 1);
  controls->addWidget(summary_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(table_, 1);
  table_->setColumnCount(4);
  table_->setHorizontalHeaderLabels({"step", "kind", "layer", "message"});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->setVisible(false);
  connect(kind_filter_, qOverload<int>(&QComboBox::activated), this, [this] { show_data(); });
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    const auto* step = table_->item(row, 0);
    const auto* layer = table_->item(row, 2);
    if (step && layer) emit jump_requested(layer->text(), step->data(Qt::UserRole).toLongLong());
  });
}

void events_view::set_run(const run_ref& run) {
  run_ = run;
  reload();
}

void events_view::reload() {
  if (run_.file.isEmpty()) return;
  const run_ref run = run_;
  run_latest_query<event_list>(
      this, generation_, [run] { return load_events(run); },
      [this](event_list value) {
        data_ = std::move(value);
        show_data();
        emit loaded();
      },
      [this](const QString& error) { emit failed(error); });
}

void events_view::show_data() {
  // A table widget row costs microseconds; cap them so a run that reports an
  // overflow every step cannot stall the UI thread.
  constexpr int max_rows = 20000;
  const QString filter = kind_filter_->currentText();
  table_->setRowCount(0);
  int matching = 0;
  for (const auto& e : data_.events) {
    const QString kind = QString::fromUtf8(rundb::to_string(e.kind).data(),
                                           static_cast<qsizetype>(rundb::to_string(e.kind).size()));
    if (filter != "all" && filter != kind) continue;
    if (++matching > max_rows) continue;
    const int row = table_->rowCount();
    table_->insertRow(row);
    auto* step = new QTableWidgetItem(QString::number(e.step));
    step->setData(Qt::UserRole, QVariant::fromValue<qlonglong>(e.step));
    table_->setItem(row, 0, step);
    table_->setItem(row, 1, new QTableWidgetItem(kind));
    table_->setItem(row, 2, new QTableWidgetItem(qstr(e.layer)));
    table_->setItem(row, 3, new QTableWidgetItem(qstr(e.message)));
  }
  table_->resizeColumnsToContents();
  summary_->setText(matching > max_rows ? QString("showing the first %1 of %2 events").arg(max_rows).arg(matching)
                                        : QString("%1 events").arg(matching));
}

}  // namespace numlab_gui
