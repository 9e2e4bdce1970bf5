// WorkloadPanel: kernel family, shape, dtype, GPU profile, model and tile sizes. Emits
// requestChanged() on every edit; the window re-predicts in a worker.
#pragma once

#include <QWidget>

#include "gui/models/prediction_service.hpp"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QSpinBox;
class QStackedWidget;

namespace tilescope::gui {

class WorkloadPanel : public QWidget {
    Q_OBJECT
public:
    explicit WorkloadPanel(QWidget* parent = nullptr);

    PredictRequest request() const;
    // Sets every widget from a request (missing optional fields become "auto"); emits once.
    void setRequest(const PredictRequest& request);
    // Selects tile-m x tile-n (from the tile map); emits requestChanged().
    void setTile(int tile_m, int tile_n);
    // Adds a profile file to the GPU list and selects it.
    void addProfilePath(const QString& path);
    void setModel(const QString& model);
    // A bundled profile name, or else a path to a JSON file (added to the list).
    void setProfile(const QString& name_or_path);

    // Widgets exposed for tests and for the window's wiring.
    QComboBox* kernelBox() const { return kernel_; }
    QComboBox* profileBox() const { return profile_; }
    QComboBox* modelBox() const { return model_; }
    QSpinBox* tileMBox() const { return tile_m_; }
    QSpinBox* tileNBox() const { return tile_n_; }
    QSpinBox* stagesBox() const { return stages_; }
    QSpinBox* warpsBox() const { return warps_; }
    QSpinBox* seqBox() const { return seq_; }
    QCheckBox* l2Box() const { return l2_; }

signals:
    void requestChanged();
    void openProfileRequested();  // the "Open profile file…" entry was chosen

private:
    void updateFamilyPage();
    void emitChanged();
    QSpinBox* sizeBox(qint64 max, int value);
    // 0 shows "auto"; the arrows double and halve (tile sizes, warps) or, with powers_of_two
    // false, step by one (pipeline stages: GEMM's default is 3).
    QSpinBox* tileBox(int max, const QString& tooltip, bool powers_of_two = true);

    QComboBox* kernel_ = nullptr;
    QComboBox* dtype_ = nullptr;
    QComboBox* profile_ = nullptr;
    QComboBox* model_ = nullptr;
    QCheckBox* l2_ = nullptr;
    QStackedWidget* shape_pages_ = nullptr;
    // attention
    QSpinBox* batch_ = nullptr;
    QSpinBox* heads_ = nullptr;
    QSpinBox* seq_ = nullptr;
    QComboBox* head_dim_ = nullptr;
    QCheckBox* causal_ = nullptr;
    QComboBox* attn_variant_ = nullptr;  // naive attention's softmax launch
    // gemm
    QSpinBox* gemm_m_ = nullptr;
    QSpinBox* gemm_n_ = nullptr;
    QSpinBox* gemm_k_ = nullptr;
    QComboBox* raster_ = nullptr;
    // softmax
    QSpinBox* rows_ = nullptr;
    QSpinBox* cols_ = nullptr;
    QComboBox* variant_ = nullptr;
    // tiles (0 = auto: the family's default)
    QSpinBox* tile_m_ = nullptr;
    QSpinBox* tile_n_ = nullptr;
    QSpinBox* tile_k_ = nullptr;
    QSpinBox* stages_ = nullptr;
    QSpinBox* warps_ = nullptr;
    int last_profile_index_ = 0;
    bool updating_ = false;
};

}  // namespace tilescope::gui
