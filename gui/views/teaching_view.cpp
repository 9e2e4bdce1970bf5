#include "gui/views/teaching_view.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

#include "core/analytic.hpp"
#include "core/lower.hpp"
#include "core/metrics.hpp"
#include "gui/models/format.hpp"

namespace tilescope::gui {
namespace {

WorkloadSpec toy_spec(const TeachingConfig& cfg, const char* kernel) {
    WorkloadSpec s;
    s.kernel = kernel;
    s.dtype = "fp16";
    s.batch = 1;
    s.heads = 1;
    s.seq = cfg.n;
    s.head_dim = cfg.d;
    s.causal = false;
    if (std::string(kernel) == "attention-flash2") {
        s.tile_m = cfg.br;
        s.tile_n = cfg.bc;
    }
    return s;
}

QString html_escape(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

}  // namespace

// ---------------------------------------------------------------- MatrixCanvas

MatrixCanvas::MatrixCanvas(QWidget* parent) : QWidget(parent) { setMinimumSize(420, 360); }

void MatrixCanvas::setState(const TeachingRun* run, int step) {
    run_ = run;
    step_ = step;
    update();
}

void MatrixCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    if (!run_ || run_->steps.empty()) return;
    const TeachingConfig& c = run_->config;
    const TeachingStep* s = step_ >= 0 ? &run_->steps[static_cast<std::size_t>(step_)] : nullptr;
    const double top = 30, bottom = 20;
    const double cell_h = (height() - top - bottom) / c.n;
    const double cell_w = std::min(cell_h * 1.0, (width() * 0.45) / (4.0 * c.d));
    const double mat_w = cell_w * c.d;
    const double gap = std::max(14.0, mat_w * 0.25);
    const double s_side = std::min(height() - top - bottom, width() - 4 * (mat_w + gap) - 20);
    const QColor resident(0xf2, 0x8e, 0x2b), done(0xd0, 0xe4, 0xf5), idle(0xee, 0xee, 0xee);

    auto draw_matrix = [&](double x, const QString& name, int tile_rows, int active_tile, bool is_output) {
        p.setPen(Qt::black);
        p.drawText(QRectF(x, 4, mat_w + gap, 22), Qt::AlignLeft | Qt::AlignVCenter, name);
        const int tiles = c.n / tile_rows;
        for (int t = 0; t < tiles; ++t) {
            QColor col = idle;
            if (s && t == active_tile) col = resident;
            else if (s && is_output && t < s->q_tile) col = done;
            const QRectF r(x, top + t * tile_rows * cell_h, mat_w, tile_rows * cell_h);
            p.fillRect(r, col);
            p.setPen(QPen(Qt::white, 2));
            p.drawRect(r);
        }
        p.setPen(QColor(0x66, 0x66, 0x66));
        p.drawRect(QRectF(x, top, mat_w, c.n * cell_h));
    };
    double x = 10;
    draw_matrix(x, QStringLiteral("Q (Q_i in smem)"), c.br, s ? s->q_tile : -1, false);
    x += mat_w + gap;
    draw_matrix(x, QStringLiteral("K (K_j)"), c.bc, s ? s->kv_tile : -1, false);
    x += mat_w + gap;
    draw_matrix(x, QStringLiteral("V (V_j)"), c.bc, s ? s->kv_tile : -1, false);
    x += mat_w + gap;
    draw_matrix(x, QStringLiteral("O (O_i acc.)"), c.br, s ? s->q_tile : -1, true);
    x += mat_w + gap;

    // S = QKᵀ as tiles: only the resident tile exists (in registers); never written to HBM.
    if (s_side > 60) {
        p.setPen(Qt::black);
        p.drawText(QRectF(x, 4, s_side, 22), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("S = QKᵀ tiles (never in HBM)"));
        const double tr = s_side / run_->q_tiles, tc = s_side / run_->kv_tiles;
        for (int i = 0; i < run_->q_tiles; ++i) {
            for (int j = 0; j < run_->kv_tiles; ++j) {
                const int index = i * run_->kv_tiles + j;
                QColor col = idle;
                if (s && index == step_) col = resident;
                else if (s && index < step_) col = done;
                const QRectF r(x + j * tc, top + i * tr, tc, tr);
                p.fillRect(r, col);
                p.setPen(QPen(Qt::white, 2));
                p.drawRect(r);
            }
        }
    }
    p.setPen(QColor(0x44, 0x44, 0x44));
    p.drawText(QRectF(10, height() - bottom, width() - 20, bottom), Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("orange = resident in shared memory / registers now · blue = finished · N=%1, d=%2, Br=%3, Bc=%4")
                   .arg(c.n).arg(c.d).arg(c.br).arg(c.bc));
}

// ---------------------------------------------------------------- TeachingView

TeachingView::TeachingView(QWidget* parent) : QWidget(parent) {
    run_ = run_teaching(TeachingConfig{});
    auto* layout = new QHBoxLayout(this);
    canvas_ = new MatrixCanvas(this);
    layout->addWidget(canvas_, 3);
    auto* side = new QVBoxLayout;
    auto* buttons = new QHBoxLayout;
    reset_ = new QPushButton(QStringLiteral("Reset"), this);
    back_ = new QPushButton(QStringLiteral("◀ Back"), this);
    play_ = new QPushButton(QStringLiteral("▶ Play"), this);
    play_->setCheckable(true);
    step_button_ = new QPushButton(QStringLiteral("Step ▶"), this);
    buttons->addWidget(reset_);
    buttons->addWidget(back_);
    buttons->addWidget(play_);
    buttons->addWidget(step_button_);
    side->addLayout(buttons);
    speed_ = new QSlider(Qt::Horizontal, this);
    speed_->setRange(100, 2000);
    speed_->setValue(700);
    speed_->setToolTip(QStringLiteral("milliseconds per step"));
    side->addWidget(speed_);
    stats_ = new QLabel(this);
    stats_->setTextFormat(Qt::RichText);
    stats_->setWordWrap(true);
    stats_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    side->addWidget(stats_);
    counters_ = new QLabel(this);
    counters_->setTextFormat(Qt::RichText);
    counters_->setWordWrap(true);
    counters_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    side->addWidget(counters_, 1);
    layout->addLayout(side, 2);

    timer_ = new QTimer(this);
    connect(timer_, &QTimer::timeout, this, [this] {
        if (step_ + 1 >= stepCount()) play(false);
        else stepForward();
    });
    connect(speed_, &QSlider::valueChanged, timer_, [this](int ms) { timer_->setInterval(ms); });
    timer_->setInterval(speed_->value());
    connect(play_, &QPushButton::toggled, this, &TeachingView::play);
    connect(step_button_, &QPushButton::clicked, this, &TeachingView::stepForward);
    connect(back_, &QPushButton::clicked, this, &TeachingView::stepBack);
    connect(reset_, &QPushButton::clicked, this, [this] { setStep(-1); });
    refresh();
}

void TeachingView::setHardware(const Hardware& hw) {
    // The core's own counters for the toy shape: naive per launch, and fused as a cross-check
    // of the loop's counters below.
    QString t = QStringLiteral("<b>Core analytic() for the same toy shape on %1</b><table cellspacing=4>"
                               "<tr><th align=left>launch</th><th align=right>HBM read</th><th align=right>HBM write</th>"
                               "<th align=right>smem read+write</th></tr>")
                    .arg(html_escape(hw.name));
    for (const char* kernel : {"attention-naive", "attention-flash2"}) {
        auto w = make_workload(toy_spec(run_.config, kernel));
        if (!w) {
            t += QStringLiteral("<tr><td colspan=4>%1: %2</td></tr>").arg(QString::fromLatin1(kernel), html_escape(w.error().message));
            continue;
        }
        auto launches = tilescope::lower(w.value(), hw);
        if (!launches) {
            t += QStringLiteral("<tr><td colspan=4>%1: %2</td></tr>").arg(QString::fromLatin1(kernel), html_escape(launches.error().message));
            continue;
        }
        const Prediction pr = analytic(w.value(), launches.value(), hw);
        for (const LaunchResult& l : pr.launches) {
            const Metrics& m = l.metrics;
            t += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td></tr>")
                     .arg(html_escape(l.name), format_bytes(m[Metric::dram_bytes_read]), format_bytes(m[Metric::dram_bytes_write]),
                          format_bytes(m[Metric::smem_bytes_read] + m[Metric::smem_bytes_write]));
        }
        if (pr.launches.size() > 1) {
            const Metrics& m = pr.total;
            t += QStringLiteral("<tr><td><b>%1 total</b></td><td align=right><b>%2</b></td><td align=right><b>%3</b></td><td align=right>%4</td></tr>")
                     .arg(QString::fromLatin1(kernel), format_bytes(m[Metric::dram_bytes_read]), format_bytes(m[Metric::dram_bytes_write]),
                          format_bytes(m[Metric::smem_bytes_read] + m[Metric::smem_bytes_write]));
        }
    }
    t += QStringLiteral("</table>");
    core_counters_ = t;
    refresh();
}

void TeachingView::setStep(int step) {
    step_ = std::clamp(step, -1, stepCount() - 1);
    refresh();
}

void TeachingView::stepForward() { setStep(step_ + 1); }
void TeachingView::stepBack() { setStep(step_ - 1); }

void TeachingView::play(bool on) {
    if (on && step_ + 1 >= stepCount()) setStep(-1);
    if (on) timer_->start();
    else timer_->stop();
    if (play_->isChecked() != on) {
        const QSignalBlocker block(play_);
        play_->setChecked(on);
    }
    play_->setText(on ? QStringLiteral("⏸ Pause") : QStringLiteral("▶ Play"));
}

bool TeachingView::playing() const { return timer_->isActive(); }

QString TeachingView::statsText() const {
    const TeachingConfig& c = run_.config;
    QString t;
    if (step_ < 0) {
        t += QStringLiteral("<b>Before the loop.</b> Each thread block owns one Q tile (Br=%1 rows) and walks over the K/V tiles "
                            "(Bc=%2 rows), keeping the running max m and sum l of every row (online softmax).<br>")
                 .arg(c.br).arg(c.bc);
        return t;
    }
    const TeachingStep& s = run_.steps[static_cast<std::size_t>(step_)];
    t += QStringLiteral("<b>Step %1 / %2:</b> block %3 (Q_%3) with K/V tile %4%5<br>")
             .arg(step_ + 1).arg(stepCount()).arg(s.q_tile).arg(s.kv_tile)
             .arg(s.block_done ? QStringLiteral(" — last tile: O_i = o / l written to HBM") : QString());
    t += QStringLiteral("<table cellspacing=4><tr><th>row</th><th align=right>m (running max)</th><th align=right>l (running sum)</th></tr>");
    for (std::size_t r = 0; r < s.m.size(); ++r)
        t += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td></tr>")
                 .arg(s.q_tile * c.br + static_cast<int>(r)).arg(s.m[r], 0, 'f', 6).arg(s.l[r], 0, 'f', 6);
    t += QStringLiteral("</table>");
    t += QStringLiteral("<b>Fused loop so far</b> (counts of this loop, fp16): HBM read %1 · HBM write %2 · smem write %3 · smem read %4<br>")
             .arg(format_bytes(s.hbm_read_bytes), format_bytes(s.hbm_write_bytes), format_bytes(s.smem_write_bytes),
                  format_bytes(s.smem_read_bytes));
    if (step_ == stepCount() - 1) {
        double m_err = 0, l_err = 0;
        for (std::size_t r = 0; r < run_.final_m.size(); ++r) {
            m_err = std::max(m_err, std::fabs(run_.final_m[r] - run_.direct_row_max[r]));
            l_err = std::max(l_err, std::fabs(run_.final_l[r] - run_.direct_row_sum[r]) / run_.direct_row_sum[r]);
        }
        const bool ok = run_.max_abs_error < 1e-12 && m_err < 1e-12 && l_err < 1e-12;
        t += QStringLiteral("<b>Check against the direct softmax(QKᵀ/√d)·V</b> (double precision): max |O_online − O_direct| = %1, "
                            "max |m − rowmax(S)| = %2, max rel |l − rowsum(exp(S − m))| = %3 — <b style='color:%4'>%5</b><br>")
                 .arg(run_.max_abs_error, 0, 'g', 3).arg(m_err, 0, 'g', 3).arg(l_err, 0, 'g', 3)
                 .arg(ok ? QStringLiteral("#1b7f3b") : QStringLiteral("#c62828"), ok ? QStringLiteral("match") : QStringLiteral("MISMATCH"));
    }
    return t;
}

void TeachingView::refresh() {
    canvas_->setState(&run_, step_);
    stats_->setText(statsText());
    counters_->setText(core_counters_);
    back_->setEnabled(step_ >= 0);
    step_button_->setEnabled(step_ + 1 < stepCount());
}

}  // namespace tilescope::gui
