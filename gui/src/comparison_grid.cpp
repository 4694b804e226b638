// The comparison's grid model; see comparison_grid.hpp.
#include "comparison_grid.hpp"

#include <charconv>
#include <limits>
#include <optional>
#include <string>

#include "plot_style.hpp"

namespace numlab_gui {
namespace {

constexpr int fixed_columns = 6;  // outcome, final loss, final accuracy, skipped, overflow, NaN

std::optional<double> parse_number(const std::string& text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

QString number(const std::optional<double>& value) {
  return value ? QString::number(*value, 'g', 4) : QString("—");
}

// Missing values sort before every number.
double sortable(const std::optional<double>& value) {
  return value.value_or(-std::numeric_limits<double>::infinity());
}

}  // namespace

comparison_grid::comparison_grid(QObject* parent) : QAbstractTableModel(parent) {}

QColor comparison_grid::outcome_color(rundb::run_status status) {
  switch (status) {
    case rundb::run_status::finished: return QColor(0xd8, 0xf0, 0xd0);
    case rundb::run_status::diverged: return QColor(0xff, 0xdd, 0xaa);
    case rundb::run_status::failed:
    case rundb::run_status::killed:
    case rundb::run_status::trapped: return QColor(0xf6, 0xc0, 0xc0);
    case rundb::run_status::interrupted: return QColor(0xe4, 0xe4, 0xe4);
    case rundb::run_status::running: return QColor(0xd8, 0xe8, 0xf8);
  }
  return {};
}

void comparison_grid::set_runs(std::shared_ptr<const comparison_data> data) {
  beginResetModel();
  data_ = std::move(data);
  numeric_key_.assign(data_->keys.size(), true);
  for (std::size_t k = 0; k < data_->keys.size(); ++k) {
    for (const auto& run : data_->runs) {
      const auto value = run.coordinate(data_->keys[k]);
      if (value && !parse_number(*value)) {
        numeric_key_[k] = false;
        break;
      }
    }
  }
  endResetModel();
}

int comparison_grid::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(data_->runs.size());
}

int comparison_grid::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : 1 + static_cast<int>(data_->keys.size()) + fixed_columns;
}

QVariant comparison_grid::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  const auto keys = static_cast<int>(data_->keys.size());
  if (section == 0) return QString("run");
  if (section <= keys) return qstr(data_->keys[static_cast<std::size_t>(section - 1)]);
  switch (static_cast<column>(section - 1 - keys)) {
    case column::outcome: return QString("outcome");
    case column::final_loss: return QString("final loss");
    case column::final_accuracy: return QString("final accuracy");
    case column::skipped: return QString("skipped steps");
    case column::overflow: return QString("overflow events");
    case column::nan: return QString("NaN events");
  }
  return {};
}

QVariant comparison_grid::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  if (role != Qt::DisplayRole && role != sort_role && role != Qt::BackgroundRole) return {};
  const auto& run = data_->runs[static_cast<std::size_t>(index.row())];
  if (role == Qt::BackgroundRole) return outcome_color(run.status);
  const bool display = role == Qt::DisplayRole;
  const auto keys = static_cast<int>(data_->keys.size());
  const int c = index.column();
  if (c == 0) return run.run.label;
  if (c <= keys) {
    const auto k = static_cast<std::size_t>(c - 1);
    const auto value = run.coordinate(data_->keys[k]);
    if (display || !numeric_key_[k]) return qstr(value.value_or("—"));
    return sortable(value ? parse_number(*value) : std::nullopt);
  }
  switch (static_cast<column>(c - 1 - keys)) {
    case column::outcome: return QString::fromUtf8(rundb::to_string(run.status).data());
    case column::final_loss: return display ? QVariant(number(run.final_loss)) : QVariant(sortable(run.final_loss));
    case column::final_accuracy:
      return display ? QVariant(number(run.final_accuracy)) : QVariant(sortable(run.final_accuracy));
    case column::skipped: return QVariant::fromValue<qlonglong>(run.counts.skipped);
    case column::overflow: return QVariant::fromValue<qlonglong>(run.counts.overflow_events);
    case column::nan: return QVariant::fromValue<qlonglong>(run.counts.nan_events);
  }
  return {};
}

}  // namespace numlab_gui
