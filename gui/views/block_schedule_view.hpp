// Block schedule: SMs on the vertical axis, time on the horizontal, one bar per thread block
// coloured by wave (the tail wave marked). Wheel zooms around the cursor, drag pans,
// double-click resets. When zoomed out (bars narrower than ~1.5 px or > 30,000 visible) it
// draws per-pixel-column occupancy per SM instead (schedule_bins.hpp), so 10,000+ blocks stay
// readable and fast.
#pragma once

#include <QWidget>

#include <vector>

#include "gui/models/prediction_service.hpp"
#include "gui/models/schedule_bins.hpp"

class QComboBox;
class QLabel;

namespace tilescope::gui {

class BlockScheduleView : public QWidget {
    Q_OBJECT
public:
    explicit BlockScheduleView(QWidget* parent = nullptr);

    void setLaunch(SnapshotPtr snapshot, int launch_index);
    void resetZoom();
    void zoomBy(double factor, double at_x);  // factor > 1 zooms in, at_x in widget pixels
    void panBy(double dx_pixels);

    bool aggregated() const { return aggregated_; }
    std::size_t spanCount() const { return spans().size(); }
    double visibleStartNs() const { return t0_; }
    double visibleEndNs() const { return t1_; }
    QString toolTipAt(const QPointF& pos) const;

    static QColor waveColor(long long wave);

    QSize sizeHint() const override { return {900, 520}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    const std::vector<BlockSpan>& spans() const;
    QRectF plotRect() const;
    double xOf(double t_ns) const;
    double tOf(double x) const;
    int rows() const;
    bool chooseAggregated() const;

    SnapshotPtr snapshot_;
    int launch_index_ = 0;
    TimelineExtent extent_;
    std::vector<std::vector<std::size_t>> by_sm_;  // span indices per SM, by start time
    double t0_ = 0, t1_ = 1;
    bool aggregated_ = false;
    bool dragging_ = false;
    double drag_x_ = 0;
    long long tail_wave_ = -1;
    double tail_start_ns_ = 0;
    long long tail_blocks_ = 0;
};

// The schedule page: launch selector, legend and the canvas.
class BlockSchedulePage : public QWidget {
    Q_OBJECT
public:
    explicit BlockSchedulePage(QWidget* parent = nullptr);
    void setPrediction(SnapshotPtr snapshot);
    BlockScheduleView* view() const { return view_; }
    QComboBox* launchBox() const { return launch_; }

private:
    void showLaunch();
    SnapshotPtr snapshot_;
    QComboBox* launch_ = nullptr;
    QLabel* info_ = nullptr;
    BlockScheduleView* view_ = nullptr;
};

}  // namespace tilescope::gui
