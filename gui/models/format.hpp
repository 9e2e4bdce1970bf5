// Number formatting and metric tooltips shared by every view (SI units: 1 GB = 1e9 B).
#pragma once

#include <QString>
#include <QStringList>

#include "core/metrics.hpp"

namespace tilescope::gui {

QString format_bytes(double bytes);             // "1.07 GB", "512 B", "NaN" -> "—"
QString format_time_ns(double ns);              // "12.3 µs", "4.56 ms"
QString format_rate(double bytes_per_s);        // "1.32 TB/s"
QString format_count(double count);             // "3.44 T"
QString format_percent(double fraction);        // 0.873 -> "87.3 %"
QString format_value(tilescope::Metric m, double value);  // by the metric's unit
QString format_exact(double value);             // full precision, for tooltips and tests

QString metric_qname(tilescope::Metric m);
// The `ncu` command line that measures these metrics.
QString ncu_command(const QStringList& metric_names);
// "dram__bytes_read.sum (byte)\nmeasure: ncu --metrics dram__bytes_read.sum <app>"
QString metric_tooltip(const QStringList& metric_names, const QString& what);

}  // namespace tilescope::gui
