#include "gui/views/block_schedule_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cmath>

#include "gui/models/format.hpp"

namespace tilescope::gui {
namespace {

const std::vector<BlockSpan> kNoSpans;
constexpr double kLeft = 60, kRight = 10, kTop = 22, kBottom = 30;

double nice_step(double range, int target_ticks) {
    const double raw = range / std::max(target_ticks, 1);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag) return m * mag;
    return 10 * mag;
}

}  // namespace

BlockScheduleView::BlockScheduleView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, Qt::white);
    setPalette(pal);
}

QColor BlockScheduleView::waveColor(long long wave) {
    static const std::array<QColor, 8> kColors = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f),
                                                  QColor(0xb0, 0x7a, 0xa1), QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48),
                                                  QColor(0x9c, 0x75, 0x5f), QColor(0xff, 0x9d, 0xa7)};
    if (wave < 0) return Qt::lightGray;
    return kColors[static_cast<std::size_t>(wave % static_cast<long long>(kColors.size()))];
}

const std::vector<BlockSpan>& BlockScheduleView::spans() const {
    if (!snapshot_ || launch_index_ < 0 || launch_index_ >= static_cast<int>(snapshot_->prediction.launches.size())) return kNoSpans;
    return snapshot_->prediction.launches[static_cast<std::size_t>(launch_index_)].timeline;
}

void BlockScheduleView::setLaunch(SnapshotPtr snapshot, int launch_index) {
    snapshot_ = std::move(snapshot);
    launch_index_ = launch_index;
    const auto& s = spans();
    extent_ = timeline_extent(s);
    if (snapshot_) extent_.sm_count = std::max(extent_.sm_count, snapshot_->hardware.sm_count);
    by_sm_.assign(static_cast<std::size_t>(std::max(extent_.sm_count, 0)), {});
    tail_wave_ = extent_.waves - 1;
    tail_start_ns_ = extent_.end_ns;
    tail_blocks_ = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i].sm >= 0 && s[i].sm < extent_.sm_count) by_sm_[static_cast<std::size_t>(s[i].sm)].push_back(i);
        if (s[i].wave == tail_wave_) {
            tail_start_ns_ = std::min(tail_start_ns_, s[i].start_ns);
            ++tail_blocks_;
        }
    }
    for (auto& v : by_sm_)
        std::sort(v.begin(), v.end(), [&s](std::size_t a, std::size_t b) { return s[a].start_ns < s[b].start_ns; });
    resetZoom();
}

void BlockScheduleView::resetZoom() {
    t0_ = extent_.start_ns;
    t1_ = extent_.end_ns > extent_.start_ns ? extent_.end_ns : extent_.start_ns + 1;
    update();
}

QRectF BlockScheduleView::plotRect() const {
    return QRectF(kLeft, kTop, std::max(10.0, width() - kLeft - kRight), std::max(10.0, height() - kTop - kBottom));
}

double BlockScheduleView::xOf(double t) const {
    const QRectF r = plotRect();
    return r.left() + (t - t0_) / (t1_ - t0_) * r.width();
}

double BlockScheduleView::tOf(double x) const {
    const QRectF r = plotRect();
    return t0_ + (x - r.left()) / r.width() * (t1_ - t0_);
}

int BlockScheduleView::rows() const { return std::max(extent_.sm_count, 1); }

void BlockScheduleView::zoomBy(double factor, double at_x) {
    if (factor <= 0 || spans().empty()) return;
    const double full = extent_.end_ns - extent_.start_ns;
    if (!(full > 1e-3)) return;
    const double t_at = tOf(at_x);
    double width_ns = (t1_ - t0_) / factor;
    width_ns = std::clamp(width_ns, std::max(full * 1e-6, 1e-3), full);
    const double frac = (t_at - t0_) / (t1_ - t0_);
    t0_ = t_at - frac * width_ns;
    t1_ = t0_ + width_ns;
    panBy(0);  // clamp
}

void BlockScheduleView::panBy(double dx) {
    const double dt = dx / plotRect().width() * (t1_ - t0_);
    const double w = t1_ - t0_;
    t0_ = std::clamp(t0_ - dt, extent_.start_ns, std::max(extent_.start_ns, extent_.end_ns - w));
    t1_ = t0_ + w;
    update();
}

bool BlockScheduleView::chooseAggregated() const {
    const auto& s = spans();
    std::size_t visible = 0;
    double dur = 0;
    for (const BlockSpan& b : s) {
        if (b.end_ns < t0_ || b.start_ns > t1_) continue;
        ++visible;
        dur += b.end_ns - b.start_ns;
    }
    if (visible == 0) return false;
    const double mean_px = dur / static_cast<double>(visible) / (t1_ - t0_) * plotRect().width();
    return visible > 30000 || mean_px < 1.5;
}

void BlockScheduleView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    const auto& s = spans();
    if (s.empty()) {
        p.setPen(Qt::darkGray);
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   snapshot_ && snapshot_->prediction.model != "sim"
                       ? QStringLiteral("The %1 model has no block timeline: choose model \"sim\" in the workload panel.")
                             .arg(QString::fromStdString(snapshot_->prediction.model))
                       : QStringLiteral("No block timeline"));
        return;
    }
    const QRectF r = plotRect();
    const int n_rows = rows();
    const double row_h = r.height() / n_rows;
    aggregated_ = chooseAggregated();

    p.save();
    p.setClipRect(r);
    if (!aggregated_) {
        const int slot_count = std::max(extent_.slot_count, 1);
        const double slot_h = row_h / slot_count;
        for (const BlockSpan& b : s) {
            if (b.end_ns < t0_ || b.start_ns > t1_) continue;
            const double x0 = xOf(b.start_ns), x1 = xOf(b.end_ns);
            const QRectF bar(x0, r.top() + b.sm * row_h + b.slot * slot_h, std::max(1.0, x1 - x0), std::max(1.0, slot_h));
            p.fillRect(bar, waveColor(b.wave));
            if (bar.width() > 4 && bar.height() > 3) {
                p.setPen(QPen(Qt::white, 0));
                p.drawRect(bar);
            }
        }
    } else {
        const int cols = std::max(1, static_cast<int>(r.width()));
        const ScheduleBins bins = bin_timeline(s, n_rows, std::max(extent_.slot_count, 1), t0_, t1_, cols);
        for (int sm = 0; sm < n_rows; ++sm) {
            for (int c = 0; c < cols; ++c) {
                const float busy = bins.busyAt(sm, c);
                if (busy <= 0) continue;
                QColor col = waveColor(static_cast<long long>(std::lround(bins.waveAt(sm, c))));
                col.setAlphaF(0.25f + 0.75f * busy);
                p.fillRect(QRectF(r.left() + c, r.top() + sm * row_h, 1.0, std::max(1.0, row_h)), col);
            }
        }
    }
    // Tail wave marker.
    if (tail_wave_ > 0 && tail_start_ns_ >= t0_ && tail_start_ns_ <= t1_) {
        const double x = xOf(tail_start_ns_);
        p.setPen(QPen(QColor(0xc6, 0x28, 0x28), 1.5, Qt::DashLine));
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
    }
    p.restore();

    // Axes.
    p.setPen(QColor(0x44, 0x44, 0x44));
    p.drawRect(r);
    const QFontMetricsF fm(font());
    const int label_every = std::max(1, static_cast<int>(std::ceil(fm.height() / row_h)));
    const int nice_every = label_every <= 1 ? 1 : label_every <= 2 ? 2 : label_every <= 5 ? 5 : label_every <= 10 ? 10 : label_every <= 20 ? 20 : 50;
    for (int sm = 0; sm < n_rows; sm += nice_every) {
        const double y = r.top() + (sm + 0.5) * row_h;
        p.drawText(QRectF(0, y - fm.height() / 2, kLeft - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("SM %1").arg(sm));
    }
    const double step = nice_step(t1_ - t0_, std::max(2, static_cast<int>(r.width() / 110)));
    for (double t = std::ceil(t0_ / step) * step; t <= t1_; t += step) {
        const double x = xOf(t);
        p.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + 4));
        p.drawText(QRectF(x - 50, r.bottom() + 5, 100, fm.height()), Qt::AlignHCenter | Qt::AlignTop, format_time_ns(t));
    }
    QString title = QStringLiteral("%1 blocks on %2 SMs · %3 wave(s)").arg(s.size()).arg(extent_.sm_count).arg(extent_.waves);
    if (tail_wave_ > 0) title += QStringLiteral(" · tail wave %1: %2 blocks (red dashed line)").arg(tail_wave_).arg(tail_blocks_);
    title += aggregated_ ? QStringLiteral(" · zoomed out: per-pixel occupancy") : QStringLiteral(" · one bar per block");
    p.drawText(QRectF(kLeft, 2, width() - kLeft - kRight, kTop - 4), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(title, Qt::ElideRight, width() - kLeft - kRight));
}

QString BlockScheduleView::toolTipAt(const QPointF& pos) const {
    const auto& s = spans();
    const QRectF r = plotRect();
    if (s.empty() || !r.contains(pos)) return {};
    const double row_h = r.height() / rows();
    const int sm = std::clamp(static_cast<int>((pos.y() - r.top()) / row_h), 0, rows() - 1);
    const int slot_count = std::max(extent_.slot_count, 1);
    const int slot = std::clamp(static_cast<int>((pos.y() - r.top() - sm * row_h) / (row_h / slot_count)), 0, slot_count - 1);
    const double t = tOf(pos.x());
    const double tol = (t1_ - t0_) / r.width() * 2;  // 2 px
    const BlockSpan* best = nullptr;
    if (static_cast<std::size_t>(sm) < by_sm_.size()) {
        for (std::size_t i : by_sm_[static_cast<std::size_t>(sm)]) {
            const BlockSpan& b = s[i];
            if (b.start_ns - tol > t) break;
            if (b.end_ns + tol < t) continue;
            if (!best || b.slot == slot) best = &b;
            if (b.slot == slot) break;
        }
    }
    if (!best) return QStringLiteral("SM %1 · %2 · idle").arg(sm).arg(format_time_ns(t));
    return QStringLiteral("block %1 · SM %2 slot %3 · wave %4%5\n%6 → %7 (%8)\nHBM %9 · L2 %10 · shared memory %11")
        .arg(best->block).arg(best->sm).arg(best->slot).arg(best->wave)
        .arg(best->wave == tail_wave_ && tail_wave_ > 0 ? QStringLiteral(" (tail)") : QString())
        .arg(format_time_ns(best->start_ns), format_time_ns(best->end_ns), format_time_ns(best->end_ns - best->start_ns),
             format_bytes(best->hbm_bytes), format_bytes(best->l2_bytes), format_bytes(best->smem_bytes));
}

bool BlockScheduleView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString tip = toolTipAt(help->pos());
        if (tip.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(e);
}

void BlockScheduleView::wheelEvent(QWheelEvent* e) {
    const double steps = e->angleDelta().y() / 120.0;
    zoomBy(std::pow(1.25, steps), e->position().x());
    e->accept();
}

void BlockScheduleView::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::LeftButton) {
        dragging_ = true;
        drag_x_ = e->position().x();
        setCursor(Qt::ClosedHandCursor);
    }
}

void BlockScheduleView::mouseMoveEvent(QMouseEvent* e) {
    if (!dragging_) return;
    panBy(e->position().x() - drag_x_);
    drag_x_ = e->position().x();
}

void BlockScheduleView::mouseReleaseEvent(QMouseEvent*) {
    dragging_ = false;
    unsetCursor();
}

void BlockScheduleView::mouseDoubleClickEvent(QMouseEvent*) { resetZoom(); }

// ---------------------------------------------------------------- BlockSchedulePage

BlockSchedulePage::BlockSchedulePage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(QStringLiteral("Launch:"), this));
    launch_ = new QComboBox(this);
    launch_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    top->addWidget(launch_);
    info_ = new QLabel(QStringLiteral("wheel: zoom · drag: pan · double-click: reset · colour = wave"), this);
    info_->setStyleSheet(QStringLiteral("color: #555"));
    top->addWidget(info_, 1);
    layout->addLayout(top);
    view_ = new BlockScheduleView(this);
    view_->setMinimumSize(400, 260);
    layout->addWidget(view_, 1);
    connect(launch_, &QComboBox::currentIndexChanged, this, &BlockSchedulePage::showLaunch);
}

void BlockSchedulePage::setPrediction(SnapshotPtr snapshot) {
    const int previous = launch_->currentIndex();
    snapshot_ = std::move(snapshot);
    {
        const QSignalBlocker block(launch_);
        launch_->clear();
        if (snapshot_)
            for (const LaunchResult& l : snapshot_->prediction.launches)
                launch_->addItem(QStringLiteral("%1 (%2 blocks)").arg(QString::fromStdString(l.name)).arg(l.timeline.size()));
        if (previous >= 0 && previous < launch_->count()) launch_->setCurrentIndex(previous);
    }
    showLaunch();
}

void BlockSchedulePage::showLaunch() { view_->setLaunch(snapshot_, std::max(0, launch_->currentIndex())); }

}  // namespace tilescope::gui
