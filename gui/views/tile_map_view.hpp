// Tile map: heat map over (tile-m x tile-n) of predicted time or HBM bytes, illegal cells
// hatched with the reason in their tooltip; clicking a legal cell selects that tile.
#pragma once

#include <QWidget>

#include "gui/models/tile_map.hpp"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace tilescope::gui {

class TileMapView : public QWidget {
    Q_OBJECT
public:
    explicit TileMapView(TileMapModel* model, QWidget* parent = nullptr);
    QRectF cellRect(int row, int col) const;
    QString toolTipAt(const QPointF& pos) const;
    QSize sizeHint() const override { return {640, 520}; }

signals:
    void tileClicked(int tile_m, int tile_n);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    bool cellAt(const QPointF& pos, int* row, int* col) const;
    TileMapModel* model_;
};

class TileMapPage : public QWidget {
    Q_OBJECT
public:
    explicit TileMapPage(QWidget* parent = nullptr);
    TileMapModel* model() const { return model_; }
    TileMapView* view() const { return view_; }
    QPushButton* cancelButton() const { return cancel_; }
    QProgressBar* progressBar() const { return progress_; }

    void setRunning(bool running);
    void setProgress(int done, int total);
    void setMessage(const QString& message);

signals:
    void computeRequested();
    void cancelRequested();
    void exportCsvRequested();
    void tileClicked(int tile_m, int tile_n);

private:
    TileMapModel* model_;
    TileMapView* view_;
    QComboBox* quantity_;
    QPushButton* compute_;
    QPushButton* cancel_;
    QPushButton* export_;
    QProgressBar* progress_;
    QLabel* message_;
};

}  // namespace tilescope::gui
