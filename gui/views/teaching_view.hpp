// Teaching mode: step through the fused (flash2) kernel one K/V tile at a time on a small random
// example (models/teaching.hpp): resident Q/K/V/O tiles highlighted, running m and l, byte
// counters per level, play/pause/step, and the naive kernel's counters for the same shape.
#pragma once

#include <QWidget>

#include "core/hardware.hpp"
#include "gui/models/teaching.hpp"

class QLabel;
class QPushButton;
class QSlider;
class QTimer;

namespace tilescope::gui {

class MatrixCanvas : public QWidget {
    Q_OBJECT
public:
    explicit MatrixCanvas(QWidget* parent = nullptr);
    void setState(const TeachingRun* run, int step);
    QSize sizeHint() const override { return {560, 460}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    const TeachingRun* run_ = nullptr;
    int step_ = -1;
};

class TeachingView : public QWidget {
    Q_OBJECT
public:
    explicit TeachingView(QWidget* parent = nullptr);
    // The profile used for the core's counters of the same toy shape (naive and fused).
    void setHardware(const Hardware& hw);

    int step() const { return step_; }
    int stepCount() const { return static_cast<int>(run_.steps.size()); }
    const TeachingRun& run() const { return run_; }
    void setStep(int step);  // -1: before the first tile
    void stepForward();
    void stepBack();
    void play(bool on);
    bool playing() const;
    QString statsText() const;

private:
    void refresh();
    TeachingRun run_;
    int step_ = -1;
    QString core_counters_;
    MatrixCanvas* canvas_;
    QLabel* stats_;
    QLabel* counters_;
    QPushButton* play_;
    QPushButton* step_button_;
    QPushButton* back_;
    QPushButton* reset_;
    QSlider* speed_;
    QTimer* timer_;
};

}  // namespace tilescope::gui
