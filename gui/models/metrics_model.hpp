// MetricsModel: one row per metric (core/metrics.hpp), columns predicted / measured / difference,
// for the whole prediction or one launch. LaunchesModel: one row per launch with its facts.
#pragma once

#include <QAbstractTableModel>

#include <optional>

#include "core/prediction.hpp"
#include "gui/models/prediction_service.hpp"

namespace tilescope::gui {

enum ModelRoles : int {
    RawValueRole = Qt::UserRole + 1,  // double: the unformatted number shown in the cell
    MetricNameRole,                   // QString: ncu metric name of the row
};

class MetricsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column : int { NameColumn, UnitColumn, PredictedColumn, MeasuredColumn, DifferenceColumn, ColumnCount };

    explicit MetricsModel(QObject* parent = nullptr);

    void setPrediction(SnapshotPtr snapshot);
    void setMeasurement(std::optional<Prediction> measurement);
    void setLaunchIndex(int index);  // -1: totals
    int launchIndex() const { return launch_index_; }
    bool hasMeasurement() const { return measurement_.has_value(); }

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Values of the current selection (NaN when absent).
    double predicted(Metric m) const;
    double measured(Metric m) const;

private:
    const Metrics* predictedMetrics() const;
    const Metrics* measuredMetrics() const;

    SnapshotPtr snapshot_;
    std::optional<Prediction> measurement_;
    int launch_index_ = -1;
};

class LaunchesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column : int {
        NameColumn, GridColumn, ThreadsColumn, SmemColumn, RegistersColumn, BlocksPerSmColumn,
        WavesColumn, LimiterColumn, TimeColumn, HbmColumn, BoundColumn, ColumnCount
    };
    explicit LaunchesModel(QObject* parent = nullptr);
    void setPrediction(SnapshotPtr snapshot);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    SnapshotPtr snapshot_;
};

}  // namespace tilescope::gui
