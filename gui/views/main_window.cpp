#include "gui/views/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include "gui/models/compare.hpp"
#include "gui/models/metatypes.hpp"
#include "gui/models/metrics_model.hpp"
#include "gui/models/tile_map.hpp"
#include "gui/views/block_schedule_view.hpp"
#include "gui/views/compare_view.hpp"
#include "gui/views/export.hpp"
#include "gui/views/live.hpp"
#include "gui/views/memory_chart.hpp"
#include "gui/views/teaching_view.hpp"
#include "gui/views/tile_map_view.hpp"
#include "gui/views/workload_panel.hpp"

namespace tilescope::gui {
namespace {

QTableView* make_table(QAbstractItemModel* model, QWidget* parent) {
    auto* table = new QTableView(parent);
    table->setModel(model);
    table->setAlternatingRowColors(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return table;
}

// QSettings <-> PredictRequest. Absent optional fields are not written.
void write_request(QSettings& s, const PredictRequest& r) {
    s.remove(QStringLiteral("workload"));
    s.beginGroup(QStringLiteral("workload"));
    auto put_str = [&s](const char* key, const std::optional<std::string>& v) {
        if (v) s.setValue(QString::fromLatin1(key), QString::fromStdString(*v));
    };
    auto put_int = [&s](const char* key, const std::optional<int64_t>& v) {
        if (v) s.setValue(QString::fromLatin1(key), static_cast<qlonglong>(*v));
    };
    put_str("kernel", r.spec.kernel);
    put_str("dtype", r.spec.dtype);
    put_int("batch", r.spec.batch);
    put_int("heads", r.spec.heads);
    put_int("seq", r.spec.seq);
    put_int("head_dim", r.spec.head_dim);
    if (r.spec.causal) s.setValue(QStringLiteral("causal"), *r.spec.causal);
    put_int("m", r.spec.m);
    put_int("n", r.spec.n);
    put_int("k", r.spec.k);
    put_str("raster", r.spec.raster);
    put_int("rows", r.spec.rows);
    put_int("cols", r.spec.cols);
    put_str("variant", r.spec.variant);
    put_int("tile_m", r.spec.tile_m);
    put_int("tile_n", r.spec.tile_n);
    put_int("tile_k", r.spec.tile_k);
    put_int("stages", r.spec.stages);
    put_int("warps", r.spec.warps);
    s.endGroup();
    s.setValue(QStringLiteral("profile"), QString::fromStdString(r.profile));
    s.setValue(QStringLiteral("model"), QString::fromStdString(r.model));
    s.setValue(QStringLiteral("l2"), r.l2);
}

std::optional<PredictRequest> read_request(QSettings& s) {
    if (!s.contains(QStringLiteral("workload/kernel"))) return std::nullopt;
    PredictRequest r;
    s.beginGroup(QStringLiteral("workload"));
    auto get_str = [&s](const char* key) -> std::optional<std::string> {
        if (!s.contains(QString::fromLatin1(key))) return std::nullopt;
        return s.value(QString::fromLatin1(key)).toString().toStdString();
    };
    auto get_int = [&s](const char* key) -> std::optional<int64_t> {
        if (!s.contains(QString::fromLatin1(key))) return std::nullopt;
        return s.value(QString::fromLatin1(key)).toLongLong();
    };
    r.spec.kernel = get_str("kernel");
    r.spec.dtype = get_str("dtype");
    r.spec.batch = get_int("batch");
    r.spec.heads = get_int("heads");
    r.spec.seq = get_int("seq");
    r.spec.head_dim = get_int("head_dim");
    if (s.contains(QStringLiteral("causal"))) r.spec.causal = s.value(QStringLiteral("causal")).toBool();
    r.spec.m = get_int("m");
    r.spec.n = get_int("n");
    r.spec.k = get_int("k");
    r.spec.raster = get_str("raster");
    r.spec.rows = get_int("rows");
    r.spec.cols = get_int("cols");
    r.spec.variant = get_str("variant");
    r.spec.tile_m = get_int("tile_m");
    r.spec.tile_n = get_int("tile_n");
    r.spec.tile_k = get_int("tile_k");
    r.spec.stages = get_int("stages");
    r.spec.warps = get_int("warps");
    s.endGroup();
    r.profile = s.value(QStringLiteral("profile"), QStringLiteral("a100-40gb")).toString().toStdString();
    r.model = s.value(QStringLiteral("model"), QStringLiteral("sim")).toString().toStdString();
    r.l2 = s.value(QStringLiteral("l2"), true).toBool();
    return r;
}

}  // namespace

MainWindow::MainWindow(bool restore_settings, QWidget* parent) : QMainWindow(parent) {
    qRegisterMetaType<SnapshotPtr>();
    qRegisterMetaType<Comparison>();
    qRegisterMetaType<TileMap>();
    qRegisterMetaType<Prediction>();
    setWindowTitle(QStringLiteral("tilescope"));

    predict_runner_ = new Runner(QStringLiteral("tilescope-predict"), this);
    compare_runner_ = new Runner(QStringLiteral("tilescope-compare"), this);
    tile_runner_ = new Runner(QStringLiteral("tilescope-tilemap"), this);
    gpu_runner_ = new Runner(QStringLiteral("tilescope-gpu"), this, 1);  // one measurement at a time

    panel_ = new WorkloadPanel(this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(panel_);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(panel_->sizeHint().width() + 24);

    // Memory page: chart above, metrics and launches tables below.
    auto* memory_page = new QWidget(this);
    {
        auto* layout = new QVBoxLayout(memory_page);
        auto* top = new QHBoxLayout;
        top->addWidget(new QLabel(QStringLiteral("Launch:"), memory_page));
        memory_launch_ = new QComboBox(memory_page);
        memory_launch_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        top->addWidget(memory_launch_);
        top->addStretch(1);
        layout->addLayout(top);
        auto* split = new QSplitter(Qt::Vertical, memory_page);
        memory_chart_ = new MemoryChart(split);
        metrics_model_ = new MetricsModel(this);
        launches_model_ = new LaunchesModel(this);
        metrics_table_ = make_table(metrics_model_, split);
        launches_table_ = make_table(launches_model_, split);
        split->addWidget(memory_chart_);
        split->addWidget(metrics_table_);
        split->addWidget(launches_table_);
        split->setStretchFactor(0, 4);
        split->setStretchFactor(1, 2);
        split->setStretchFactor(2, 1);
        layout->addWidget(split, 1);
        connect(memory_launch_, &QComboBox::currentIndexChanged, this, [this](int i) {
            metrics_model_->setLaunchIndex(i - 1);
            memory_chart_->setLaunchIndex(i - 1);
        });
    }
    schedule_page_ = new BlockSchedulePage(this);
    tile_page_ = new TileMapPage(this);
    compare_view_ = new CompareView(this);
    teaching_view_ = new TeachingView(this);

    tabs_ = new QTabWidget(this);
    tabs_->addTab(memory_page, QStringLiteral("Memory"));
    tabs_->addTab(schedule_page_, QStringLiteral("Block schedule"));
    tabs_->addTab(tile_page_, QStringLiteral("Tile map"));
    tabs_->addTab(compare_view_, QStringLiteral("Naive vs fused"));
    tabs_->addTab(teaching_view_, QStringLiteral("Teaching"));

    banner_ = new QLabel(this);
    banner_->setWordWrap(true);
    banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    banner_->setObjectName(QStringLiteral("banner"));
    banner_->hide();

    auto* right = new QWidget(this);
    auto* right_layout = new QVBoxLayout(right);
    right_layout->setContentsMargins(0, 0, 0, 0);
    right_layout->addWidget(banner_);
    right_layout->addWidget(tabs_, 1);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(scroll);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    setCentralWidget(split);

    busy_label_ = new QLabel(this);
    statusBar()->addPermanentWidget(busy_label_);
    buildActions();

    connect(panel_, &WorkloadPanel::requestChanged, this, &MainWindow::repredict);
    connect(panel_, &WorkloadPanel::openProfileRequested, this, &MainWindow::openProfileDialog);
    connect(predict_runner_, &Runner::finished, this, &MainWindow::onPrediction);
    connect(predict_runner_, &Runner::failed, this, &MainWindow::onPredictionFailed);
    connect(predict_runner_, &Runner::busyChanged, this, [this](bool busy) {
        busy_label_->setText(busy ? QStringLiteral("predicting…") : QString());
    });
    connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::onTabChanged);

    connect(compare_runner_, &Runner::finished, this, [this](quint64, const QVariant& v) {
        compare_view_->setComparison(v.value<Comparison>());
    });
    connect(compare_runner_, &Runner::failed, this, [this](quint64, const QString& msg) {
        compare_view_->setBusy(QStringLiteral("Could not compare: ") + msg);
    });

    connect(tile_page_, &TileMapPage::computeRequested, this, &MainWindow::computeTileMap);
    connect(tile_page_, &TileMapPage::cancelRequested, tile_runner_, &Runner::cancel);
    connect(tile_page_, &TileMapPage::exportCsvRequested, this, &MainWindow::exportCsvDialog);
    connect(tile_page_, &TileMapPage::tileClicked, this, [this](int m, int n) {
        const TileMap& map = tile_page_->model()->tileMap();
        for (const TileCell& c : map.cells) {
            if (c.tile_m == m && c.tile_n == n && !c.legal) {
                showBanner(QStringLiteral("tile %1 x %2 is illegal: %3").arg(m).arg(n).arg(QString::fromStdString(c.reason)), true);
                break;
            }
        }
        panel_->setTile(m, n);
    });
    connect(tile_runner_, &Runner::progress, this, [this](quint64, int done, int total) { tile_page_->setProgress(done, total); });
    connect(tile_runner_, &Runner::busyChanged, tile_page_, &TileMapPage::setRunning);
    connect(tile_runner_, &Runner::finished, this, [this](quint64, const QVariant& v) {
        tile_page_->model()->setTileMap(v.value<TileMap>());
        tile_page_->setMessage(QStringLiteral("Click a cell to select that tile in the workload panel."));
    });
    connect(tile_runner_, &Runner::failed, this, [this](quint64, const QString& msg) {
        tile_page_->setMessage(QStringLiteral("Tile map failed: ") + msg);
    });
    connect(tile_runner_, &Runner::cancelled, this, [this](quint64) {
        tiles_dirty_ = true;
        tile_page_->setMessage(QStringLiteral("Tile map cancelled. Press Recompute to run it again."));
    });

    connect(gpu_runner_, &Runner::finished, this, [this](quint64, const QVariant& v) {
        measurement_ = v.value<Prediction>();
        measurement_label_ = QStringLiteral("GPU run");
        metrics_model_->setMeasurement(measurement_);
        memory_chart_->setMeasurement(measurement_);
        clear_measurement_action_->setEnabled(true);
        statusBar()->showMessage(QStringLiteral("Measured on the GPU"), 5000);
    });
    connect(gpu_runner_, &Runner::failed, this, [this](quint64, const QString& msg) {
        showBanner(QStringLiteral("Run on GPU failed: ") + msg, true);
    });

    resize(1400, 900);
    if (restore_settings) restoreSettings();
    repredict();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
    QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
    QToolBar* tools = addToolBar(QStringLiteral("Main"));
    tools->setObjectName(QStringLiteral("main-toolbar"));
    auto add = [&](const QString& text, auto slot, bool toolbar) {
        QAction* a = file->addAction(text);
        connect(a, &QAction::triggered, this, slot);
        if (toolbar) tools->addAction(a);
        return a;
    };
    add(QStringLiteral("Open profile file…"), [this] { openProfileDialog(); }, false);
    add(QStringLiteral("Open measurement…"), [this] { openMeasurementDialog(); }, true);
    clear_measurement_action_ = add(QStringLiteral("Clear measurement"), [this] { clearMeasurement(); }, false);
    clear_measurement_action_->setEnabled(false);
    run_gpu_action_ = add(QStringLiteral("Run on GPU"), [this] { runOnGpu(); }, true);
    run_gpu_action_->setEnabled(false);
    if (gpu_support_built()) {
        // Probing the GPU initialises CUDA and CUPTI (can take seconds): done in a worker.
        run_gpu_action_->setToolTip(QStringLiteral("Checking for a GPU…"));
        auto* check = new Runner(QStringLiteral("tilescope-gpu-check"), this);
        connect(check, &Runner::finished, this, [this](quint64, const QVariant& v) {
            const QStringList r = v.toStringList();
            run_gpu_action_->setEnabled(r.value(0) == QStringLiteral("1"));
            run_gpu_action_->setToolTip(r.value(1));
            run_gpu_action_->setStatusTip(r.value(1));
        });
        check->submit([](const JobContext&) -> Result<QVariant> {
            const GpuAvailability gpu = gpu_run_availability();
            return QVariant(QStringList{gpu.available ? QStringLiteral("1") : QStringLiteral("0"), gpu.reason});
        });
    } else {
        const GpuAvailability gpu = gpu_run_availability();  // no CUDA: returns at once with the reason
        run_gpu_action_->setToolTip(gpu.reason);
        run_gpu_action_->setStatusTip(gpu.reason);
    }
    file->addSeparator();
    add(QStringLiteral("Export view as PNG…"), [this] { exportDialog(false); }, true);
    add(QStringLiteral("Export view as SVG…"), [this] { exportDialog(true); }, true);
    add(QStringLiteral("Export tile map CSV…"), [this] { exportCsvDialog(); }, false);
    file->addSeparator();
    QAction* quit = add(QStringLiteral("Quit"), [this] { close(); }, false);
    quit->setShortcut(QKeySequence::Quit);
}

void MainWindow::repredict() {
    const PredictRequest request = panel_->request();
    predict_runner_->submit([request](const JobContext& ctx) -> Result<QVariant> {
        if (ctx.cancelled()) return make_error("cancelled");
        auto snap = compute_prediction(request);
        if (!snap) return snap.error();
        return QVariant::fromValue(SnapshotPtr(std::make_shared<const PredictionSnapshot>(std::move(snap).value())));
    });
    compare_dirty_ = true;
    tiles_dirty_ = true;
    if (tabs_->currentIndex() == ComparePage) computeComparison();
    if (tabs_->currentIndex() == TileMapPageIndex) computeTileMap();
}

void MainWindow::onPrediction(quint64, const QVariant& value) {
    snapshot_ = value.value<SnapshotPtr>();
    if (!snapshot_) return;
    if (prediction_error_) hideBanner();
    prediction_error_ = false;
    metrics_model_->setPrediction(snapshot_);
    launches_model_->setPrediction(snapshot_);
    memory_chart_->setPrediction(snapshot_);
    schedule_page_->setPrediction(snapshot_);
    updateLaunchBox();
    if (!teaching_hw_set_ || teaching_view_->property("hw").toString() != QString::fromStdString(snapshot_->hardware.name)) {
        teaching_view_->setHardware(snapshot_->hardware);
        teaching_view_->setProperty("hw", QString::fromStdString(snapshot_->hardware.name));
        teaching_hw_set_ = true;
    }
    statusBar()->showMessage(QStringLiteral("%1 · %2 · %3: %4")
                                 .arg(QString::fromStdString(describe(snapshot_->workload)), QString::fromStdString(snapshot_->hardware.name),
                                      QString::fromStdString(snapshot_->prediction.model),
                                      QString::number(snapshot_->prediction.total[Metric::gpu_time_duration] / 1e3, 'f', 2) +
                                          QStringLiteral(" µs")));
    if (measurement_ && describe(measurement_->workload) != describe(snapshot_->workload))
        showBanner(QStringLiteral("Note: the loaded measurement (%1) is for %2, the prediction for %3.")
                       .arg(measurement_label_, QString::fromStdString(describe(measurement_->workload)),
                            QString::fromStdString(describe(snapshot_->workload))),
                   false);
}

void MainWindow::onPredictionFailed(quint64, const QString& message) {
    prediction_error_ = true;
    showBanner(message + (snapshot_ ? QStringLiteral("\n(the views still show the last valid prediction)") : QString()), true);
    statusBar()->showMessage(QStringLiteral("error: ") + message);
}

void MainWindow::updateLaunchBox() {
    const int previous = memory_launch_->currentIndex();
    const QSignalBlocker block(memory_launch_);
    memory_launch_->clear();
    memory_launch_->addItem(QStringLiteral("all launches (total)"));
    for (const LaunchResult& l : snapshot_->prediction.launches) memory_launch_->addItem(QString::fromStdString(l.name));
    const int index = previous >= 0 && previous < memory_launch_->count() ? previous : 0;
    memory_launch_->setCurrentIndex(index);
    metrics_model_->setLaunchIndex(index - 1);
    memory_chart_->setLaunchIndex(index - 1);
}

void MainWindow::onTabChanged(int index) {
    if (index == ComparePage && compare_dirty_) computeComparison();
    if (index == TileMapPageIndex && tiles_dirty_) computeTileMap();
}

void MainWindow::computeComparison() {
    compare_dirty_ = false;
    const PredictRequest request = panel_->request();
    compare_view_->setBusy(QStringLiteral("Computing attention-naive and attention-flash2 in the background…"));
    compare_runner_->submit([request](const JobContext&) -> Result<QVariant> {
        auto cmp = compute_comparison(request);
        if (!cmp) return cmp.error();
        return QVariant::fromValue(cmp.value());
    });
}

void MainWindow::computeTileMap() {
    tiles_dirty_ = false;
    const PredictRequest request = panel_->request();
    tile_runner_->submit([request](const JobContext& ctx) -> Result<QVariant> {
        auto map = compute_tile_map(request, default_tile_sizes(), ctx.cancelled, ctx.progress);
        if (!map) return map.error();
        return QVariant::fromValue(map.value());
    });
}

QString MainWindow::bannerText() const { return banner_->text(); }
bool MainWindow::bannerVisible() const { return !banner_->isHidden(); }

void MainWindow::showBanner(const QString& text, bool error) {
    banner_->setText(text);
    banner_->setStyleSheet(error ? QStringLiteral("QLabel#banner { background: #fdecea; color: #8a1c1c; border: 1px solid #e0a0a0; padding: 6px; }")
                                 : QStringLiteral("QLabel#banner { background: #fff8e1; color: #6b4e00; border: 1px solid #e6d38a; padding: 6px; }"));
    banner_->show();
}

void MainWindow::hideBanner() { banner_->hide(); }

void MainWindow::openProfileDialog() {
    const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open GPU profile"), QString::fromStdString(profile_dir()),
                                                      QStringLiteral("GPU profiles (*.json);;All files (*)"));
    if (!path.isEmpty()) panel_->addProfilePath(path);
}

Status MainWindow::loadMeasurement(const QString& path, int index, bool ask) {
    auto all = load_measurement_file(path);
    if (!all) {
        showBanner(QString::fromStdString(all.error().message), true);
        return all.error();
    }
    const std::vector<Prediction>& list = all.value();
    if (index >= static_cast<int>(list.size())) {
        const std::string msg = "measurement " + path.toStdString() + " has " + std::to_string(list.size()) + " records (asked for #" +
                                std::to_string(index) + ")";
        showBanner(QString::fromStdString(msg), true);
        return make_error(msg);
    }
    if (index < 0 && list.size() == 1) index = 0;
    if (index < 0) {
        const PredictRequest current = panel_->request();
        auto w = make_workload(current.spec);
        for (std::size_t i = 0; i < list.size() && w; ++i)
            if (describe(list[i].workload) == describe(w.value()) && list[i].gpu == current.profile) index = static_cast<int>(i);
    }
    if (index < 0 && ask) {
        QStringList items;
        for (const Prediction& p : list)
            items << QStringLiteral("%1 · %2").arg(QString::fromStdString(describe(p.workload)), QString::fromStdString(p.gpu));
        bool ok = false;
        const QString item = QInputDialog::getItem(this, QStringLiteral("Choose a measurement"),
                                                   QStringLiteral("%1 holds %2 measurements:").arg(QFileInfo(path).fileName()).arg(list.size()),
                                                   items, 0, false, &ok);
        if (!ok) return make_error("no measurement chosen");
        index = static_cast<int>(items.indexOf(item));
    }
    if (index < 0) index = 0;
    measurement_ = list[static_cast<std::size_t>(index)];
    measurement_label_ = QFileInfo(path).fileName();
    hideBanner();
    // Predict the measured workload (on its GPU's profile when that is bundled) so the two line up.
    PredictRequest r = panel_->request();
    r.spec = spec_from_workload(measurement_->workload);
    for (const std::string& name : list_bundled_profiles())
        if (name == measurement_->gpu) r.profile = name;
    panel_->setRequest(r);
    metrics_model_->setMeasurement(measurement_);
    memory_chart_->setMeasurement(measurement_);
    clear_measurement_action_->setEnabled(true);
    statusBar()->showMessage(QStringLiteral("Loaded measurement %1 (%2 on %3)")
                                 .arg(path, QString::fromStdString(describe(measurement_->workload)),
                                      QString::fromStdString(measurement_->gpu)),
                             8000);
    return {};
}

void MainWindow::clearMeasurement() {
    measurement_.reset();
    metrics_model_->setMeasurement(std::nullopt);
    memory_chart_->setMeasurement(std::nullopt);
    clear_measurement_action_->setEnabled(false);
}

void MainWindow::openMeasurementDialog() {
    const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open measurement (tilescope measure --format json)"), QString(),
                                                      QStringLiteral("Measurements (*.json *.jsonl);;All files (*)"));
    if (!path.isEmpty()) (void)loadMeasurement(path, -1, true);
}

void MainWindow::runOnGpu() {
    if (!snapshot_) return;
    const Workload workload = snapshot_->workload;
    const std::string label = snapshot_->hardware.name;
    statusBar()->showMessage(QStringLiteral("Running on the GPU…"));
    gpu_runner_->submit([workload, label](const JobContext&) -> Result<QVariant> {
        auto m = run_on_gpu(workload, label);
        if (!m) return m.error();
        return QVariant::fromValue(m.value());
    });
}

Status MainWindow::exportPage(int page, const QString& path) {
    QWidget* w = tabs_->widget(page);
    if (!w) return make_error("no such view");
    // A page that was never shown has no layout yet: give it the visible page's size first.
    if (QWidget* current = tabs_->currentWidget(); current && w != current && w->size() != current->size()) w->resize(current->size());
    w->ensurePolished();
    if (QLayout* layout = w->layout()) layout->activate();
    if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) return export_svg(w, path, tabs_->tabText(page));
    return export_png(w, path);
}

Status MainWindow::exportTileMapCsv(const QString& path) {
    const TileMap& map = tile_page_->model()->tileMap();
    if (map.cells.empty()) return make_error("the tile map has not been computed yet");
    return write_text_file(path, QByteArray::fromStdString(tile_map_csv(map)));
}

void MainWindow::exportDialog(bool svg) {
    const QString filter = svg ? QStringLiteral("SVG (*.svg)") : QStringLiteral("PNG (*.png)");
    const QString name = tabs_->tabText(tabs_->currentIndex()).toLower().replace(QLatin1Char(' '), QLatin1Char('-'));
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export view"), name + (svg ? QStringLiteral(".svg") : QStringLiteral(".png")), filter);
    if (path.isEmpty()) return;
    const Status s = exportPage(tabs_->currentIndex(), path);
    if (!s) showBanner(QString::fromStdString(s.error().message), true);
    else statusBar()->showMessage(QStringLiteral("Exported %1").arg(path), 5000);
}

void MainWindow::exportCsvDialog() {
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export tile map"), QStringLiteral("tile-map.csv"), QStringLiteral("CSV (*.csv)"));
    if (path.isEmpty()) return;
    const Status s = exportTileMapCsv(path);
    if (!s) showBanner(QString::fromStdString(s.error().message), true);
    else statusBar()->showMessage(QStringLiteral("Exported %1").arg(path), 5000);
}

void MainWindow::saveSettings() const {
    QSettings s;
    write_request(s, panel_->request());
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
}

void MainWindow::restoreSettings() {
    QSettings s;
    if (auto r = read_request(s)) panel_->setRequest(*r);
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    QMainWindow::closeEvent(event);
}

}  // namespace tilescope::gui
