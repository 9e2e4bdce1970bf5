// Export of any view: PNG (QWidget::grab) and SVG (QSvgGenerator + QWidget::render).
#pragma once

#include <QString>

#include "core/result.hpp"

class QWidget;

namespace tilescope::gui {

Status export_png(QWidget* widget, const QString& path);
Status export_svg(QWidget* widget, const QString& path, const QString& title);
Status write_text_file(const QString& path, const QByteArray& bytes);

}  // namespace tilescope::gui
