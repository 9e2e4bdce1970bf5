#include "gui/models/metrics_model.hpp"

#include <QBrush>
#include <QColor>

#include <cmath>
#include <utility>

#include "gui/models/format.hpp"

namespace tilescope::gui {
namespace {

bool is_ncu_metric(Metric m) { return metric_qname(m).contains(QStringLiteral("__")); }

QString metric_row_tooltip(Metric m) {
    if (is_ncu_metric(m)) return metric_tooltip({metric_qname(m)}, QString());
    return metric_qname(m) + QStringLiteral(
        "\ntilescope count (no single ncu metric; `tilescope measure` derives it from the kernel's shape)");
}

}  // namespace

MetricsModel::MetricsModel(QObject* parent) : QAbstractTableModel(parent) {}

void MetricsModel::setPrediction(SnapshotPtr snapshot) {
    beginResetModel();
    snapshot_ = std::move(snapshot);
    if (!snapshot_ || launch_index_ >= static_cast<int>(snapshot_->prediction.launches.size())) launch_index_ = -1;
    endResetModel();
}

void MetricsModel::setMeasurement(std::optional<Prediction> measurement) {
    beginResetModel();
    measurement_ = std::move(measurement);
    endResetModel();
}

void MetricsModel::setLaunchIndex(int index) {
    beginResetModel();
    launch_index_ = index;
    if (!snapshot_ || index < -1 || index >= static_cast<int>(snapshot_->prediction.launches.size())) launch_index_ = -1;
    endResetModel();
}

const Metrics* MetricsModel::predictedMetrics() const {
    if (!snapshot_) return nullptr;
    if (launch_index_ < 0) return &snapshot_->prediction.total;
    return &snapshot_->prediction.launches[static_cast<std::size_t>(launch_index_)].metrics;
}

const Metrics* MetricsModel::measuredMetrics() const {
    if (!measurement_) return nullptr;
    if (launch_index_ < 0) return &measurement_->total;
    if (launch_index_ >= static_cast<int>(measurement_->launches.size())) return nullptr;
    return &measurement_->launches[static_cast<std::size_t>(launch_index_)].metrics;
}

double MetricsModel::predicted(Metric m) const {
    const Metrics* p = predictedMetrics();
    return p ? (*p)[m] : std::nan("");
}

double MetricsModel::measured(Metric m) const {
    const Metrics* p = measuredMetrics();
    return p ? (*p)[m] : std::nan("");
}

int MetricsModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return static_cast<int>(kMetricCount);
}

int MetricsModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return ColumnCount;
}

QVariant MetricsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const auto m = static_cast<Metric>(index.row());
    const double pred = predicted(m);
    const double meas = measured(m);
    const double diff = (pred != 0.0) ? (meas - pred) / pred : std::nan("");
    if (role == MetricNameRole) return metric_qname(m);
    if (role == Qt::ToolTipRole) return metric_row_tooltip(m);
    switch (index.column()) {
    case NameColumn:
        if (role == Qt::DisplayRole) return metric_qname(m);
        break;
    case UnitColumn:
        if (role == Qt::DisplayRole) {
            const auto unit = metric_unit(m);
            return QString::fromLatin1(unit.data(), static_cast<qsizetype>(unit.size()));
        }
        break;
    case PredictedColumn:
        if (role == Qt::DisplayRole) return format_value(m, pred);
        if (role == RawValueRole) return pred;
        if (role == Qt::TextAlignmentRole) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case MeasuredColumn:
        if (role == Qt::DisplayRole) return measurement_ ? format_value(m, meas) : QString();
        if (role == RawValueRole) return meas;
        if (role == Qt::TextAlignmentRole) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case DifferenceColumn:
        if (role == Qt::DisplayRole) {
            if (!measurement_ || std::isnan(diff)) return QString();
            return (diff >= 0 ? QStringLiteral("+") : QString()) + format_percent(diff);
        }
        if (role == RawValueRole) return diff;
        if (role == Qt::ForegroundRole && measurement_ && !std::isnan(diff)) {
            const double mag = std::fabs(diff);
            return QBrush(mag < 0.10 ? QColor(0x1b, 0x7f, 0x3b) : mag < 0.30 ? QColor(0xb3, 0x6b, 0x00)
                                                                             : QColor(0xc6, 0x28, 0x28));
        }
        if (role == Qt::TextAlignmentRole) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default:
        break;
    }
    return {};
}

QVariant MetricsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return QStringLiteral("Metric");
    case UnitColumn: return QStringLiteral("Unit");
    case PredictedColumn:
        return snapshot_ ? QStringLiteral("Predicted (%1)").arg(QString::fromStdString(snapshot_->prediction.model))
                         : QStringLiteral("Predicted");
    case MeasuredColumn: return QStringLiteral("Measured");
    case DifferenceColumn: return QStringLiteral("Measured − predicted");
    default: return {};
    }
}

// ---------------------------------------------------------------- LaunchesModel

LaunchesModel::LaunchesModel(QObject* parent) : QAbstractTableModel(parent) {}

void LaunchesModel::setPrediction(SnapshotPtr snapshot) {
    beginResetModel();
    snapshot_ = std::move(snapshot);
    endResetModel();
}

int LaunchesModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !snapshot_) return 0;
    return static_cast<int>(snapshot_->prediction.launches.size());
}

int LaunchesModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return ColumnCount;
}

QVariant LaunchesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const LaunchResult& l = snapshot_->prediction.launches[static_cast<std::size_t>(index.row())];
    const LaunchFacts& f = l.facts;
    const double hbm = l.metrics[Metric::dram_bytes_read] + l.metrics[Metric::dram_bytes_write];
    const double time = l.metrics[Metric::gpu_time_duration];
    if (role == RawValueRole) {
        switch (index.column()) {
        case ThreadsColumn: return f.threads_per_block;
        case SmemColumn: return static_cast<double>(f.smem_bytes_per_block);
        case RegistersColumn: return f.registers_per_thread;
        case BlocksPerSmColumn: return f.blocks_per_sm;
        case WavesColumn: return static_cast<double>(f.waves);
        case TimeColumn: return time;
        case HbmColumn: return hbm;
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
        case TimeColumn: return metric_tooltip({QStringLiteral("gpu__time_duration.sum")}, QString());
        case HbmColumn:
            return metric_tooltip({QStringLiteral("dram__bytes_read.sum"), QStringLiteral("dram__bytes_write.sum")},
                                  QString());
        case LimiterColumn: return QStringLiteral("resource that limits resident blocks per SM (occupancy calculator)");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case NameColumn: return QString::fromStdString(l.name);
    case GridColumn: return QStringLiteral("%1×%2×%3").arg(f.grid_x).arg(f.grid_y).arg(f.grid_z);
    case ThreadsColumn: return f.threads_per_block;
    case SmemColumn: return format_bytes(static_cast<double>(f.smem_bytes_per_block));
    case RegistersColumn: return f.registers_per_thread;
    case BlocksPerSmColumn: return f.blocks_per_sm;
    case WavesColumn: return QString::number(f.waves);
    case LimiterColumn: return QString::fromStdString(f.occupancy_limiter);
    case TimeColumn: return format_time_ns(time);
    case HbmColumn: return format_bytes(hbm);
    case BoundColumn: return QString::fromStdString(l.bound);
    default: return {};
    }
}

QVariant LaunchesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[ColumnCount] = {"Launch", "Grid", "Threads", "Smem/block", "Regs/thread",
                                                    "Blocks/SM", "Waves", "Limiter", "Time", "HBM bytes",
                                                    "Bound"};
    if (section < 0 || section >= ColumnCount) return {};
    return QString::fromLatin1(kNames[section]);
}

}  // namespace tilescope::gui
