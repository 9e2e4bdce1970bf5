#include "gui/views/compare_view.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>

#include <algorithm>

#include "core/metrics.hpp"
#include "gui/models/format.hpp"

namespace tilescope::gui {
namespace {

QChartView* make_chart_view(QWidget* parent) {
    auto* view = new QChartView(parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(300, 260);
    return view;
}

void fill_chart(QChartView* view, const QString& title, const QStringList& categories, const QList<qreal>& naive,
                const QList<qreal>& fused, const QString& unit) {
    auto* chart = new QChart;
    chart->setTitle(title);
    auto* series = new QBarSeries;
    auto* a = new QBarSet(QStringLiteral("attention-naive"));
    auto* b = new QBarSet(QStringLiteral("attention-flash2"));
    a->append(naive);
    b->append(fused);
    a->setColor(QColor(0xe1, 0x57, 0x59));
    b->setColor(QColor(0x4e, 0x79, 0xa7));
    series->append(a);
    series->append(b);
    series->setLabelsVisible(true);
    series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    a->setLabelColor(Qt::black);
    b->setLabelColor(Qt::black);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(4);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto* y = new QValueAxis;
    qreal top = 0;
    for (qreal v : naive) top = std::max(top, v);
    for (qreal v : fused) top = std::max(top, v);
    y->setRange(0, top > 0 ? top * 1.15 : 1);
    y->setTitleText(unit);
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setAnimationOptions(QChart::NoAnimation);
    QChart* old = view->chart();
    view->setChart(chart);
    delete old;
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    status_ = new QLabel(this);
    status_->setStyleSheet(QStringLiteral("color: #555"));
    layout->addWidget(status_);
    auto* charts = new QHBoxLayout;
    bytes_view_ = make_chart_view(this);
    time_view_ = make_chart_view(this);
    charts->addWidget(bytes_view_, 3);
    charts->addWidget(time_view_, 2);
    layout->addLayout(charts, 1);
    formulas_ = new QLabel(this);
    formulas_->setTextFormat(Qt::RichText);
    formulas_->setWordWrap(true);
    formulas_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(formulas_);
    setBusy(QStringLiteral("Not computed yet"));
}

void CompareView::setBusy(const QString& message) { status_->setText(message); }

void CompareView::setComparison(const Comparison& cmp) {
    comparison_ = cmp;
    const Metrics& n = cmp.naive.prediction.total;
    const Metrics& f = cmp.fused.prediction.total;
    auto hbm = [](const Metrics& m) { return m[Metric::dram_bytes_read] + m[Metric::dram_bytes_write]; };
    auto smem = [](const Metrics& m) { return m[Metric::smem_bytes_read] + m[Metric::smem_bytes_write]; };
    fill_chart(bytes_view_, QStringLiteral("Bytes moved per level (GB)"),
               {QStringLiteral("HBM"), QStringLiteral("L2"), QStringLiteral("shared memory")},
               {hbm(n) / 1e9, n[Metric::lts_t_bytes] / 1e9, smem(n) / 1e9}, {hbm(f) / 1e9, f[Metric::lts_t_bytes] / 1e9, smem(f) / 1e9},
               QStringLiteral("GB"));
    fill_chart(time_view_, QStringLiteral("Predicted time (µs)"), {QStringLiteral("time")},
               {n[Metric::gpu_time_duration] / 1e3}, {f[Metric::gpu_time_duration] / 1e3}, QStringLiteral("µs"));
    status_->setText(QStringLiteral("%1 vs %2 · model %3 · %4%5")
                         .arg(QString::fromStdString(describe(cmp.naive.workload)), QString::fromStdString(describe(cmp.fused.workload)),
                              QString::fromStdString(cmp.fused.prediction.model), QString::fromStdString(cmp.fused.hardware.name),
                              cmp.note.empty() ? QString() : QStringLiteral(" · ") + QString::fromStdString(cmp.note)));
    formulas_->setText(formulasText());
}

QString CompareView::formulasText() const {
    if (!comparison_) return {};
    const Comparison& c = *comparison_;
    const IoFormulas& io = c.io;
    const Metrics& n = c.naive.prediction.total;
    const Metrics& f = c.fused.prediction.total;
    const double naive_hbm = n[Metric::dram_bytes_read] + n[Metric::dram_bytes_write];
    const double fused_hbm = f[Metric::dram_bytes_read] + f[Metric::dram_bytes_write];
    const double b = io.dtype_bytes;
    QString t;
    t += QStringLiteral("<b>IO complexity (HBM accesses) for N=%1, d=%2, B·H=%3, M=%4 elements of SRAM per SM</b><br>")
             .arg(io.n).arg(io.d).arg(io.heads_total).arg(format_count(io.sram_elements));
    t += QStringLiteral("naive Θ(Nd + N²): B·H·(N·d + N²) = %1 elements = %2 &nbsp;·&nbsp; predicted HBM bytes %3<br>")
             .arg(format_count(io.naive_elements), format_bytes(io.naive_elements * b), format_bytes(naive_hbm));
    t += QStringLiteral("fused Θ(N²d²/M): B·H·N²·d²/M = %1 elements = %2 &nbsp;·&nbsp; with Br=%3: B·H·(2Nd + 2Nd·⌈N/Br⌉) = %4 "
                        "&nbsp;·&nbsp; predicted HBM bytes %5<br>")
             .arg(format_count(io.fused_elements), format_bytes(io.fused_elements * b)).arg(io.block_rows)
             .arg(format_bytes(io.fused_tile_elements * b), format_bytes(fused_hbm));
    if (c.fused.prediction.model == "sim")
        t += QStringLiteral("<i>The formulas count every access as HBM traffic (no cache); the simulator's L2 serves part of the "
                            "re-reads, so its HBM bytes can be lower.</i><br>");
    t += QStringLiteral("<b>naive / fused: HBM bytes %1×, time %2×</b>")
             .arg(fused_hbm > 0 ? naive_hbm / fused_hbm : 0.0, 0, 'f', 2)
             .arg(f[Metric::gpu_time_duration] > 0 ? n[Metric::gpu_time_duration] / f[Metric::gpu_time_duration] : 0.0, 0, 'f', 2);
    return t;
}

}  // namespace tilescope::gui
