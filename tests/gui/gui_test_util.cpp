#include "gui_test_util.hpp"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFileInfo>
#include <QTest>

#include "gui/models/runner.hpp"
#include "gui/views/main_window.hpp"

namespace gui_test {

bool wait_idle(tilescope::gui::Runner* runner, int timeout_ms) {
    QDeadlineTimer deadline(timeout_ms);
    // A queued result may still be in flight right after submit(): let events run first.
    QCoreApplication::processEvents();
    while (runner->busy()) {
        if (deadline.hasExpired()) return false;
        QTest::qWait(10);
    }
    QCoreApplication::processEvents();
    return true;
}

bool wait_prediction(tilescope::gui::MainWindow& window, int timeout_ms) {
    return wait_idle(window.predictRunner(), timeout_ms);
}

QString cli_path() {
    const QString path = QStringLiteral(TILESCOPE_CLI_PATH);
    return !path.isEmpty() && QFileInfo(path).isExecutable() ? path : QString();
}

}  // namespace gui_test
