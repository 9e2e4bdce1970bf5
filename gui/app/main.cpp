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
    QApplication::setOrganizationName(QStringLiteral("tilescope"));
    QApplication::setApplicationName(QStringLiteral("tilescope-gui"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("tilescope: GPU memory-hierarchy explorer for tiled kernels"));
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("show this help"));
    const QCommandLineOption version(QStringLiteral("version"), QStringLiteral("show the version"));
    const QCommandLineOption profile({QStringLiteral("p"), QStringLiteral("profile")},
                                     QStringLiteral("GPU profile: bundled name (a100-40gb, ...) or a JSON file"), QStringLiteral("profile"));
    const QCommandLineOption measurement({QStringLiteral("m"), QStringLiteral("measurement")},
                                         QStringLiteral("overlay a `tilescope measure --format json` file"), QStringLiteral("file"));
    const QCommandLineOption model(QStringLiteral("model"), QStringLiteral("sim or analytic"), QStringLiteral("model"));
    const QCommandLineOption fresh(QStringLiteral("fresh"), QStringLiteral("ignore the remembered workload and window layout"));
    parser.addOptions({help, version, profile, measurement, model, fresh});
    // The command line is read before the application (and its display connection) exists, so
    // --help works without a display and bad options exit 2 like the CLI's, with one line.
    // QApplication's own options (-platform offscreen, -style ...) are left to it: they are not
    // ours to refuse (Qt documents them for every application).
    static const QStringList qt_with_value = {"platform", "platformpluginpath", "platformtheme", "plugin", "style",
                                              "stylesheet", "session", "display", "geometry", "qwindowgeometry",
                                              "qwindowicon", "qwindowtitle", "fontengine"};
    static const QStringList qt_flags = {"reverse", "widgetcount", "nograb", "dograb", "sync"};
    QStringList args;
    for (int i = 0; i < argc; ++i) {
        const QString a = QString::fromLocal8Bit(argv[i]);
        QString name = a;
        while (name.startsWith(QLatin1Char('-'))) name.remove(0, 1);
        if (i > 0 && a.startsWith(QLatin1Char('-')) && qt_with_value.contains(name)) {
            ++i;  // and its value
            continue;
        }
        if (i > 0 && a.startsWith(QLatin1Char('-')) && qt_flags.contains(name)) continue;
        args << a;
    }
    if (!parser.parse(args)) {
        std::fprintf(stderr, "tilescope-gui: error: %s\n", qPrintable(parser.errorText()));
        return 2;
    }
    if (!parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "tilescope-gui: error: unexpected argument '%s'\n",
                     qPrintable(parser.positionalArguments().front()));
        return 2;
    }
    if (parser.isSet(help)) {
        QString text = parser.helpText();  // without an application object Qt cannot name the program
        text.replace(QStringLiteral("<executable_name>"), QStringLiteral("tilescope-gui"));
        std::fputs(qPrintable(text), stdout);
        return 0;
    }
    if (parser.isSet(version)) {
        std::printf("tilescope-gui %s\n", qPrintable(QApplication::applicationVersion()));
        return 0;
    }
    if (parser.isSet(model) && parser.value(model) != QStringLiteral("sim") &&
        parser.value(model) != QStringLiteral("analytic")) {
        std::fprintf(stderr, "tilescope-gui: error: --model must be sim or analytic (got '%s')\n",
                     qPrintable(parser.value(model)));
        return 2;
    }
    QApplication app(argc, argv);

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
