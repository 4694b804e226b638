// The events table; see events_view.hpp.
#include "events_view.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QTextStream>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "async_query.hpp"
#include "live_queries.hpp"
#include "plot_style.hpp"
#include "run_queries.hpp"

namespace numlab_gui {

events_view::events_view(QWidget* parent)
    : QWidget(parent),
      kind_filter_(new QComboBox(this)),
      summary_(new QLabel(this)),
      table_(new QTableWidget(this)),
      queries_(new query_runner(this)) {
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
  auto* export_button = new QPushButton("Export CSV...", this);
  controls->addWidget(export_button);
  connect(export_button, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getSaveFileName(this, "Export events", "events.csv", "CSV (*.csv)");
    if (file.isEmpty()) return;
    const QString error = export_csv(file);
    if (!error.isEmpty()) QMessageBox::warning(this, "Export failed", error);
  });
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

void events_view::reload(reload_cause cause) {
  if (run_.file.isEmpty()) return;
  const run_ref run = run_;
  // A live refresh reads only the events from the last one held on (the
  // table only appends) and adds those it lacks; another run reads them all.
  const bool append = cause == reload_cause::live && shown_run_ == run;
  const rundb::step_range range = append ? tail_range(data_.events) : rundb::step_range{};
  queries_->load<event_list>(
      cause, [run, range](const interrupt_flag& interrupt) { return load_events(run, interrupt, range); },
      [this, run, append](event_list value) {
        if (append && shown_run_ == run) {
          append_tail(data_.events, std::move(value.events));
          data_.rows_read = value.rows_read;
        } else {
          data_ = std::move(value);
        }
        shown_run_ = run;
        show_data();
        emit loaded();
      },
      [this](const QString& error) { emit failed(error); });
}

void events_view::set_kind_filter(std::optional<rundb::event_kind> kind) {
  kind_filter_->setCurrentText(kind ? qstr(std::string(rundb::to_string(*kind))) : QString("all"));
  show_data();
}

bool events_view::shown(const rundb::event_record& e) const {
  const QString filter = kind_filter_->currentText();
  return filter == "all" || filter == qstr(std::string(rundb::to_string(e.kind)));
}

QString events_view::export_csv(const QString& file) const {
  // RFC 4180: fields with commas, quotes or line breaks are quoted, quotes doubled.
  const auto field = [](QString text) {
    if (!text.contains(',') && !text.contains('"') && !text.contains('\n') && !text.contains('\r')) return text;
    return '"' + text.replace('"', "\"\"") + '"';
  };
  QSaveFile out(file);  // written to a temporary, renamed only when complete
  if (!out.open(QIODevice::WriteOnly | QIODevice::Text)) return QString("could not write %1: %2").arg(file, out.errorString());
  QTextStream stream(&out);
  stream << "step,kind,layer,message\n";
  for (const auto& e : data_.events) {
    if (!shown(e)) continue;
    stream << e.step << ',' << field(qstr(std::string(rundb::to_string(e.kind)))) << ',' << field(qstr(e.layer)) << ','
           << field(qstr(e.message)) << '\n';
  }
  stream.flush();
  if (!out.commit()) return QString("could not write %1: %2").arg(file, out.errorString());
  return {};
}

void events_view::show_data() {
  // A table widget row costs microseconds; cap them so a run that reports an
  // overflow every step cannot stall the UI thread.
  constexpr int max_rows = 20000;
  table_->setRowCount(0);
  int matching = 0;
  for (const auto& e : data_.events) {
    const QString kind = QString::fromUtf8(rundb::to_string(e.kind).data(),
                                           static_cast<qsizetype>(rundb::to_string(e.kind).size()));
    if (!shown(e)) continue;
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
