#include "gui/views/export.hpp"

#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>

namespace tilescope::gui {

Status export_png(QWidget* widget, const QString& path) {
    if (!widget) return make_error("nothing to export");
    const QPixmap pixmap = widget->grab();
    if (pixmap.isNull()) return make_error("could not render the view to an image");
    if (!pixmap.save(path, "PNG")) return make_error("could not write PNG " + path.toStdString());
    return {};
}

Status export_svg(QWidget* widget, const QString& path, const QString& title) {
    if (!widget) return make_error("nothing to export");
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(widget->size());
    generator.setViewBox(QRect(QPoint(0, 0), widget->size()));
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("tilescope-gui export"));
    QPainter painter;
    if (!painter.begin(&generator)) return make_error("could not write SVG " + path.toStdString());
    widget->render(&painter);
    painter.end();
    if (!QFile::exists(path)) return make_error("could not write SVG " + path.toStdString());
    return {};
}

Status write_text_file(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return make_error("cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
    if (file.write(bytes) != bytes.size()) return make_error("short write to " + path.toStdString());
    return {};
}

}  // namespace tilescope::gui
