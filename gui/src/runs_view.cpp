// The Runs view; see runs_view.hpp.
#include "runs_view.hpp"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "async_query.hpp"
#include "plot_style.hpp"
#include "run_queries.hpp"

namespace numlab_gui {
namespace {

constexpr int file_role = Qt::UserRole;
constexpr int run_id_role = Qt::UserRole + 1;

QString status_text(rundb::run_status status) {
  const auto text = rundb::to_string(status);
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

}  // namespace

runs_view::runs_view(QWidget* parent)
    : QWidget(parent), error_(new QLabel(this)), tree_(new QTreeWidget(this)), config_(new QPlainTextEdit(this)) {
  error_->setStyleSheet("QLabel { color: #b00020; font-weight: bold; }");
  error_->setWordWrap(true);
  error_->hide();
  tree_->setColumnCount(10);
  tree_->setHeaderLabels({"run", "id", "status", "steps", "skipped", "overflow events", "NaN events", "worst underflow",
                          "started", "host"});
  tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  config_->setReadOnly(true);
  config_->setPlaceholderText("configuration of the selected run");
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(tree_);
  splitter->addWidget(config_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(error_);
  layout->addWidget(splitter, 1);
  connect(tree_, &QTreeWidget::itemSelectionChanged, this, [this] {
    const auto runs = selected_runs();
    if (!runs.isEmpty()) {
      const auto run = info(runs.front());
      config_->setPlainText(run ? qstr(run->config_yaml) : QString());
      emit selection_changed(runs);
    }
  });
}

void runs_view::open_file(const QString& file, reload_cause cause) {
  auto& lister = listers_[file];
  if (lister == nullptr) lister = new query_runner(this);
  lister->load<file_listing>(
      cause, [file](const interrupt_flag& interrupt) { return load_listing(file, interrupt); },
      [this, file, cause](file_listing listing) {
        error_->hide();
        error_->clear();
        show_listing(listing);
        emit file_loaded(file);
        load_underflows(listing, cause);
      },
      [this](const QString& error) {
        error_->setText(error);
        error_->show();
        emit failed(error);
      });
}

void runs_view::load_underflows(const file_listing& listing, reload_cause cause) {
  // Like the other views, the column reads only while it is on screen: its
  // scan would compete with the shown view's queries and a live writer for
  // the cores. A user's reason to scan outranks a live one.
  if (isHidden()) {
    const auto [at, added] = unscanned_.try_emplace(listing.file, cause);
    if (!added && cause == reload_cause::user) at->second = cause;
    return;
  }
  auto& loader = underflow_loaders_[listing.file];
  // A live run's column follows it every few seconds at most: the scan
  // competes with the viewer and the writer for the cores.
  if (loader == nullptr) loader = new query_runner(this, 5000);
  // A finished run's totals never change: a live refresh scans running runs
  // (and runs not scanned yet) only.
  const auto& known = underflows_[listing.file];
  std::vector<rundb::run_id> ids;
  for (const auto& run : listing.runs) {
    if (cause == reload_cause::user || run.status == rundb::run_status::running || !known.contains(run.id))
      ids.push_back(run.id);
  }
  if (ids.empty()) return;
  loader->load<file_underflows>(
      cause,
      [file = listing.file, ids = std::move(ids)](const interrupt_flag& interrupt) {
        return load_file_underflows(file, ids, interrupt);
      },
      [this](file_underflows value) {
        auto& kept = underflows_[value.file];
        for (auto& [id, worst] : value.worst) kept[id] = std::move(worst);
        show_underflows(value.file);
      },
      [this](const QString& error) { emit failed(error); });
}

void runs_view::show_underflows(const QString& file) {
  auto* top = file_item(file);
  const auto& known = underflows_[file];
  for (int i = 0; top != nullptr && i < top->childCount(); ++i) {
    auto* item = top->child(i);
    const auto at = known.find(item->data(0, run_id_role).toLongLong());
    const bool underflowed = at != known.end() && at->second.has_value();
    QString text = "...";  // until the scan of the statistics comes back
    if (underflowed) {
      const rundb::layer_totals& worst = *at->second;
      text = QString("%1 (%2 / %3)").arg(percent(worst.underflows, worst.count), qstr(worst.layer), qstr(worst.role));
    } else if (at != known.end()) {
      text = "0%";
    }
    item->setText(7, text);
    if (underflowed) item->setForeground(7, QColor(176, 0, 32));
    else item->setData(7, Qt::ForegroundRole, QVariant());
  }
}

void runs_view::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  auto waiting = std::move(unscanned_);
  unscanned_.clear();
  for (const auto& [file, cause] : waiting) {
    const auto listing = listings_.find(file);
    if (listing != listings_.end()) load_underflows(listing->second, cause);
  }
}

QTreeWidgetItem* runs_view::file_item(const QString& file) const {
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
    if (tree_->topLevelItem(i)->data(0, file_role).toString() == file) return tree_->topLevelItem(i);
  }
  return nullptr;
}

void runs_view::show_listing(const file_listing& listing) {
  const QList<run_ref> previously_selected = selected_runs();
  const bool first_file = listings_.empty();
  listings_[listing.file] = listing;
  {
    // Rebuilding the items must not look like a selection change.
    const QSignalBlocker block(tree_);
    auto* top = file_item(listing.file);
    if (top == nullptr) {
      top = new QTreeWidgetItem(tree_);
      top->setData(0, file_role, listing.file);
      top->setFlags(top->flags() & ~Qt::ItemIsSelectable);
    }
    top->setText(0, QFileInfo(listing.file).fileName());
    top->setToolTip(0, listing.file);
    qDeleteAll(top->takeChildren());
    for (std::size_t i = 0; i < listing.runs.size(); ++i) {
      const auto& run = listing.runs[i];
      auto* item = new QTreeWidgetItem(top);
      item->setText(0, qstr(run.name));
      item->setText(1, QString::number(run.id));
      item->setText(2, status_text(run.status));
      const auto& counts = listing.counts[i];
      item->setText(3, QString::number(counts.steps));
      item->setText(4, QString::number(counts.skipped));
      item->setText(5, QString::number(counts.overflow_events));
      item->setText(6, QString::number(counts.nan_events));
      for (int column : {4, 5, 6}) {
        if (item->text(column) != "0") item->setForeground(column, QColor(176, 0, 32));
      }
      item->setText(8, qstr(run.start_time));
      item->setText(9, qstr(run.host));
      item->setData(0, file_role, listing.file);
      item->setData(0, run_id_role, QVariant::fromValue<qlonglong>(run.id));
    }
    top->setExpanded(true);
  }
  show_underflows(listing.file);
  if (!previously_selected.isEmpty()) {
    select_runs(previously_selected);
  } else if (first_file && !listing.runs.empty()) {
    // Start where the trouble is: the first run with any, else the newest.
    std::size_t chosen = listing.runs.size() - 1;
    for (std::size_t i = listing.runs.size(); i-- > 0;) {
      const auto& c = listing.counts[i];
      if (c.skipped + c.overflow_events + c.nan_events > 0) chosen = i;
    }
    select_runs({run_ref{listing.file, listing.runs[chosen].id, {}}});
  }
}

void runs_view::select_runs(const QList<run_ref>& runs) {
  {
    const QSignalBlocker block(tree_);
    tree_->clearSelection();
    for (const auto& run : runs) {
      auto* top = file_item(run.file);
      for (int i = 0; top && i < top->childCount(); ++i) {
        if (top->child(i)->data(0, run_id_role).toLongLong() == run.id) top->child(i)->setSelected(true);
      }
    }
  }
  emit tree_->itemSelectionChanged();
}

QList<run_ref> runs_view::selected_runs() const {
  QList<run_ref> runs;
  for (auto* item : tree_->selectedItems()) {
    if (item->parent() == nullptr) continue;
    run_ref run{item->data(0, file_role).toString(), item->data(0, run_id_role).toLongLong(), {}};
    // The file name too: runs of two files often share names and ids.
    run.label = QString("%1 (#%2, %3)").arg(item->text(0)).arg(run.id).arg(QFileInfo(run.file).fileName());
    runs.push_back(run);
  }
  return runs;
}

QStringList runs_view::files() const {
  QStringList files;
  for (const auto& [file, listing] : listings_) files.push_back(file);
  return files;
}

std::optional<rundb::run_info> runs_view::info(const run_ref& run) const {
  const auto it = listings_.find(run.file);
  if (it == listings_.end()) return std::nullopt;
  for (const auto& r : it->second.runs)
    if (r.id == run.id) return r;
  return std::nullopt;
}

QString runs_view::error_text() const { return error_->isVisible() || !error_->text().isEmpty() ? error_->text() : QString(); }

}  // namespace numlab_gui
