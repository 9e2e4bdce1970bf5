#include "gui/models/format.hpp"

#include <array>
#include <cmath>
#include <utility>

namespace tilescope::gui {
namespace {

QString scaled(double value, const QString& unit) {
    if (std::isnan(value)) return QStringLiteral("—");
    static const std::array<std::pair<double, const char*>, 5> kSteps = {
        {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
    const double mag = std::fabs(value);
    for (const auto& [scale, prefix] : kSteps) {
        if (mag >= scale) {
            return QString::number(value / scale, 'f', 3 - static_cast<int>(std::log10(mag / scale))) +
                   QStringLiteral(" ") + QString::fromLatin1(prefix) + unit;
        }
    }
    if (value == std::floor(value)) return QString::number(value, 'f', 0) + QStringLiteral(" ") + unit;
    return QString::number(value, 'g', 4) + QStringLiteral(" ") + unit;
}

}  // namespace

QString format_bytes(double bytes) { return scaled(bytes, QStringLiteral("B")); }

QString format_time_ns(double ns) {
    if (std::isnan(ns)) return QStringLiteral("—");
    const double mag = std::fabs(ns);
    if (mag >= 1e9) return QString::number(ns / 1e9, 'f', 3) + QStringLiteral(" s");
    if (mag >= 1e6) return QString::number(ns / 1e6, 'f', 3) + QStringLiteral(" ms");
    if (mag >= 1e3) return QString::number(ns / 1e3, 'f', 2) + QStringLiteral(" µs");
    return QString::number(ns, 'f', 1) + QStringLiteral(" ns");
}

QString format_rate(double bytes_per_s) { return scaled(bytes_per_s, QStringLiteral("B/s")); }

QString format_count(double count) { return scaled(count, QString()).trimmed(); }

QString format_percent(double fraction) {
    if (std::isnan(fraction) || std::isinf(fraction)) return QStringLiteral("—");
    return QString::number(fraction * 100.0, 'f', 1) + QStringLiteral(" %");
}

QString format_value(tilescope::Metric m, double value) {
    const auto unit = tilescope::metric_unit(m);
    if (unit == "byte") return format_bytes(value);
    if (unit == "ns") return format_time_ns(value);
    return format_count(value);
}

QString format_exact(double value) {
    if (std::isnan(value)) return QStringLiteral("NaN");
    return QString::number(value, 'g', 17);
}

QString metric_qname(tilescope::Metric m) {
    const auto name = tilescope::metric_name(m);
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

QString ncu_command(const QStringList& metric_names) {
    return QStringLiteral("ncu --metrics ") + metric_names.join(QLatin1Char(',')) +
           QStringLiteral(" <your-app>");
}

QString metric_tooltip(const QStringList& metric_names, const QString& what) {
    QString text = what;
    if (!text.isEmpty()) text += QLatin1Char('\n');
    text += QStringLiteral("metric: ") + metric_names.join(QStringLiteral(" + "));
    text += QStringLiteral("\nmeasure: ") + ncu_command(metric_names);
    return text;
}

}  // namespace tilescope::gui
