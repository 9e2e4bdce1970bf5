// Views of tilescope-gui driven with QtTest under QT_QPA_PLATFORM=offscreen: change the
// workload, wait for the worker, and check what the views show against the core / simulator
// call and against `tilescope predict --format json` when the CLI is built.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>

#include <cmath>

#include "core/result_io.hpp"
#include "gui/models/compare.hpp"
#include "gui/models/metrics_model.hpp"
#include "gui/models/tile_map.hpp"
#include "gui/views/block_schedule_view.hpp"
#include "gui/views/compare_view.hpp"
#include "gui/views/live.hpp"
#include "gui/views/main_window.hpp"
#include "gui/views/memory_chart.hpp"
#include "gui/views/teaching_view.hpp"
#include "gui/views/tile_map_view.hpp"
#include "gui/views/workload_panel.hpp"
#include "gui_test_util.hpp"

using namespace tilescope;
using namespace tilescope::gui;

namespace {

PredictRequest small_attention(const std::string& model) {
    PredictRequest r;
    r.spec.kernel = "attention-flash2";
    r.spec.dtype = "fp16";
    r.spec.batch = 2;
    r.spec.heads = 8;
    r.spec.seq = 1024;
    r.spec.head_dim = 64;
    r.spec.causal = false;
    r.profile = "a100-40gb";
    r.model = model;
    return r;
}

std::string best_model() { return simulator_available() ? "sim" : "analytic"; }

// Depth-first search for a metric value below `v` (the CLI's JSON nests totals in an object).
std::optional<double> find_number(const QJsonValue& v, const QString& key) {
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        if (o.contains(key) && o.value(key).isDouble()) return o.value(key).toDouble();
        for (auto it = o.begin(); it != o.end(); ++it)
            if (auto found = find_number(it.value(), key)) return found;
    }
    return std::nullopt;
}

QStringList cli_args(const PredictRequest& r) {
    const auto& s = r.spec;
    QStringList a = {QStringLiteral("predict"), QStringLiteral("--kernel"), QString::fromStdString(*s.kernel),
                     QStringLiteral("--dtype"), QString::fromStdString(*s.dtype),
                     QStringLiteral("--batch"), QString::number(*s.batch), QStringLiteral("--heads"), QString::number(*s.heads),
                     QStringLiteral("--seq"), QString::number(*s.seq), QStringLiteral("--head-dim"), QString::number(*s.head_dim)};
    if (s.tile_m) a << QStringLiteral("--tile-m") << QString::number(*s.tile_m);
    if (s.tile_n) a << QStringLiteral("--tile-n") << QString::number(*s.tile_n);
    a << QStringLiteral("--gpu") << QString::fromStdString(r.profile) << QStringLiteral("--model") << QString::fromStdString(r.model)
      << QStringLiteral("--format") << QStringLiteral("json");
    if (r.model == "sim") a << QStringLiteral("--l2") << (r.l2 ? QStringLiteral("on") : QStringLiteral("off"));
    return a;
}

}  // namespace

class TestGuiViews : public QObject {
    Q_OBJECT
private:
    // The numbers the metrics table shows equal `tilescope predict --format json` (when built).
    void compareWithCli(MainWindow& w, const PredictRequest& expected) {
        const QString cli = gui_test::cli_path();
        if (cli.isEmpty()) {
            qInfo("tilescope CLI not built: compared against the core/simulator call only");
            return;
        }
        MetricsModel* m = w.metricsModel();
        QProcess proc;
        proc.start(cli, cli_args(expected));
        QVERIFY(proc.waitForFinished(120000));
        QVERIFY2(proc.exitCode() == 0, proc.readAllStandardError().constData());
        const QJsonDocument doc = QJsonDocument::fromJson(proc.readAllStandardOutput());
        QVERIFY(doc.isObject());
        const QJsonValue total = doc.object().value(QStringLiteral("total"));
        QVERIFY(total.isObject());
        int compared = 0;
        for (std::size_t i = 0; i < kMetricCount; ++i) {
            const QString name = QString::fromLatin1(kMetricNames[i].data(), static_cast<qsizetype>(kMetricNames[i].size()));
            const auto v = find_number(total, name);
            if (!v) continue;
            const double shown = m->data(m->index(static_cast<int>(i), MetricsModel::PredictedColumn), RawValueRole).toDouble();
            QVERIFY2(std::fabs(shown - *v) <= 1e-9 * std::max(1.0, std::fabs(*v)),
                     qPrintable(QStringLiteral("%1: GUI %2, CLI %3").arg(name).arg(shown, 0, 'g', 17).arg(*v, 0, 'g', 17)));
            ++compared;
        }
        QVERIFY(compared >= 6);
        qInfo("%d metrics equal to `tilescope %s`", compared, qPrintable(cli_args(expected).join(QLatin1Char(' '))));
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("tilescope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tilescope-gui-test"));
    }

    void changeTileShowsCoreAndCliNumbers() {
        MainWindow w(false);
        w.show();
        w.panel()->setRequest(small_attention(best_model()));
        QVERIFY(gui_test::wait_prediction(w));
        QVERIFY(w.snapshot());
        // Change one tile in the panel like a user would.
        w.panel()->tileMBox()->setValue(64);
        QVERIFY(gui_test::wait_prediction(w));
        QCOMPARE(w.snapshot()->workload.tile.m, 64);
        QVERIFY(!w.bannerVisible());

        PredictRequest expected = small_attention(best_model());
        expected.spec.tile_m = 64;
        auto direct = compute_prediction(expected);
        QVERIFY(direct.ok());
        MetricsModel* m = w.metricsModel();
        for (std::size_t i = 0; i < kMetricCount; ++i) {
            const double shown = m->data(m->index(static_cast<int>(i), MetricsModel::PredictedColumn), RawValueRole).toDouble();
            QCOMPARE(shown, direct->prediction.total.values[i]);
        }
        const Metrics& t = direct->prediction.total;
        QCOMPARE(w.memoryChart()->linkBytes(MemoryChart::Link::hbm_l2), t[Metric::dram_bytes_read] + t[Metric::dram_bytes_write]);
        QCOMPARE(w.memoryChart()->linkBytes(MemoryChart::Link::l2_sm), t[Metric::lts_t_bytes]);
        QCOMPARE(w.memoryChart()->timeNs(), t[Metric::gpu_time_duration]);

        compareWithCli(w, expected);
    }

    void memoryChartShowsCoalescedBytes() {
        if (!simulator_available()) QSKIP("built without the simulator");
        MainWindow w(false);
        w.show();
        // The analytic model has no coalescer.
        w.panel()->setRequest(small_attention("analytic"));
        QVERIFY(gui_test::wait_prediction(w));
        QVERIFY(std::isnan(w.memoryChart()->coalescedBytes()));
        // The calibrated H100 profile models it: the chart shows what the simulator reports.
        PredictRequest r = small_attention("sim");
        r.profile = "calibrated/h100-sxm";
        w.panel()->setRequest(r);
        QVERIFY(gui_test::wait_prediction(w));
        auto direct = compute_prediction(r);
        QVERIFY(direct.ok());
        const auto& extra = direct->prediction.launches.at(0).extra;
        QVERIFY(extra.count("l2_coalesced_bytes") == 1);
        QVERIFY(extra.at("l2_coalesced_bytes") > 0);
        QCOMPARE(w.memoryChart()->coalescedBytes(), extra.at("l2_coalesced_bytes"));
    }

    void l2OffEqualsAnalyticBytes() {
        if (!simulator_available()) QSKIP("built without the simulator");
        MainWindow w(false);
        w.show();
        w.panel()->setRequest(small_attention("sim"));
        QVERIFY(gui_test::wait_prediction(w));
        w.panel()->l2Box()->setChecked(false);
        QVERIFY(gui_test::wait_prediction(w));
        PredictRequest expected = small_attention("sim");
        expected.l2 = false;
        PredictRequest analytic = small_attention("analytic");
        auto a = compute_prediction(analytic);
        QVERIFY(a.ok());
        MetricsModel* m = w.metricsModel();
        for (Metric metric : {Metric::dram_bytes_read, Metric::dram_bytes_write, Metric::lts_t_bytes}) {
            const double shown = m->data(m->index(static_cast<int>(metric), MetricsModel::PredictedColumn), RawValueRole).toDouble();
            QCOMPARE(shown, a->prediction.total[metric]);
        }
        compareWithCli(w, expected);
    }

    void tileArrowsStepAsTheFlagsAllow() {
        // Tiles and warps double and halve (powers of two only); stages step by one, so the
        // GEMM's default of 3 stages is reachable with the arrows.
        WorkloadPanel panel;
        QSpinBox* stages = panel.stagesBox();
        QCOMPARE(stages->specialValueText(), QStringLiteral("auto"));
        stages->setValue(2);
        stages->stepUp();
        QCOMPARE(stages->value(), 3);
        stages->stepDown();
        stages->stepDown();
        QCOMPARE(stages->value(), 1);
        QSpinBox* warps = panel.warpsBox();
        warps->setValue(4);
        warps->stepUp();
        QCOMPARE(warps->value(), 8);
        warps->stepDown();
        warps->stepDown();
        QCOMPARE(warps->value(), 2);
        QSpinBox* tile = panel.tileMBox();
        tile->setValue(64);
        tile->stepUp();
        QCOMPARE(tile->value(), 128);
    }

    void badProfileShowsMessage() {
        MainWindow w(false);
        w.show();
        w.panel()->setRequest(small_attention("analytic"));
        QVERIFY(gui_test::wait_prediction(w));
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("broken.json"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{ \"name\": \"broken\", \"sm_count\": { \"value\": -4, \"source\": \"test\" } }");
        }
        w.panel()->addProfilePath(bad);
        QVERIFY(gui_test::wait_prediction(w));
        QVERIFY(w.bannerVisible());
        QVERIFY2(!w.bannerText().isEmpty(), "no message");
        qInfo("banner: %s", qPrintable(w.bannerText()));
        const QString garbage = dir.filePath(QStringLiteral("garbage.json"));
        {
            QFile f(garbage);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("this is not json");
        }
        w.panel()->addProfilePath(garbage);
        QVERIFY(gui_test::wait_prediction(w));
        QVERIFY(w.bannerVisible());
        // Back to a good profile: the banner goes away.
        w.panel()->profileBox()->setCurrentText(QStringLiteral("a100-40gb"));
        QVERIFY(gui_test::wait_prediction(w));
        QVERIFY(!w.bannerVisible());
    }

    void illegalTileShowsMessage() {
        MainWindow w(false);
        w.show();
        PredictRequest r = small_attention("analytic");
        r.spec.head_dim = 128;
        r.spec.tile_m = 256;
        r.spec.tile_n = 256;
        w.panel()->setRequest(r);
        QVERIFY(gui_test::wait_prediction(w));
        QVERIFY(w.bannerVisible());
        QVERIFY2(w.bannerText().contains(QStringLiteral("shared memory")), qPrintable(w.bannerText()));
        // A tile that is not a power of two: the core's validation names the flag.
        w.panel()->tileMBox()->setValue(96);
        QVERIFY(gui_test::wait_prediction(w));
        QVERIFY(w.bannerVisible());
        QVERIFY2(w.bannerText().contains(QStringLiteral("tile-m")), qPrintable(w.bannerText()));
    }

    void tileMapClickSelectsTile() {
        MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.panel()->setRequest(small_attention("analytic"));
        QVERIFY(gui_test::wait_prediction(w));
        w.tabs()->setCurrentIndex(MainWindow::TileMapPageIndex);
        QVERIFY(gui_test::wait_idle(w.tileRunner()));
        TileMapModel* model = w.tileMapPage()->model();
        QCOMPARE(model->rowCount(), 5);
        QCOMPARE(w.tileMapPage()->progressBar()->value(), 25);
        // Click the cell tile-m = 32 (row 1), tile-n = 64 (column 2).
        TileMapView* view = w.tileMapPage()->view();
        const QRectF cell = view->cellRect(1, 2);
        QVERIFY(cell.isValid());
        QVERIFY(view->toolTipAt(cell.center()).contains(QStringLiteral("tile 32 x 64")));
        QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, cell.center().toPoint());
        QCOMPARE(w.panel()->tileMBox()->value(), 32);
        QCOMPARE(w.panel()->tileNBox()->value(), 64);
        QVERIFY(gui_test::wait_prediction(w));
        QCOMPARE(w.snapshot()->workload.tile.m, 32);
        QCOMPARE(w.snapshot()->workload.tile.n, 64);
        // The map recomputes for the new selection (tab visible) and marks it.
        QVERIFY(gui_test::wait_idle(w.tileRunner()));
        QCOMPARE(model->tileMap().selected_m, 32);
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("map.csv"));
        QVERIFY(w.exportTileMapCsv(csv).ok());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().count('\n'), 26);
    }

    void tileMapCancel() {
        if (!simulator_available()) QSKIP("cancel needs a sweep slow enough to interrupt (the simulator)");
        MainWindow w(false);
        w.show();
        // Long enough that the sweep is still running after the half second below on a fast,
        // idle machine: at N = 4096 it took 0.6-0.9 s in all once the simulator reused block
        // programs, and one run in CI finished before the check.
        PredictRequest r = small_attention("sim");
        r.spec.batch = 16;
        r.spec.seq = 8192;
        w.panel()->setRequest(r);
        QSignalSpy cancelled(w.tileRunner(), &Runner::cancelled);
        w.computeTileMap();
        QTRY_VERIFY_WITH_TIMEOUT(w.tileMapPage()->cancelButton()->isEnabled(), 60000);
        // While the sweep runs the event loop stays free: a 10 ms timer keeps ticking.
        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, [&ticks] { ++ticks; });
        timer.start(10);
        QTest::qWait(500);
        timer.stop();
        QVERIFY(w.tileRunner()->busy());
        // A loop blocked by the sweep would deliver at most one (coalesced) tick; any more means it
        // kept running. Not a speed check: a loaded machine may deliver few ticks, never zero or one.
        QVERIFY2(ticks >= 2, qPrintable(QStringLiteral("only %1 timer ticks in 500 ms").arg(ticks)));
        qInfo("event loop during the sweep: %d ticks of a 10 ms timer in 500 ms", ticks);
        QTest::mouseClick(w.tileMapPage()->cancelButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 120000);
        QVERIFY(!w.tileRunner()->busy());
        QVERIFY(!w.tileMapPage()->cancelButton()->isEnabled());
    }

    void blockScheduleAt10kBlocks() {
        if (!simulator_available()) QSKIP("the block schedule needs the simulator's timeline");
        MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        PredictRequest r = small_attention("sim");
        r.spec.batch = 80;
        r.spec.heads = 16;
        r.spec.seq = 1024;
        r.spec.tile_m = 128;  // 8 x 1280 = 10,240 blocks
        w.panel()->setRequest(r);
        QVERIFY(gui_test::wait_prediction(w));
        w.tabs()->setCurrentIndex(MainWindow::SchedulePage);
        BlockScheduleView* view = w.schedulePage()->view();
        QCOMPARE(view->spanCount(), std::size_t{10240});
        QElapsedTimer timer;
        timer.start();
        const QImage full = view->grab().toImage();
        const qint64 paint_ms = timer.elapsed();
        qInfo("schedule paint of 10,240 blocks: %lld ms, aggregated=%d", paint_ms, view->aggregated());
        QVERIFY(!full.isNull());
        // The paint time above is a figure, not a check: timing asserts flake on a loaded machine.
        // Zoom in 8x around the middle: fewer ns visible, individual bars.
        const double before = view->visibleEndNs() - view->visibleStartNs();
        view->zoomBy(8.0, view->width() / 2.0);
        const double after = view->visibleEndNs() - view->visibleStartNs();
        QVERIFY(std::fabs(after * 8.0 - before) < 1e-6 * before);
        (void)view->grab();
        QVERIFY(!view->aggregated());
        view->panBy(-50);
        view->resetZoom();
        // The real input path: wheel up zooms in around the cursor, a drag pans.
        const QPointF mid(view->width() / 2.0, view->height() / 2.0);
        QWheelEvent wheel(mid, view->mapToGlobal(mid), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(view, &wheel);
        const double zoomed = view->visibleEndNs() - view->visibleStartNs();
        QVERIFY(std::fabs(zoomed * 1.5625 - before) < 1e-6 * before);  // 1.25^2
        const double start = view->visibleStartNs();
        QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, mid.toPoint());
        QMouseEvent move(QEvent::MouseMove, mid - QPointF(100, 0), view->mapToGlobal(mid - QPointF(100, 0)), Qt::NoButton, Qt::LeftButton,
                         Qt::NoModifier);
        QCoreApplication::sendEvent(view, &move);
        QTest::mouseRelease(view, Qt::LeftButton, Qt::NoModifier, (mid - QPointF(100, 0)).toPoint());
        QVERIFY(view->visibleStartNs() > start);  // dragged left: later times come into view
        QTest::mouseDClick(view, Qt::LeftButton, Qt::NoModifier, mid.toPoint());
        QCOMPARE(view->visibleEndNs() - view->visibleStartNs(), before);
        // Squeezed into a narrow view the bars get thinner than 1.5 px: aggregated drawing.
        view->setMinimumSize(0, 0);
        view->resize(100, 300);
        (void)view->grab();
        QVERIFY(view->aggregated());
        // A hover tooltip names the block and its bytes per level.
        view->resize(1200, 600);
        (void)view->grab();
        QString tip;
        for (int x = 80; x < 1100 && !tip.contains(QStringLiteral("block")); x += 37) tip = view->toolTipAt(QPointF(x, 40));
        QVERIFY2(tip.contains(QStringLiteral("block")) && tip.contains(QStringLiteral("HBM")), qPrintable(tip));
    }

    void compareAndTeaching() {
        MainWindow w(false);
        w.show();
        w.panel()->setRequest(small_attention("analytic"));
        QVERIFY(gui_test::wait_prediction(w));
        w.tabs()->setCurrentIndex(MainWindow::ComparePage);
        QVERIFY(gui_test::wait_idle(w.compareRunner()));
        QVERIFY(w.compareView()->comparison().has_value());
        const QString f = w.compareView()->formulasText();
        QVERIFY(f.contains(QStringLiteral("Θ(Nd + N²)")));
        QVERIFY(f.contains(QStringLiteral("Θ(N²d²/M)")));
        const Comparison& c = *w.compareView()->comparison();
        QCOMPARE(c.fused.workload.seq_q, 1024);
        QCOMPARE(c.naive.workload.kernel, KernelFamily::attention_naive);

        w.tabs()->setCurrentIndex(MainWindow::TeachingPage);
        TeachingView* t = w.teachingView();
        QCOMPARE(t->step(), -1);
        t->stepForward();
        QCOMPARE(t->step(), 0);
        QVERIFY(t->statsText().contains(QStringLiteral("running max")));
        t->play(true);
        QVERIFY(t->playing());
        t->play(false);
        t->setStep(t->stepCount() - 1);
        QVERIFY2(t->statsText().contains(QStringLiteral("match")), qPrintable(t->statsText()));
        QVERIFY(!t->statsText().contains(QStringLiteral("MISMATCH")));
    }

    void measurementOverlayAndExports() {
        MainWindow w(false);
        w.show();
        w.panel()->setRequest(small_attention("analytic"));
        QVERIFY(gui_test::wait_prediction(w));
        Prediction measured = w.snapshot()->prediction;
        measured.model = "measured";
        for (double& v : measured.total.values) v *= 1.25;
        for (auto& l : measured.launches)
            for (double& v : l.metrics.values) v *= 1.25;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("measured.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(to_json(measured)));
        }
        QVERIFY(w.loadMeasurement(path).ok());
        QVERIFY(gui_test::wait_prediction(w));  // the panel now shows the measured workload
        QCOMPARE(describe(w.snapshot()->workload), describe(measured.workload));
        const double pred = w.memoryChart()->linkBytes(MemoryChart::Link::hbm_l2);
        const double meas = w.memoryChart()->linkBytes(MemoryChart::Link::hbm_l2, true);
        QVERIFY(std::fabs(meas / pred - 1.25) < 1e-9);
        MetricsModel* m = w.metricsModel();
        const int row = static_cast<int>(Metric::dram_bytes_read);
        QVERIFY(m->data(m->index(row, MetricsModel::DifferenceColumn)).toString().contains(QStringLiteral("+25.0")));
        // Tooltips name the metric and the ncu command.
        bool found = false;
        const QImage img = w.memoryChart()->grab().toImage();  // lays out the hit regions
        for (int y = 0; y < w.memoryChart()->height() && !found; y += 4)
            for (int x = 0; x < w.memoryChart()->width() && !found; x += 16)
                found = w.memoryChart()->toolTipAt(QPointF(x, y)).contains(QStringLiteral("ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum"));
        QVERIFY(found);

        // JSON Lines (a measured data set): the record matching the panel's workload is chosen.
        const QString jsonl = dir.filePath(QStringLiteral("set.jsonl"));
        {
            Prediction other = measured;
            other.workload.seq_q = other.workload.seq_kv = 512;
            QFile f(jsonl);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("# tilescope calibrate --measure-dataset\n{\"microbench\":\"hbm_bandwidth\",\"value\":1e12}\n");
            f.write(QByteArray::fromStdString(to_json(other)).replace('\n', ' ') + '\n');
            f.write(QByteArray::fromStdString(to_json(measured)).replace('\n', ' ') + '\n');
        }
        QVERIFY(w.loadMeasurement(jsonl).ok());
        QVERIFY(gui_test::wait_prediction(w));
        QCOMPARE(describe(w.snapshot()->workload), describe(measured.workload));
        QVERIFY(std::fabs(w.memoryChart()->linkBytes(MemoryChart::Link::hbm_l2, true) / pred - 1.25) < 1e-9);
        QVERIFY(w.loadMeasurement(jsonl, 0).ok());  // by index: the N = 512 record
        QVERIFY(gui_test::wait_prediction(w));
        QCOMPARE(w.snapshot()->workload.seq_q, int64_t{512});
        QVERIFY(!w.loadMeasurement(jsonl, 7).ok());
        QVERIFY(w.bannerVisible());

        const QString broken = dir.filePath(QStringLiteral("broken-measurement.json"));
        {
            QFile f(broken);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{ not json");
        }
        QVERIFY(!w.loadMeasurement(broken).ok());
        QVERIFY(w.bannerVisible());
        w.clearMeasurement();
        QCOMPARE(m->data(m->index(row, MetricsModel::MeasuredColumn)).toString(), QString());

        for (int page = 0; page < w.tabs()->count(); ++page) {
            for (const char* ext : {"png", "svg"}) {
                const QString out = dir.filePath(QStringLiteral("page%1.%2").arg(page).arg(QString::fromLatin1(ext)));
                const Status s = w.exportPage(page, out);
                QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
                QVERIFY(QFileInfo(out).size() > 500);
            }
        }
        QVERIFY(!QImage(dir.filePath(QStringLiteral("page0.png"))).isNull());
        QFile svg(dir.filePath(QStringLiteral("page0.svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
    }

    void runOnGpuAvailability() {
        MainWindow w(false);
        QAction* a = w.runOnGpuAction();
        QVERIFY(!a->toolTip().isEmpty());
#ifndef TILESCOPE_HAVE_CUDA
        QVERIFY(!a->isEnabled());
        QVERIFY(a->toolTip().contains(QStringLiteral("without CUDA")));
#else
        // Built with CUDA: the GPU check runs in a worker, then the action says what it found.
        QTRY_VERIFY_WITH_TIMEOUT(!a->toolTip().startsWith(QStringLiteral("Checking")), 60000);
        const GpuAvailability gpu = gpu_run_availability();
        QCOMPARE(a->isEnabled(), gpu.available);
        QCOMPARE(a->toolTip(), gpu.reason);
        qInfo("Run on GPU: %s", qPrintable(a->toolTip()));
        if (!gpu.available) return;
        // A GPU is present: press the button and wait for the real kernel's counters to be
        // overlaid on the prediction of the same workload.
        w.panel()->setRequest(small_attention("analytic"));
        QVERIFY(gui_test::wait_prediction(w));
        QVERIFY(!w.metricsModel()->hasMeasurement());
        a->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(w.metricsModel()->hasMeasurement() || w.bannerVisible(), 180000);
        QVERIFY2(!w.bannerVisible(), qPrintable(w.bannerText()));
        // The kernel reads at least Q, K and V once (2 x 8 x 1024 x 64 fp16 = 2 MiB each); the harness flushes L2 first.
        const double measured_hbm = w.memoryChart()->linkBytes(MemoryChart::Link::hbm_l2, true);
        qInfo("Run on GPU: measured HBM<->L2 bytes %.0f, predicted %.0f", measured_hbm,
              w.memoryChart()->linkBytes(MemoryChart::Link::hbm_l2));
        QVERIFY(measured_hbm >= 3.0 * 2 * 8 * 1024 * 64 * 2 * 0.98);
#endif
    }

    void settingsRoundTrip() {
        PredictRequest r = small_attention("analytic");
        r.spec.seq = 2048;
        r.spec.tile_m = 64;
        r.spec.tile_n = 32;
        {
            MainWindow w(false);
            w.panel()->setRequest(r);
            QVERIFY(gui_test::wait_prediction(w));
            w.saveSettings();
        }
        MainWindow again(true);
        const PredictRequest back = again.panel()->request();
        QCOMPARE(back.spec.seq.value_or(0), int64_t{2048});
        QCOMPARE(back.spec.tile_m.value_or(0), int64_t{64});
        QCOMPARE(back.spec.tile_n.value_or(0), int64_t{32});
        QCOMPARE(back.profile, std::string("a100-40gb"));
        QCOMPARE(back.model, std::string("analytic"));
        QVERIFY(gui_test::wait_prediction(again));
    }
};

QTEST_MAIN(TestGuiViews)
#include "test_gui_views.moc"
