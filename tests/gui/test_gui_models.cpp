// Models of tilescope-gui: every QAbstractItemModel under QAbstractItemModelTester, the
// worker's stale-result dropping and cancel, the pure computations behind the views.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <thread>

#include "core/analytic.hpp"
#include "core/lower.hpp"
#include "gui/models/compare.hpp"
#include "gui/models/metatypes.hpp"
#include "gui/models/metrics_model.hpp"
#include "gui/models/prediction_service.hpp"
#include "gui/models/runner.hpp"
#include "gui/models/schedule_bins.hpp"
#include "gui/models/teaching.hpp"
#include "gui/models/tile_map.hpp"

using namespace tilescope;
using namespace tilescope::gui;

namespace {

PredictRequest attention_request(const std::string& model, int64_t seq = 1024) {
    PredictRequest r;
    r.spec.kernel = "attention-flash2";
    r.spec.batch = 2;
    r.spec.heads = 4;
    r.spec.seq = seq;
    r.spec.head_dim = 64;
    r.profile = "a100-40gb";
    r.model = model;
    return r;
}

SnapshotPtr snapshot_of(const PredictRequest& r) {
    auto s = compute_prediction(r);
    if (!s) qFatal("prediction failed: %s", s.error().message.c_str());
    return std::make_shared<const PredictionSnapshot>(s.value());
}

}  // namespace

class TestGuiModels : public QObject {
    Q_OBJECT
private slots:
    void predictionEqualsCoreCall() {
        const PredictRequest r = attention_request("analytic");
        auto snap = compute_prediction(r);
        QVERIFY2(snap.ok(), snap.ok() ? "" : snap.error().message.c_str());
        auto w = make_workload(r.spec);
        auto hw = load_hardware("a100-40gb");
        QVERIFY(w.ok() && hw.ok());
        auto launches = lower(w.value(), hw.value());
        QVERIFY(launches.ok());
        const Prediction direct = analytic(w.value(), launches.value(), hw.value());
        for (std::size_t i = 0; i < kMetricCount; ++i)
            QCOMPARE(snap->prediction.total.values[i], direct.total.values[i]);
    }

    void specFromWorkloadRoundTrips() {
        for (const char* kernel : {"attention-naive", "attention-flash1", "attention-flash2", "gemm", "softmax"}) {
            WorkloadSpec spec;
            spec.kernel = kernel;
            auto w = make_workload(spec);
            QVERIFY2(w.ok(), kernel);
            auto back = make_workload(spec_from_workload(w.value()));
            QVERIFY2(back.ok(), back.ok() ? kernel : back.error().message.c_str());
            QCOMPARE(describe(back.value()), describe(w.value()));
        }
    }

    void badProfileAndIllegalTileAreErrors() {
        PredictRequest r = attention_request("analytic");
        r.profile = "no-such-gpu";
        auto a = compute_prediction(r);
        QVERIFY(!a.ok());
        QVERIFY(!a.error().message.empty());
        r = attention_request("analytic");
        r.spec.head_dim = 128;
        r.spec.tile_m = 256;
        r.spec.tile_n = 256;
        auto b = compute_prediction(r);
        QVERIFY(!b.ok());
        QVERIFY2(QString::fromStdString(b.error().message).contains(QStringLiteral("shared memory")), b.error().message.c_str());
    }

    void metricsModel() {
        MetricsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), static_cast<int>(kMetricCount));
        const SnapshotPtr snap = snapshot_of(attention_request("analytic"));
        model.setPrediction(snap);
        const int row = static_cast<int>(Metric::dram_bytes_read);
        QCOMPARE(model.data(model.index(row, MetricsModel::PredictedColumn), RawValueRole).toDouble(),
                 snap->prediction.total[Metric::dram_bytes_read]);
        QCOMPARE(model.data(model.index(row, MetricsModel::NameColumn)).toString(), QStringLiteral("dram__bytes_read.sum"));
        QVERIFY(model.data(model.index(row, MetricsModel::NameColumn), Qt::ToolTipRole).toString().contains(
            QStringLiteral("ncu --metrics dram__bytes_read.sum")));
        // Overlay a "measurement" 10 % above the prediction: the difference column says +10 %.
        Prediction measured = snap->prediction;
        measured.model = "measured";
        for (double& v : measured.total.values) v *= 1.1;
        model.setMeasurement(measured);
        const double diff = model.data(model.index(row, MetricsModel::DifferenceColumn), RawValueRole).toDouble();
        QVERIFY(std::fabs(diff - 0.1) < 1e-9);
        QVERIFY(model.data(model.index(row, MetricsModel::DifferenceColumn)).toString().startsWith(QStringLiteral("+10.0")));
        model.setLaunchIndex(0);
        model.setLaunchIndex(5);  // out of range: back to totals
        QCOMPARE(model.launchIndex(), -1);
        model.setMeasurement(std::nullopt);
        model.setPrediction(nullptr);
    }

    void launchesModel() {
        LaunchesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        PredictRequest r = attention_request("analytic");
        r.spec.kernel = "attention-naive";
        const SnapshotPtr snap = snapshot_of(r);
        model.setPrediction(snap);
        QCOMPARE(model.rowCount(), 3);  // qk, softmax, pv
        QCOMPARE(model.data(model.index(0, LaunchesModel::ThreadsColumn), RawValueRole).toInt(),
                 snap->prediction.launches[0].facts.threads_per_block);
        model.setPrediction(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void tileMapModelAndCsv() {
        PredictRequest r = attention_request("analytic");
        r.spec.head_dim = 128;
        std::atomic<int> progress_calls{0};
        auto map = compute_tile_map(r, default_tile_sizes(), [] { return false; }, [&](int, int) { ++progress_calls; });
        QVERIFY(map.ok());
        QCOMPARE(map->cells.size(), std::size_t{25});
        QCOMPARE(progress_calls.load(), 25);
        // 256 x 256 with d = 128 cannot fit in shared memory: illegal with the core's reason.
        const TileCell& big = map->at(4, 4);
        QCOMPARE(big.tile_m, 256);
        QVERIFY(!big.legal);
        QVERIFY(!big.reason.empty());
        // A default-sized cell is legal and equals a direct prediction of that tile.
        const TileCell& c = map->at(3, 2);  // 128 x 64
        QVERIFY(c.legal);
        PredictRequest one = r;
        one.spec.tile_m = 128;
        one.spec.tile_n = 64;
        auto direct = compute_prediction(one);
        QVERIFY(direct.ok());
        QCOMPARE(c.time_ns, direct->prediction.total[Metric::gpu_time_duration]);

        TileMapModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTileMap(map.value());
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.columnCount(), 5);
        QVERIFY(model.data(model.index(4, 4), Qt::ToolTipRole).toString().contains(QStringLiteral("illegal")));
        QVERIFY(std::isnan(model.data(model.index(4, 4), RawValueRole).toDouble()));
        // The fastest legal cell is 0% over the best; every legal cell's ratio is its time over it.
        double best = 0;
        for (const TileCell& cell : map->cells)
            if (cell.legal && (best == 0 || cell.time_ns < best)) best = cell.time_ns;
        int fastest = 0, near = 0;
        for (const TileCell& cell : map->cells) {
            if (!cell.legal) {
                QVERIFY(std::isnan(model.overBest(cell)));
                QVERIFY(!model.nearBest(cell));
                continue;
            }
            QCOMPARE(model.overBest(cell), cell.time_ns / best - 1.0);
            QCOMPARE(model.nearBest(cell), cell.time_ns <= best * (1.0 + kTieBand));
            fastest += model.overBest(cell) == 0.0 ? 1 : 0;
            near += model.nearBest(cell) ? 1 : 0;
        }
        QVERIFY(fastest >= 1);
        QVERIFY(near >= fastest);
        QVERIFY(model.data(model.index(3, 2), Qt::ToolTipRole).toString().contains(QStringLiteral("fastest predicted tile")));
        model.setQuantity(TileMapModel::Quantity::hbm_bytes);
        QCOMPARE(model.data(model.index(3, 2), RawValueRole).toDouble(), c.hbm_bytes);
        model.clear();
        QCOMPARE(model.rowCount(), 0);

        const std::string csv = tile_map_csv(map.value());
        QCOMPARE(static_cast<int>(std::count(csv.begin(), csv.end(), '\n')), 26);  // one header + 25 rows
        QVERIFY(csv.rfind("tile_m,tile_n,status", 0) == 0);
        QVERIFY(csv.find("illegal") != std::string::npos);
    }

    void tileMapCancel() {
        std::atomic<int> calls{0};
        auto map = compute_tile_map(attention_request("analytic"), default_tile_sizes(), [&] { return ++calls > 3; }, {});
        QVERIFY(!map.ok());
        QVERIFY(QString::fromStdString(map.error().message).contains(QStringLiteral("cancel")));
    }

    void runnerDropsStaleResults() {
        Runner runner(QStringLiteral("test"));
        QSignalSpy finished(&runner, &Runner::finished);
        QSignalSpy failed(&runner, &Runner::failed);
        std::atomic<int> ran{0};
        for (int i = 0; i < 5; ++i) {
            runner.submit([i, &ran](const JobContext&) -> Result<QVariant> {
                ++ran;
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                return QVariant(i);
            });
        }
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QTest::qWait(100);
        QCOMPARE(finished.count(), 1);  // only the newest generation is reported
        QCOMPARE(finished.at(0).at(0).toULongLong(), runner.generation());
        QCOMPARE(finished.at(0).at(1).toInt(), 4);
        QVERIFY(ran.load() >= 1);
        QCOMPARE(failed.count(), 0);
        QVERIFY(!runner.busy());
    }

    void runnerNewJobDoesNotWaitForStale() {
        // A stale job stuck in an uninterruptible call must not delay the newest one.
        Runner runner(QStringLiteral("test"));
        QSignalSpy finished(&runner, &Runner::finished);
        std::atomic<bool> release{false};
        runner.submit([&release](const JobContext&) -> Result<QVariant> {
            while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
            return QVariant(QStringLiteral("stale"));
        });
        QTest::qWait(20);  // the slow job is running now
        runner.submit([](const JobContext&) -> Result<QVariant> { return QVariant(QStringLiteral("fresh")); });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("fresh"));
        release = true;
        QTest::qWait(50);
        QCOMPARE(finished.count(), 1);  // the stale result was dropped
    }

    void runnerReportsErrorsAndCancel() {
        Runner runner(QStringLiteral("test"));
        QSignalSpy failed(&runner, &Runner::failed);
        QSignalSpy cancelled(&runner, &Runner::cancelled);
        QSignalSpy progress(&runner, &Runner::progress);
        runner.submit([](const JobContext&) -> Result<QVariant> { return make_error("profile x.json: $.sm_count.value must be positive"); });
        QTRY_COMPARE(failed.count(), 1);
        QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("sm_count")));
        runner.submit([](const JobContext& ctx) -> Result<QVariant> {
            for (int i = 0; i < 1000 && !ctx.cancelled(); ++i) {
                ctx.progress(i, 1000);
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            return QVariant(1);
        });
        QTRY_VERIFY(progress.count() > 0);
        runner.cancel();
        QTRY_COMPARE(cancelled.count(), 1);
        QVERIFY(!runner.busy());
    }

    void scheduleBins() {
        // SM 0: one slot busy the whole [0, 100) range; SM 1: busy [50, 100) by a wave-1 block.
        std::vector<BlockSpan> spans(2);
        spans[0] = {0, 0, 0, 0.0, 100.0, 0, 0, 0, 0};
        spans[1] = {1, 1, 0, 50.0, 100.0, 0, 0, 0, 1};
        const ScheduleBins bins = bin_timeline(spans, 2, 2, 0.0, 100.0, 4);
        QCOMPARE(bins.busyAt(0, 0), 0.5f);  // one of two slots
        QCOMPARE(bins.busyAt(0, 3), 0.5f);
        QCOMPARE(bins.busyAt(1, 0), 0.0f);
        QCOMPARE(bins.busyAt(1, 1), 0.0f);
        QCOMPARE(bins.busyAt(1, 2), 0.5f);
        QCOMPARE(bins.waveAt(1, 3), 1.0f);
        QVERIFY(std::isnan(bins.waveAt(1, 0)));
        const TimelineExtent e = timeline_extent(spans);
        QCOMPARE(e.sm_count, 2);
        QCOMPARE(e.waves, 2LL);
        QCOMPARE(e.end_ns, 100.0);
    }

    void teachingOnlineSoftmaxMatchesDirect() {
        const TeachingRun run = run_teaching(TeachingConfig{});
        QCOMPARE(run.steps.size(), std::size_t{16});
        QVERIFY(run.max_abs_error < 1e-12);
        for (std::size_t r = 0; r < run.final_m.size(); ++r) {
            QVERIFY(std::fabs(run.final_m[r] - run.direct_row_max[r]) < 1e-12);
            QVERIFY(std::fabs(run.final_l[r] - run.direct_row_sum[r]) < 1e-12 * run.direct_row_sum[r]);
        }
        // m never decreases along a row's K/V tiles.
        for (std::size_t s = 1; s < run.steps.size(); ++s)
            if (run.steps[s].q_tile == run.steps[s - 1].q_tile)
                for (std::size_t r = 0; r < run.steps[s].m.size(); ++r) QVERIFY(run.steps[s].m[r] >= run.steps[s - 1].m[r]);
        // The loop's byte counters equal the core's analytic() of the same toy shape.
        const TeachingConfig& c = run.config;
        WorkloadSpec spec;
        spec.kernel = "attention-flash2";
        spec.batch = 1;
        spec.heads = 1;
        spec.seq = c.n;
        spec.head_dim = c.d;
        spec.tile_m = c.br;
        spec.tile_n = c.bc;
        auto w = make_workload(spec);
        QVERIFY2(w.ok(), w.ok() ? "" : w.error().message.c_str());
        auto hw = load_hardware("a100-40gb");
        auto launches = lower(w.value(), hw.value());
        QVERIFY(launches.ok());
        const Prediction p = analytic(w.value(), launches.value(), hw.value());
        const TeachingStep& last = run.steps.back();
        QCOMPARE(last.hbm_read_bytes, p.total[Metric::dram_bytes_read]);
        QCOMPARE(last.hbm_write_bytes, p.total[Metric::dram_bytes_write]);
        QCOMPARE(last.smem_write_bytes, p.total[Metric::smem_bytes_write]);
        QCOMPARE(last.smem_read_bytes, p.total[Metric::smem_bytes_read]);
    }

    void comparisonAndFormulas() {
        PredictRequest r = attention_request("analytic", 2048);
        auto cmp = compute_comparison(r);
        QVERIFY2(cmp.ok(), cmp.ok() ? "" : cmp.error().message.c_str());
        const double naive = cmp->naive.prediction.total[Metric::dram_bytes_read] + cmp->naive.prediction.total[Metric::dram_bytes_write];
        const double fused = cmp->fused.prediction.total[Metric::dram_bytes_read] + cmp->fused.prediction.total[Metric::dram_bytes_write];
        QVERIFY(naive > fused);
        // B·H·(N·d + N²) with B·H = 8, N = 2048, d = 64.
        QCOMPARE(cmp->io.naive_elements, 8.0 * (2048.0 * 64 + 2048.0 * 2048));
        const double m_elements = static_cast<double>(cmp->fused.hardware.smem_per_sm_bytes) / 2.0;
        QCOMPARE(cmp->io.fused_elements, 8.0 * 2048.0 * 2048.0 * 64 * 64 / m_elements);
        // The flash2 HBM read term equals the tile formula's read part: Q once, K and V per Q tile.
        const double q_tiles = std::ceil(2048.0 / cmp->fused.workload.tile.m);
        QCOMPARE(cmp->fused.prediction.total[Metric::dram_bytes_read], 8.0 * (2048.0 * 64 + 2 * 2048.0 * 64 * q_tiles) * 2);
        // Non-attention panel: compared at the default attention shape, with a note.
        PredictRequest g;
        g.spec.kernel = "gemm";
        g.model = "analytic";
        auto cg = compute_comparison(g);
        QVERIFY(cg.ok());
        QVERIFY(!cg->note.empty());
    }

    void simulatorWhenAvailable() {
        if (!simulator_available()) QSKIP("built without the simulator");
        const SnapshotPtr snap = snapshot_of(attention_request("sim"));
        QCOMPARE(snap->prediction.model, std::string("sim"));
        QVERIFY(!snap->prediction.launches.empty());
        const auto& l = snap->prediction.launches[0];
        QCOMPARE(static_cast<std::int64_t>(l.timeline.size()), l.facts.grid_x * l.facts.grid_y * l.facts.grid_z);
    }
};

QTEST_MAIN(TestGuiModels)
#include "test_gui_models.moc"
