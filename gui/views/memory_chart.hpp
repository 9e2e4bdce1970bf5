// MemoryChart: HBM, L2, shared memory and the SM's compute units as boxes, the links between
// them labelled with bytes moved, achieved bandwidth and % of peak. With a measurement loaded,
// predicted and measured are shown side by side and the difference is coloured. Every number
// has a tooltip naming its metric and the `ncu --metrics` command that measures it.
#pragma once

#include <QRectF>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

#include "core/prediction.hpp"
#include "gui/models/prediction_service.hpp"

namespace tilescope::gui {

class MemoryChart : public QWidget {
    Q_OBJECT
public:
    enum class Link { hbm_l2, l2_sm, smem_compute };
    explicit MemoryChart(QWidget* parent = nullptr);

    void setPrediction(SnapshotPtr snapshot);
    void setMeasurement(std::optional<Prediction> measurement);
    void setLaunchIndex(int index);  // -1: whole prediction

    // What the chart shows (for tests): bytes on a link, predicted / measured (NaN if none).
    double linkBytes(Link link, bool measured = false) const;
    double timeNs(bool measured = false) const;
    // Predicted reads the L2 request coalescer merged before the L2 (NaN when no launch of the
    // shown prediction reports them: analytic model, or a profile without the coalescer).
    double coalescedBytes() const;
    QString toolTipAt(const QPointF& pos) const;

    QSize sizeHint() const override { return {720, 520}; }
    QSize minimumSizeHint() const override { return {420, 360}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    const Metrics* metrics(bool measured) const;
    struct HitRegion {
        QRectF rect;
        QString tooltip;
    };
    SnapshotPtr snapshot_;
    std::optional<Prediction> measurement_;
    int launch_index_ = -1;
    mutable std::vector<HitRegion> regions_;  // rebuilt on every paint
};

}  // namespace tilescope::gui
