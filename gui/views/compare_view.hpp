// Naive vs fused: bytes per level and time of attention-naive and attention-flash2 for the same
// shape (Qt Charts bar charts), with the IO formulas Θ(Nd + N²) and Θ(N²d²/M) evaluated.
#pragma once

#include <QWidget>

#include <optional>

#include "gui/models/compare.hpp"

class QChart;
class QChartView;
class QLabel;

namespace tilescope::gui {

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);
    void setComparison(const Comparison& comparison);
    void setBusy(const QString& message);
    const std::optional<Comparison>& comparison() const { return comparison_; }
    QString formulasText() const;

private:
    QChartView* bytes_view_;
    QChartView* time_view_;
    QLabel* formulas_;
    QLabel* status_;
    std::optional<Comparison> comparison_;
};

}  // namespace tilescope::gui
