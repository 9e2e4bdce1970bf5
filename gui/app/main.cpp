// tilescope-gui: the Qt 6 desktop app. All logic lives in tilescope_gui_views/_models.
//
//   tilescope-gui [--profile NAME|FILE] [--measurement FILE] [--model sim|analytic] [--fresh]
#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>
#include <cstdlib>

#include "gui/views/main_window.hpp"
#include "gui/views/workload_panel.hpp"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("tilescope"));
    QApplication::setApplicationName(QStringLiteral("tilescope-gui"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("tilescope: GPU memory-hierarchy explorer for tiled kernels"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption profile({QStringLiteral("p"), QStringLiteral("profile")},
                                     QStringLiteral("GPU profile: bundled name (a100-40gb, ...) or a JSON file"), QStringLiteral("profile"));
    const QCommandLineOption measurement({QStringLiteral("m"), QStringLiteral("measurement")},
                                         QStringLiteral("overlay a `tilescope measure --format json` file"), QStringLiteral("file"));
    const QCommandLineOption model(QStringLiteral("model"), QStringLiteral("sim or analytic"), QStringLiteral("model"));
    const QCommandLineOption fresh(QStringLiteral("fresh"), QStringLiteral("ignore the remembered workload and window layout"));
    parser.addOptions({profile, measurement, model, fresh});
    parser.process(app);

    auto* window = new tilescope::gui::MainWindow(!parser.isSet(fresh));  // settings are saved in its closeEvent
    if (parser.isSet(model)) window->panel()->setModel(parser.value(model));
    if (parser.isSet(profile)) window->panel()->setProfile(parser.value(profile));  // a bad file: banner
    if (parser.isSet(measurement)) (void)window->loadMeasurement(parser.value(measurement));  // errors go to the banner
    window->show();
    const int rc = QApplication::exec();
    // A simulator call still running in a worker (e.g. a 20 s naive-attention simulation the user
    // already moved away from) cannot be interrupted; do not make the user wait for it on exit.
    // Everything worth keeping (QSettings) was written when the window closed.
    std::fflush(nullptr);
    std::_Exit(rc);
}
