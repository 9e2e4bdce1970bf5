// tilescope-gui: the Qt 6 desktop app. All logic lives in tilescope_gui_views/_models.
#include <QApplication>

#include <cstdio>
#include <cstdlib>

#include "gui/views/main_window.hpp"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("tilescope"));
    QApplication::setApplicationName(QStringLiteral("tilescope-gui"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    auto* window = new tilescope::gui::MainWindow;  // settings are saved in its closeEvent
    window->show();
    const int rc = QApplication::exec();
    // A simulator call still running in a worker (e.g. a 20 s naive-attention simulation the user
    // already moved away from) cannot be interrupted; do not make the user wait for it on exit.
    // Everything worth keeping (QSettings) was written when the window closed.
    std::fflush(nullptr);
    std::_Exit(rc);
}
