// MainWindow: the workload panel on the left, the views in tabs, a banner for errors. Every
// change of the panel re-predicts in a worker (Runner); pages only receive value snapshots.
#pragma once

#include <QMainWindow>

#include <optional>

#include "core/prediction.hpp"
#include "gui/models/prediction_service.hpp"
#include "gui/models/runner.hpp"

class QAction;
class QComboBox;
class QLabel;
class QTabWidget;
class QTableView;

namespace tilescope::gui {

class BlockSchedulePage;
class CompareView;
class LaunchesModel;
class MemoryChart;
class MetricsModel;
class TeachingView;
class TileMapPage;
class WorkloadPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum Page : int { MemoryPage, SchedulePage, TileMapPageIndex, ComparePage, TeachingPage };

    // restore_settings: read the last workload, profile and geometry from QSettings.
    explicit MainWindow(bool restore_settings = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    WorkloadPanel* panel() const { return panel_; }
    MemoryChart* memoryChart() const { return memory_chart_; }
    MetricsModel* metricsModel() const { return metrics_model_; }
    LaunchesModel* launchesModel() const { return launches_model_; }
    BlockSchedulePage* schedulePage() const { return schedule_page_; }
    TileMapPage* tileMapPage() const { return tile_page_; }
    CompareView* compareView() const { return compare_view_; }
    TeachingView* teachingView() const { return teaching_view_; }
    QTabWidget* tabs() const { return tabs_; }
    Runner* predictRunner() const { return predict_runner_; }
    Runner* compareRunner() const { return compare_runner_; }
    Runner* tileRunner() const { return tile_runner_; }
    QAction* runOnGpuAction() const { return run_gpu_action_; }
    SnapshotPtr snapshot() const { return snapshot_; }
    QString bannerText() const;
    bool bannerVisible() const;

    // Loads a measurement file (JSON or JSON Lines) and predicts its workload on its GPU. With
    // several records: `index` picks one; -1 takes the one matching the panel's workload and GPU,
    // else asks (ask = true, the File menu) or takes the first.
    Status loadMeasurement(const QString& path, int index = -1, bool ask = false);
    void clearMeasurement();
    Status exportPage(int page, const QString& path);  // .png or .svg by suffix
    Status exportTileMapCsv(const QString& path);
    void computeTileMap();
    void computeComparison();
    void saveSettings() const;

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildActions();
    void repredict();
    void onPrediction(quint64 generation, const QVariant& value);
    void onPredictionFailed(quint64 generation, const QString& message);
    void onTabChanged(int index);
    void showBanner(const QString& text, bool error);
    void hideBanner();
    void openProfileDialog();
    void openMeasurementDialog();
    void exportDialog(bool svg);
    void exportCsvDialog();
    void runOnGpu();
    void restoreSettings();
    void updateLaunchBox();

    WorkloadPanel* panel_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QLabel* banner_ = nullptr;
    QLabel* busy_label_ = nullptr;
    MemoryChart* memory_chart_ = nullptr;
    QComboBox* memory_launch_ = nullptr;
    MetricsModel* metrics_model_ = nullptr;
    LaunchesModel* launches_model_ = nullptr;
    QTableView* metrics_table_ = nullptr;
    QTableView* launches_table_ = nullptr;
    BlockSchedulePage* schedule_page_ = nullptr;
    TileMapPage* tile_page_ = nullptr;
    CompareView* compare_view_ = nullptr;
    TeachingView* teaching_view_ = nullptr;
    Runner* predict_runner_ = nullptr;
    Runner* compare_runner_ = nullptr;
    Runner* tile_runner_ = nullptr;
    Runner* gpu_runner_ = nullptr;
    QAction* run_gpu_action_ = nullptr;
    QAction* clear_measurement_action_ = nullptr;

    SnapshotPtr snapshot_;
    std::optional<Prediction> measurement_;
    QString measurement_label_;
    bool compare_dirty_ = true;
    bool tiles_dirty_ = true;
    bool teaching_hw_set_ = false;
    bool prediction_error_ = false;
};

}  // namespace tilescope::gui
