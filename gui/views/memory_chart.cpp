#include "gui/views/memory_chart.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <cmath>
#include <utility>

#include "core/metrics.hpp"
#include "gui/models/format.hpp"

namespace tilescope::gui {
namespace {

QColor diff_color(double diff) {
    const double mag = std::fabs(diff);
    if (mag < 0.10) return {0x1b, 0x7f, 0x3b};
    if (mag < 0.30) return {0xb3, 0x6b, 0x00};
    return {0xc6, 0x28, 0x28};
}

double nan() { return std::nan(""); }

struct LinkInfo {
    QString title;
    QStringList metrics;
    double peak_bytes_per_s = 0;
};

}  // namespace

MemoryChart::MemoryChart(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, Qt::white);
    setPalette(pal);
}

void MemoryChart::setPrediction(SnapshotPtr snapshot) {
    snapshot_ = std::move(snapshot);
    if (!snapshot_ || launch_index_ >= static_cast<int>(snapshot_->prediction.launches.size())) launch_index_ = -1;
    update();
}

void MemoryChart::setMeasurement(std::optional<Prediction> measurement) {
    measurement_ = std::move(measurement);
    update();
}

void MemoryChart::setLaunchIndex(int index) {
    launch_index_ = index;
    if (!snapshot_ || index < -1 || index >= static_cast<int>(snapshot_->prediction.launches.size())) launch_index_ = -1;
    update();
}

const Metrics* MemoryChart::metrics(bool measured) const {
    const Prediction* p = measured ? (measurement_ ? &*measurement_ : nullptr) : (snapshot_ ? &snapshot_->prediction : nullptr);
    if (!p) return nullptr;
    if (launch_index_ < 0) return &p->total;
    if (launch_index_ >= static_cast<int>(p->launches.size())) return nullptr;
    return &p->launches[static_cast<std::size_t>(launch_index_)].metrics;
}

double MemoryChart::linkBytes(Link link, bool measured) const {
    const Metrics* m = metrics(measured);
    if (!m) return nan();
    switch (link) {
    case Link::hbm_l2: return (*m)[Metric::dram_bytes_read] + (*m)[Metric::dram_bytes_write];
    case Link::l2_sm: return (*m)[Metric::lts_t_bytes];
    case Link::smem_compute: return (*m)[Metric::smem_bytes_read] + (*m)[Metric::smem_bytes_write];
    }
    return nan();
}

double MemoryChart::coalescedBytes() const {
    if (!snapshot_) return nan();
    const auto& launches = snapshot_->prediction.launches;
    double sum = 0;
    bool any = false;
    for (std::size_t i = 0; i < launches.size(); ++i) {
        if (launch_index_ >= 0 && static_cast<int>(i) != launch_index_) continue;
        if (const auto it = launches[i].extra.find("l2_coalesced_bytes"); it != launches[i].extra.end()) {
            sum += it->second;
            any = true;
        }
    }
    return any ? sum : nan();
}

double MemoryChart::timeNs(bool measured) const {
    const Metrics* m = metrics(measured);
    return m ? (*m)[Metric::gpu_time_duration] : nan();
}

QString MemoryChart::toolTipAt(const QPointF& pos) const {
    for (auto it = regions_.rbegin(); it != regions_.rend(); ++it)
        if (it->rect.contains(pos)) return it->tooltip;
    return {};
}

bool MemoryChart::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString tip = toolTipAt(help->pos());
        if (tip.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(e);
}

void MemoryChart::paintEvent(QPaintEvent*) {
    regions_.clear();
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), Qt::white);
    if (!snapshot_) {
        p.setPen(Qt::darkGray);
        p.drawText(rect(), Qt::AlignCenter, QStringLiteral("No prediction yet"));
        return;
    }
    const Hardware& hw = snapshot_->hardware;
    const Prediction& pred = snapshot_->prediction;
    const Metrics& pm = *metrics(false);
    const Metrics* mm = metrics(true);
    const double time_ns = pm[Metric::gpu_time_duration];
    const double meas_time_ns = mm ? (*mm)[Metric::gpu_time_duration] : nan();

    const QFont base = font();
    QFont bold = base;
    bold.setBold(true);
    QFont small = base;
    small.setPointSizeF(base.pointSizeF() * 0.9);
    const QFontMetricsF fm(base);
    const double line = fm.height();

    // Header.
    const double margin = 12;
    double y = margin;
    p.setFont(bold);
    p.setPen(Qt::black);
    QString scope = launch_index_ < 0 ? QStringLiteral("all launches")
                                      : QString::fromStdString(pred.launches[static_cast<std::size_t>(launch_index_)].name);
    const QString header = QString::fromStdString(describe(snapshot_->workload)) + QStringLiteral("  ·  ") +
                           QString::fromStdString(hw.name) + QStringLiteral("  ·  model ") +
                           QString::fromStdString(pred.model) + QStringLiteral("  ·  ") + scope;
    p.drawText(QRectF(margin, y, width() - 2 * margin, line), Qt::AlignLeft | Qt::TextSingleLine,
               fm.elidedText(header, Qt::ElideRight, width() - 2 * margin));
    y += line * 1.2;
    p.setFont(base);
    const std::string bound = launch_index_ < 0 ? pred.bound : pred.launches[static_cast<std::size_t>(launch_index_)].bound;
    const QString time_text = QStringLiteral("time %1   bound: %2   ").arg(format_time_ns(time_ns), QString::fromStdString(bound));
    const QRectF time_rect(margin, y, width() - 2 * margin, line);
    p.drawText(time_rect, Qt::AlignLeft, time_text);
    if (mm) {
        const double d = (meas_time_ns - time_ns) / time_ns;
        p.setPen(std::isnan(d) ? QColor(Qt::darkGray) : diff_color(d));
        p.drawText(time_rect.adjusted(fm.horizontalAdvance(time_text), 0, 0, 0), Qt::AlignLeft,
                   QStringLiteral("measured %1 (%2%3)").arg(format_time_ns(meas_time_ns), d >= 0 ? QStringLiteral("+") : QString(), format_percent(d)));
        p.setPen(Qt::black);
    }
    regions_.push_back({time_rect, metric_tooltip({QStringLiteral("gpu__time_duration.sum")}, QStringLiteral("kernel duration"))});
    y += line * 1.6;

    // Boxes, top to bottom.
    const double smem_peak = hw.smem_bandwidth_bytes_per_cycle_per_sm * hw.sm_clock_hz * hw.sm_count;
    const double avail = height() - y - margin;
    const double box_h = std::max(3.2 * line, avail * 0.15);
    const double compute_h = std::max(4.4 * line, avail * 0.2);
    const double gap = std::max(2.0 * line, (avail - 3 * box_h - compute_h) / 3.0);
    const double box_w = std::min(width() * 0.36, 300.0);
    const double box_x = margin;
    struct Box {
        QString title;
        QStringList lines;
        QColor color;
        double h;
        QString tooltip;
    };
    const double tensor_peak = snapshot_->workload.dtype == DType::fp16   ? hw.tensor_fp16_flops_per_s
                               : snapshot_->workload.dtype == DType::bf16 ? hw.tensor_bf16_flops_per_s
                                                                          : hw.tensor_tf32_flops_per_s;
    auto rate_line = [&](const QString& name, Metric m, double peak) {
        const double v = pm[m];
        const double rate = time_ns > 0 ? v / (time_ns * 1e-9) : nan();
        QString text = QStringLiteral("%1 %2 · %3/s · %4").arg(name, format_count(v), format_count(rate), format_percent(rate / peak));
        if (mm && !std::isnan((*mm)[m])) {
            const double d = v != 0 ? ((*mm)[m] - v) / v : nan();
            text += QStringLiteral(" · meas %1 (%2%3)").arg(format_count((*mm)[m]), d >= 0 ? QStringLiteral("+") : QString(), format_percent(d));
        }
        return text;
    };
    const std::vector<Box> boxes = {
        {QStringLiteral("HBM"),
         {QStringLiteral("%1 · peak %2").arg(format_bytes(static_cast<double>(hw.hbm_bytes)), format_rate(hw.hbm_bandwidth_bytes_per_s))},
         QColor(0xdd, 0xe8, 0xf7), box_h,
         QStringLiteral("HBM (device memory): %1, %2 peak, latency %3\nsource: %4")
             .arg(format_bytes(static_cast<double>(hw.hbm_bytes)), format_rate(hw.hbm_bandwidth_bytes_per_s),
                  format_time_ns(hw.hbm_latency_ns),
                  QString::fromStdString(hw.sources.count("hbm_bandwidth_bytes_per_s") ? hw.sources.at("hbm_bandwidth_bytes_per_s") : "")),
        },
        {QStringLiteral("L2 cache"),
         {QStringLiteral("%1 · peak %2").arg(format_bytes(static_cast<double>(hw.l2_bytes)), format_rate(hw.l2_bandwidth_bytes_per_s))},
         QColor(0xe3, 0xf1, 0xe0), box_h,
         QStringLiteral("L2: %1, line %2 B, sector %3 B, %4 peak\nsource: %5")
             .arg(format_bytes(static_cast<double>(hw.l2_bytes))).arg(hw.l2_line_bytes).arg(hw.l2_sector_bytes)
             .arg(format_rate(hw.l2_bandwidth_bytes_per_s),
                  QString::fromStdString(hw.sources.count("l2_bandwidth_bytes_per_s") ? hw.sources.at("l2_bandwidth_bytes_per_s") : "")),
        },
        {QStringLiteral("Shared memory (SRAM)"),
         {QStringLiteral("%1/SM × %2 SMs · peak %3").arg(format_bytes(static_cast<double>(hw.smem_per_sm_bytes))).arg(hw.sm_count).arg(format_rate(smem_peak))},
         QColor(0xfb, 0xee, 0xd5), box_h,
         QStringLiteral("shared memory: up to %1 per SM, %2 per block (opt-in), %3 B/clk/SM")
             .arg(format_bytes(static_cast<double>(hw.smem_per_sm_bytes)), format_bytes(static_cast<double>(hw.smem_per_block_max_bytes)))
             .arg(hw.smem_bandwidth_bytes_per_cycle_per_sm),
        },
        {QStringLiteral("SM compute units"),
         {rate_line(QStringLiteral("tensor"), Metric::flops_tensor, tensor_peak),
          rate_line(QStringLiteral("fp32"), Metric::flops_fp32, hw.fp32_flops_per_s),
          rate_line(QStringLiteral("sfu"), Metric::sfu_ops, hw.sfu_ops_per_s)},
         QColor(0xf3, 0xe0, 0xf0), compute_h,
         QStringLiteral("per-GPU peaks: tensor %1/s (%2), fp32 %3/s, sfu %4/s\nmetrics: flops_tensor, flops_fp32, sfu_ops (tilescope counts; "
                        "ncu: sm__inst_executed_pipe_tensor, sm__sass_thread_inst_executed_op_ffma_pred_on, ...)")
             .arg(format_count(tensor_peak), QString::fromStdString(std::string(to_string(snapshot_->workload.dtype))),
                  format_count(hw.fp32_flops_per_s), format_count(hw.sfu_ops_per_s)),
        },
    };
    std::vector<QRectF> rects;
    for (const Box& b : boxes) {
        // The compute box is wider: its lines carry three rates (and measured values).
        const double w = &b == &boxes.back() ? std::min(width() - 2 * margin, std::max(box_w, width() * 0.62)) : box_w;
        const QRectF r(box_x, y, w, b.h);
        rects.push_back(r);
        p.setPen(QPen(QColor(0x55, 0x55, 0x55), 1.2));
        p.setBrush(b.color);
        p.drawRoundedRect(r, 8, 8);
        p.setPen(Qt::black);
        p.setFont(bold);
        p.drawText(r.adjusted(10, 6, -6, 0), Qt::AlignLeft | Qt::AlignTop, b.title);
        p.setFont(small);
        double ly = r.top() + 6 + line * 1.2;
        for (const QString& l : b.lines) {
            p.drawText(QRectF(r.left() + 10, ly, r.width() - 16, line), Qt::AlignLeft | Qt::AlignTop,
                       QFontMetricsF(small).elidedText(l, Qt::ElideRight, r.width() - 16));
            ly += line;
        }
        regions_.push_back({r, b.tooltip});
        y += b.h + gap;
    }

    // Links between consecutive boxes with their labels to the right.
    const std::vector<std::pair<Link, LinkInfo>> links = {
        {Link::hbm_l2, {QStringLiteral("HBM ⇄ L2"), {QStringLiteral("dram__bytes_read.sum"), QStringLiteral("dram__bytes_write.sum")},
                        hw.hbm_bandwidth_bytes_per_s}},
        {Link::l2_sm, {QStringLiteral("L2 ⇄ SMs"), {QStringLiteral("lts__t_bytes.sum")}, hw.l2_bandwidth_bytes_per_s}},
        {Link::smem_compute,
         {QStringLiteral("shared memory ⇄ registers"), {QStringLiteral("smem__bytes_read.sum"), QStringLiteral("smem__bytes_write.sum")},
          smem_peak}},
    };
    for (std::size_t i = 0; i < links.size(); ++i) {
        const auto& [link, info] = links[i];
        const QRectF& a = rects[i];
        const QRectF& b = rects[i + 1];
        const double x = a.center().x();
        const double bytes = linkBytes(link, false);
        const double bw = time_ns > 0 ? bytes / (time_ns * 1e-9) : nan();
        const double frac = bw / info.peak_bytes_per_s;
        // Arrow thickness grows with the share of peak bandwidth.
        const double thick = 2.0 + 10.0 * std::clamp(std::isnan(frac) ? 0.0 : frac, 0.0, 1.0);
        p.setPen(QPen(QColor(0x33, 0x66, 0x99), thick, Qt::SolidLine, Qt::FlatCap));
        p.drawLine(QPointF(x, a.bottom() + 2), QPointF(x, b.top() - 2));
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x33, 0x66, 0x99));
        QPainterPath head;
        head.moveTo(x, b.top() - 1);
        head.lineTo(x - thick - 4, b.top() - 10);
        head.lineTo(x + thick + 4, b.top() - 10);
        head.closeSubpath();
        p.drawPath(head);

        const double lx = a.right() + 24;
        const double lw = width() - lx - margin;
        const double mid = (a.bottom() + b.top()) / 2;
        double ly = mid - (mm ? 1.5 : 1.0) * line;
        p.setFont(bold);
        p.setPen(Qt::black);
        p.drawText(QRectF(lx, ly, lw, line), Qt::AlignLeft, info.title);
        ly += line;
        p.setFont(base);
        const Metrics& m = pm;
        QString detail;
        if (link == Link::hbm_l2)
            detail = QStringLiteral(" (read %1, write %2)").arg(format_bytes(m[Metric::dram_bytes_read]), format_bytes(m[Metric::dram_bytes_write]));
        else if (link == Link::l2_sm && !std::isnan(coalescedBytes()))
            detail = QStringLiteral(" (+%1 merged before the L2 by its request coalescer)").arg(format_bytes(coalescedBytes()));
        else if (link == Link::smem_compute)
            detail = QStringLiteral(" (read %1, write %2)").arg(format_bytes(m[Metric::smem_bytes_read]), format_bytes(m[Metric::smem_bytes_write]));
        const QString pred_text = QStringLiteral("predicted %1%2 · %3 · %4 of peak")
                                      .arg(format_bytes(bytes), detail, format_rate(bw), format_percent(frac));
        const QRectF pr(lx, ly, lw, line);
        p.drawText(pr, Qt::AlignLeft, QFontMetricsF(base).elidedText(pred_text, Qt::ElideRight, lw));
        QString tip = metric_tooltip(info.metrics, QStringLiteral("%1: %2 bytes (exact %3), achieved %4 = bytes / time, peak %5")
                                                       .arg(info.title, format_bytes(bytes), format_exact(bytes), format_rate(bw),
                                                            format_rate(info.peak_bytes_per_s)));
        regions_.push_back({pr, tip});
        ly += line;
        if (mm) {
            const double mb = linkBytes(link, true);
            const double mbw = meas_time_ns > 0 ? mb / (meas_time_ns * 1e-9) : nan();
            const double d = (mb - bytes) / bytes;
            const QString meas_text = QStringLiteral("measured %1 · %2 · %3 of peak   (%4%5)")
                                          .arg(format_bytes(mb), format_rate(mbw), format_percent(mbw / info.peak_bytes_per_s),
                                               d >= 0 ? QStringLiteral("+") : QString(), format_percent(d));
            p.setPen(std::isnan(d) ? QColor(Qt::darkGray) : diff_color(d));
            const QRectF mr(lx, ly, lw, line);
            p.drawText(mr, Qt::AlignLeft, QFontMetricsF(base).elidedText(meas_text, Qt::ElideRight, lw));
            regions_.push_back({mr, metric_tooltip(info.metrics, QStringLiteral("measured (loaded file), difference = (measured − predicted) / predicted"))});
        }
    }
}

}  // namespace tilescope::gui
