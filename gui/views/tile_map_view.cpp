#include "gui/views/tile_map_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QToolTip>
#include <QVBoxLayout>

#include "gui/models/metrics_model.hpp"

namespace tilescope::gui {
namespace {
constexpr double kLeft = 70, kTop = 40, kRight = 16, kBottom = 40;
}

TileMapView::TileMapView(TileMapModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    setMouseTracking(true);
    setMinimumSize(360, 300);
    connect(model_, &QAbstractItemModel::modelReset, this, qOverload<>(&QWidget::update));
}

QRectF TileMapView::cellRect(int row, int col) const {
    const int n = model_->rowCount();
    if (n == 0) return {};
    const double side = std::min(width() - kLeft - kRight, height() - kTop - kBottom);
    const double cell = side / n;
    return QRectF(kLeft + col * cell, kTop + row * cell, cell, cell);
}

bool TileMapView::cellAt(const QPointF& pos, int* row, int* col) const {
    const int n = model_->rowCount();
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            if (cellRect(r, c).contains(pos)) {
                *row = r;
                *col = c;
                return true;
            }
    return false;
}

QString TileMapView::toolTipAt(const QPointF& pos) const {
    int r = 0, c = 0;
    if (!cellAt(pos, &r, &c)) return {};
    return model_->data(model_->index(r, c), Qt::ToolTipRole).toString();
}

void TileMapView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    const int n = model_->rowCount();
    const TileMap& map = model_->tileMap();
    if (n == 0) {
        p.setPen(Qt::darkGray);
        p.drawText(rect(), Qt::AlignCenter, QStringLiteral("Tile map not computed yet"));
        return;
    }
    p.setPen(Qt::black);
    const QString what = model_->quantity() == TileMapModel::Quantity::time ? QStringLiteral("predicted time (gpu__time_duration.sum)")
                                                                           : QStringLiteral("HBM bytes (dram__bytes_read.sum + dram__bytes_write.sum)");
    p.drawText(QRectF(kLeft, 4, width() - kLeft, 18), Qt::AlignLeft,
               QStringLiteral("%1 · model %2 · %3 · green = best, hatched = illegal%4")
                   .arg(what, QString::fromStdString(map.model), QString::fromStdString(map.gpu),
                        model_->quantity() == TileMapModel::Quantity::time
                            ? QStringLiteral(", dotted = within %1% of the best: too close to call").arg(kTieBand * 100.0, 0, 'f', 0)
                            : QString()));
    p.drawText(QRectF(kLeft, 20, width() - kLeft, 18), Qt::AlignLeft, QStringLiteral("tile-n →"));
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            const QRectF cell = cellRect(r, c);
            const TileCell& tc = map.at(static_cast<std::size_t>(r), static_cast<std::size_t>(c));
            p.fillRect(cell, model_->heatColor(tc));
            if (!tc.legal) p.fillRect(cell, QBrush(QColor(0x90, 0x90, 0x90), Qt::BDiagPattern));
            p.setPen(QPen(Qt::white, 2));
            p.drawRect(cell);
            if (model_->quantity() == TileMapModel::Quantity::time && model_->nearBest(tc)) {
                p.setPen(QPen(QColor(0x1b, 0x5e, 0x20), 2, Qt::DotLine));
                p.drawRect(cell.adjusted(5, 5, -5, -5));
            }
            const bool selected = tc.tile_m == map.selected_m && tc.tile_n == map.selected_n;
            if (selected) {
                p.setPen(QPen(Qt::black, 3));
                p.drawRect(cell.adjusted(2, 2, -2, -2));
            }
            p.setPen(tc.legal ? Qt::black : QColor(0x55, 0x55, 0x55));
            p.drawText(cell, Qt::AlignCenter | Qt::TextWordWrap, model_->data(model_->index(r, c)).toString());
        }
        const QRectF row_rect = cellRect(r, 0);
        p.setPen(Qt::black);
        p.drawText(QRectF(0, row_rect.top(), kLeft - 6, row_rect.height()), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("m=%1").arg(map.sizes[static_cast<std::size_t>(r)]));
    }
    for (int c = 0; c < n; ++c) {
        const QRectF cell = cellRect(n - 1, c);
        p.drawText(QRectF(cell.left(), cell.bottom() + 4, cell.width(), 18), Qt::AlignHCenter,
                   QStringLiteral("n=%1").arg(map.sizes[static_cast<std::size_t>(c)]));
    }
    p.save();
    p.translate(12, kTop + 60);
    p.rotate(90);
    p.drawText(QPointF(0, 0), QStringLiteral("tile-m ↓"));
    p.restore();
}

void TileMapView::mousePressEvent(QMouseEvent* e) {
    int r = 0, c = 0;
    if (e->button() != Qt::LeftButton || !cellAt(e->position(), &r, &c)) return;
    const TileCell& tc = model_->tileMap().at(static_cast<std::size_t>(r), static_cast<std::size_t>(c));
    emit tileClicked(tc.tile_m, tc.tile_n);
}

bool TileMapView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString tip = toolTipAt(help->pos());
        if (tip.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(e);
}

// ---------------------------------------------------------------- TileMapPage

TileMapPage::TileMapPage(QWidget* parent) : QWidget(parent) {
    model_ = new TileMapModel(this);
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(QStringLiteral("Show:"), this));
    quantity_ = new QComboBox(this);
    quantity_->addItems({QStringLiteral("predicted time"), QStringLiteral("HBM bytes")});
    top->addWidget(quantity_);
    compute_ = new QPushButton(QStringLiteral("Recompute"), this);
    cancel_ = new QPushButton(QStringLiteral("Cancel"), this);
    export_ = new QPushButton(QStringLiteral("Export CSV…"), this);
    cancel_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    top->addWidget(compute_);
    top->addWidget(cancel_);
    top->addWidget(progress_, 1);
    top->addWidget(export_);
    layout->addLayout(top);
    message_ = new QLabel(QStringLiteral("Click a cell to select that tile in the workload panel."), this);
    message_->setWordWrap(true);
    layout->addWidget(message_);
    view_ = new TileMapView(model_, this);
    layout->addWidget(view_, 1);
    connect(quantity_, &QComboBox::currentIndexChanged, this, [this](int i) {
        model_->setQuantity(i == 0 ? TileMapModel::Quantity::time : TileMapModel::Quantity::hbm_bytes);
    });
    connect(compute_, &QPushButton::clicked, this, &TileMapPage::computeRequested);
    connect(cancel_, &QPushButton::clicked, this, &TileMapPage::cancelRequested);
    connect(export_, &QPushButton::clicked, this, &TileMapPage::exportCsvRequested);
    connect(view_, &TileMapView::tileClicked, this, &TileMapPage::tileClicked);
}

void TileMapPage::setRunning(bool running) {
    cancel_->setEnabled(running);
    if (!running && progress_->maximum() == 0) progress_->setRange(0, 1);  // stop the busy animation
    if (running) {
        progress_->setRange(0, 0);  // busy until the first progress report
        message_->setText(QStringLiteral("Computing the tile map in the background…"));
    }
}

void TileMapPage::setProgress(int done, int total) {
    progress_->setRange(0, total);
    progress_->setValue(done);
    progress_->setFormat(QStringLiteral("%1 / %2 tiles").arg(done).arg(total));
}

void TileMapPage::setMessage(const QString& message) { message_->setText(message); }

}  // namespace tilescope::gui
