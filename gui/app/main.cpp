// tilescope-gui: the Qt 6 desktop app. All logic lives in tilescope_gui_views/_models.
#include <QApplication>

#include "gui/views/main_window.hpp"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("tilescope"));
    QApplication::setApplicationName(QStringLiteral("tilescope-gui"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    tilescope::gui::MainWindow window;
    window.show();
    return QApplication::exec();
}
