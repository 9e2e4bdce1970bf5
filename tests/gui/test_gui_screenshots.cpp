// Renders every view of the main window to PNG (under Xvfb in CTest) into
// $TILESCOPE_SCREENSHOT_DIR (default ./screenshots), and copies them to
// $TILESCOPE_SCREENSHOT_COPY_DIR when set (docs/screenshots for the README).
#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QImage>
#include <QStandardPaths>
#include <QTabWidget>
#include <QtTest>

#include "gui/models/tile_map.hpp"
#include <QComboBox>

#include "gui/views/block_schedule_view.hpp"
#include "gui/views/main_window.hpp"
#include "gui/views/teaching_view.hpp"
#include "gui/views/workload_panel.hpp"
#include "gui_test_util.hpp"

using namespace tilescope;
using namespace tilescope::gui;

class TestGuiScreenshots : public QObject {
    Q_OBJECT
private:
    QDir out_;
    QStringList written_;

    void shoot(MainWindow& w, const QString& name) {
        QCoreApplication::processEvents();
        const QImage img = w.grab().toImage();
        QVERIFY(!img.isNull());
        // Not blank: a rendered view has many distinct colours.
        QSet<QRgb> colours;
        for (int y = 0; y < img.height(); y += 7)
            for (int x = 0; x < img.width(); x += 7) colours.insert(img.pixel(x, y));
        QVERIFY2(colours.size() > 8, qPrintable(name + QStringLiteral(" looks blank")));
        const QString path = out_.filePath(name + QStringLiteral(".png"));
        QVERIFY(img.save(path));
        written_ << path;
        qInfo("wrote %s", qPrintable(path));
    }

    static PredictRequest request(const std::string& kernel) {
        PredictRequest r;
        r.spec.kernel = kernel;
        r.spec.dtype = "fp16";
        r.spec.batch = 4;
        r.spec.heads = 16;
        r.spec.seq = 2048;
        r.spec.head_dim = 64;
        r.spec.causal = false;
        r.profile = "a100-40gb";
        r.model = simulator_available() ? "sim" : "analytic";
        return r;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("tilescope-test"));
        const QByteArray dir = qgetenv("TILESCOPE_SCREENSHOT_DIR");
        out_ = QDir(dir.isEmpty() ? QStringLiteral("screenshots") : QString::fromLocal8Bit(dir));
        QVERIFY(out_.mkpath(QStringLiteral(".")));
    }

    void allViews() {
        MainWindow w(false);
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.panel()->setRequest(request("attention-flash2"));
        QVERIFY(gui_test::wait_prediction(w));
        w.tabs()->setCurrentIndex(MainWindow::MemoryPage);
        shoot(w, QStringLiteral("memory"));

        w.tabs()->setCurrentIndex(MainWindow::SchedulePage);
        shoot(w, QStringLiteral("block-schedule"));

        w.tabs()->setCurrentIndex(MainWindow::TileMapPageIndex);
        QVERIFY(gui_test::wait_idle(w.tileRunner(), 300000));
        shoot(w, QStringLiteral("tile-map"));

        w.tabs()->setCurrentIndex(MainWindow::ComparePage);
        QVERIFY(gui_test::wait_idle(w.compareRunner(), 300000));
        shoot(w, QStringLiteral("naive-vs-fused"));

        w.tabs()->setCurrentIndex(MainWindow::TeachingPage);
        w.teachingView()->setStep(5);
        shoot(w, QStringLiteral("teaching"));

        // 131,072 softmax blocks of naive attention: the zoomed-out, aggregated schedule.
        if (simulator_available()) {
            w.panel()->setRequest(request("attention-naive"));
            QVERIFY(gui_test::wait_prediction(w, 300000));
            w.tabs()->setCurrentIndex(MainWindow::SchedulePage);
            w.schedulePage()->launchBox()->setCurrentIndex(1);
            shoot(w, QStringLiteral("block-schedule-131k-blocks"));
            QVERIFY(w.schedulePage()->view()->aggregated());
        }

        // An error in the banner: an illegal tile.
        PredictRequest bad = request("attention-flash2");
        bad.spec.head_dim = 128;
        bad.spec.tile_m = 256;
        bad.spec.tile_n = 256;
        w.panel()->setRequest(bad);
        QVERIFY(gui_test::wait_prediction(w));
        QVERIFY(w.bannerVisible());
        w.tabs()->setCurrentIndex(MainWindow::MemoryPage);
        shoot(w, QStringLiteral("illegal-tile"));
    }

    void measuredOverlay() {
        // Real H100 measurements committed to the repository (tilescope calibrate
        // --measure-dataset on the lent GPU): the default flash2 workload's record overlaid on its
        // prediction. Only real files are used; none -> skipped.
        const QString dataset = QStringLiteral(TILESCOPE_SOURCE_DIR "/profiles/validation/h100-sxm-dataset.jsonl");
        if (!QFileInfo::exists(dataset)) QSKIP("no measured data set under profiles/validation");
        MainWindow w(false);
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        PredictRequest r;
        r.spec.kernel = "attention-flash2";
        r.spec.batch = 4;
        r.spec.heads = 32;
        r.spec.seq = 4096;
        r.spec.head_dim = 64;
        r.spec.tile_m = 128;
        r.spec.tile_n = 64;
        r.profile = "h100-sxm";
        r.model = simulator_available() ? "sim" : "analytic";
        w.panel()->setRequest(r);
        QVERIFY(gui_test::wait_prediction(w));
        const Status s = w.loadMeasurement(dataset);  // picks the record matching the panel
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
        QVERIFY(gui_test::wait_prediction(w));
        w.tabs()->setCurrentIndex(MainWindow::MemoryPage);
        shoot(w, QStringLiteral("memory-measured-h100"));
    }

    void cleanupTestCase() {
        const QByteArray copy = qgetenv("TILESCOPE_SCREENSHOT_COPY_DIR");
        if (copy.isEmpty()) return;
        QDir dest(QString::fromLocal8Bit(copy));
        QVERIFY(dest.mkpath(QStringLiteral(".")));
        for (const QString& path : written_) {
            const QString target = dest.filePath(QFileInfo(path).fileName());
            QFile::remove(target);
            QVERIFY(QFile::copy(path, target));
            qInfo("copied to %s", qPrintable(target));
        }
    }
};

QTEST_MAIN(TestGuiScreenshots)
#include "test_gui_screenshots.moc"
