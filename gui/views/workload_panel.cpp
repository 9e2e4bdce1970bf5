#include "gui/views/workload_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <limits>

namespace tilescope::gui {
namespace {

const char* const kOpenProfileText = "Open profile file…";

// Spin box whose arrows double / halve (tile sizes are powers of two); any value can be typed,
// and an illegal one is reported by the core's validation in the window's banner.
class PowerOfTwoSpinBox : public QSpinBox {
public:
    using QSpinBox::QSpinBox;
    void stepBy(int steps) override {
        int v = value();
        for (int i = 0; i < steps; ++i) v = v <= 0 ? 1 : v * 2;
        for (int i = 0; i > steps; --i) v = v <= 1 ? 0 : v / 2;
        setValue(v);
    }
};

QString to_qstring(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

}  // namespace

QSpinBox* WorkloadPanel::sizeBox(qint64 max, int value) {
    auto* box = new QSpinBox(this);
    box->setRange(1, static_cast<int>(std::min<qint64>(max, std::numeric_limits<int>::max())));
    box->setValue(value);
    box->setKeyboardTracking(false);
    box->setGroupSeparatorShown(true);
    connect(box, &QSpinBox::valueChanged, this, &WorkloadPanel::emitChanged);
    return box;
}

QSpinBox* WorkloadPanel::tileBox(int max, const QString& tooltip, bool powers_of_two) {
    QSpinBox* box = powers_of_two ? new PowerOfTwoSpinBox(this) : new QSpinBox(this);
    box->setRange(0, max);
    box->setSpecialValueText(QStringLiteral("auto"));
    box->setValue(0);
    box->setKeyboardTracking(false);
    box->setToolTip(tooltip + QStringLiteral("\n\"auto\" uses the family's default."));
    connect(box, &QSpinBox::valueChanged, this, &WorkloadPanel::emitChanged);
    return box;
}

WorkloadPanel::WorkloadPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);

    auto* kernel_group = new QGroupBox(QStringLiteral("Kernel"), this);
    auto* kf = new QFormLayout(kernel_group);
    kernel_ = new QComboBox(this);
    for (auto f : {KernelFamily::attention_naive, KernelFamily::attention_flash1, KernelFamily::attention_flash2,
                   KernelFamily::gemm, KernelFamily::softmax})
        kernel_->addItem(to_qstring(to_string(f)));
    kernel_->setCurrentText(QStringLiteral("attention-flash2"));
    dtype_ = new QComboBox(this);
    for (auto t : {DType::fp16, DType::bf16, DType::fp32}) dtype_->addItem(to_qstring(to_string(t)));
    profile_ = new QComboBox(this);
    profile_->setToolTip(QStringLiteral("GPU profile: bundled (profiles/), calibrated (profiles/calibrated/) or a file"));
    for (const std::string& name : list_bundled_profiles()) profile_->addItem(QString::fromStdString(name));
    profile_->addItem(QString::fromUtf8(kOpenProfileText));
    if (int i = profile_->findText(QStringLiteral("a100-40gb")); i >= 0) profile_->setCurrentIndex(i);
    last_profile_index_ = profile_->currentIndex();
    model_ = new QComboBox(this);
    for (const std::string& m : available_models()) model_->addItem(QString::fromStdString(m));
    model_->setToolTip(simulator_available()
                           ? QStringLiteral("sim: cycle-approximate simulator (L2, waves, timeline)\nanalytic: closed form, no caches")
                           : QStringLiteral("analytic: closed form, no caches (this build has no simulator)"));
    kf->addRow(QStringLiteral("Family"), kernel_);
    kf->addRow(QStringLiteral("dtype"), dtype_);
    kf->addRow(QStringLiteral("GPU"), profile_);
    kf->addRow(QStringLiteral("Model"), model_);
    l2_ = new QCheckBox(QStringLiteral("L2 cache (sim)"), this);
    l2_->setChecked(true);
    l2_->setToolTip(QStringLiteral("Simulator only. Off: every global load reaches HBM (then the simulator's bytes equal the analytic model's)."));
    connect(l2_, &QCheckBox::toggled, this, &WorkloadPanel::emitChanged);
    kf->addRow(QString(), l2_);
    layout->addWidget(kernel_group);

    auto* shape_group = new QGroupBox(QStringLiteral("Shape"), this);
    auto* sl = new QVBoxLayout(shape_group);
    shape_pages_ = new QStackedWidget(this);
    {
        auto* page = new QWidget(this);
        auto* f = new QFormLayout(page);
        f->setContentsMargins(0, 0, 0, 0);
        batch_ = sizeBox(1 << 16, 4);
        heads_ = sizeBox(1 << 12, 32);
        seq_ = sizeBox(1 << 20, 4096);
        head_dim_ = new QComboBox(this);
        for (int d : {16, 32, 64, 128, 256}) head_dim_->addItem(QString::number(d));
        head_dim_->setCurrentText(QStringLiteral("64"));
        connect(head_dim_, &QComboBox::currentIndexChanged, this, &WorkloadPanel::emitChanged);
        causal_ = new QCheckBox(QStringLiteral("causal mask"), this);
        connect(causal_, &QCheckBox::toggled, this, &WorkloadPanel::emitChanged);
        f->addRow(QStringLiteral("batch"), batch_);
        f->addRow(QStringLiteral("heads"), heads_);
        f->addRow(QStringLiteral("seq (N)"), seq_);
        f->addRow(QStringLiteral("head-dim (d)"), head_dim_);
        f->addRow(QString(), causal_);
        attn_variant_ = new QComboBox(this);
        attn_variant_->addItems({QStringLiteral("safe"), QStringLiteral("online")});
        attn_variant_->setToolTip(QStringLiteral("attention-naive only: the softmax launch (safe = 3 passes over S, online = 2)"));
        connect(attn_variant_, &QComboBox::currentIndexChanged, this, &WorkloadPanel::emitChanged);
        f->addRow(QStringLiteral("softmax"), attn_variant_);
        shape_pages_->addWidget(page);
    }
    {
        auto* page = new QWidget(this);
        auto* f = new QFormLayout(page);
        f->setContentsMargins(0, 0, 0, 0);
        gemm_m_ = sizeBox(1 << 20, 4096);
        gemm_n_ = sizeBox(1 << 20, 4096);
        gemm_k_ = sizeBox(1 << 20, 4096);
        raster_ = new QComboBox(this);
        raster_->addItems({QStringLiteral("row"), QStringLiteral("column")});
        connect(raster_, &QComboBox::currentIndexChanged, this, &WorkloadPanel::emitChanged);
        f->addRow(QStringLiteral("m"), gemm_m_);
        f->addRow(QStringLiteral("n"), gemm_n_);
        f->addRow(QStringLiteral("k"), gemm_k_);
        f->addRow(QStringLiteral("raster"), raster_);
        shape_pages_->addWidget(page);
    }
    {
        auto* page = new QWidget(this);
        auto* f = new QFormLayout(page);
        f->setContentsMargins(0, 0, 0, 0);
        rows_ = sizeBox(1 << 24, 16384);
        cols_ = sizeBox(1 << 20, 4096);
        variant_ = new QComboBox(this);
        variant_->addItems({QStringLiteral("safe"), QStringLiteral("online")});
        connect(variant_, &QComboBox::currentIndexChanged, this, &WorkloadPanel::emitChanged);
        f->addRow(QStringLiteral("rows"), rows_);
        f->addRow(QStringLiteral("cols"), cols_);
        f->addRow(QStringLiteral("variant"), variant_);
        shape_pages_->addWidget(page);
    }
    sl->addWidget(shape_pages_);
    layout->addWidget(shape_group);

    auto* tile_group = new QGroupBox(QStringLiteral("Tile"), this);
    auto* tf = new QFormLayout(tile_group);
    tile_m_ = tileBox(1024, QStringLiteral("attention: Br, query rows per tile\ngemm: output tile rows\nsoftmax: rows per block"));
    tile_n_ = tileBox(1024, QStringLiteral("attention: Bc, key/value rows per tile\ngemm: output tile columns\nsoftmax: columns per step"));
    tile_k_ = tileBox(1024, QStringLiteral("gemm and naive attention's GEMMs: depth of one K step"));
    stages_ = tileBox(8, QStringLiteral("shared-memory pipeline depth (1 = loads do not overlap compute)"), false);
    warps_ = tileBox(32, QStringLiteral("warps per block"));
    tf->addRow(QStringLiteral("tile-m"), tile_m_);
    tf->addRow(QStringLiteral("tile-n"), tile_n_);
    tf->addRow(QStringLiteral("tile-k"), tile_k_);
    tf->addRow(QStringLiteral("stages"), stages_);
    tf->addRow(QStringLiteral("warps"), warps_);
    layout->addWidget(tile_group);
    layout->addStretch(1);

    connect(kernel_, &QComboBox::currentIndexChanged, this, [this] {
        updateFamilyPage();
        emitChanged();
    });
    connect(dtype_, &QComboBox::currentIndexChanged, this, &WorkloadPanel::emitChanged);
    connect(model_, &QComboBox::currentIndexChanged, this, [this] {
        l2_->setEnabled(model_->currentText() == QStringLiteral("sim"));
        emitChanged();
    });
    l2_->setEnabled(model_->currentText() == QStringLiteral("sim"));
    connect(profile_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (profile_->itemText(index) == QString::fromUtf8(kOpenProfileText) && profile_->itemData(index).isNull()) {
            {
                const QSignalBlocker block(profile_);
                profile_->setCurrentIndex(last_profile_index_);
            }
            emit openProfileRequested();
            return;
        }
        last_profile_index_ = index;
        emitChanged();
    });
    updateFamilyPage();
}

void WorkloadPanel::updateFamilyPage() {
    const QString k = kernel_->currentText();
    if (k.startsWith(QStringLiteral("attention"))) shape_pages_->setCurrentIndex(0);
    else if (k == QStringLiteral("gemm")) shape_pages_->setCurrentIndex(1);
    else shape_pages_->setCurrentIndex(2);
    // Fields a family does not take are disabled (make_workload() rejects them).
    const bool naive = k == QStringLiteral("attention-naive");
    attn_variant_->setEnabled(naive);
    tile_k_->setEnabled(naive || k == QStringLiteral("gemm"));
}

void WorkloadPanel::emitChanged() {
    if (!updating_) emit requestChanged();
}

PredictRequest WorkloadPanel::request() const {
    PredictRequest r;
    const QString k = kernel_->currentText();
    r.spec.kernel = k.toStdString();
    r.spec.dtype = dtype_->currentText().toStdString();
    if (k.startsWith(QStringLiteral("attention"))) {
        r.spec.batch = batch_->value();
        r.spec.heads = heads_->value();
        r.spec.seq = seq_->value();
        r.spec.head_dim = head_dim_->currentText().toLongLong();
        r.spec.causal = causal_->isChecked();
        if (k == QStringLiteral("attention-naive")) r.spec.variant = attn_variant_->currentText().toStdString();
    } else if (k == QStringLiteral("gemm")) {
        r.spec.m = gemm_m_->value();
        r.spec.n = gemm_n_->value();
        r.spec.k = gemm_k_->value();
        r.spec.raster = raster_->currentText().toStdString();
    } else {
        r.spec.rows = rows_->value();
        r.spec.cols = cols_->value();
        r.spec.variant = variant_->currentText().toStdString();
    }
    auto tile = [](QSpinBox* box) -> std::optional<int64_t> {
        if (box->value() == 0) return std::nullopt;
        return box->value();
    };
    r.spec.tile_m = tile(tile_m_);
    r.spec.tile_n = tile(tile_n_);
    if (tile_k_->isEnabled()) r.spec.tile_k = tile(tile_k_);
    r.spec.stages = tile(stages_);
    r.spec.warps = tile(warps_);
    const int pi = profile_->currentIndex();
    const QVariant path = profile_->itemData(pi);
    r.profile = path.isValid() && !path.isNull() ? path.toString().toStdString() : profile_->currentText().toStdString();
    r.model = model_->currentText().toStdString();
    r.l2 = l2_->isChecked();
    return r;
}

void WorkloadPanel::setRequest(const PredictRequest& r) {
    updating_ = true;
    if (r.spec.kernel) kernel_->setCurrentText(QString::fromStdString(*r.spec.kernel));
    if (r.spec.dtype) dtype_->setCurrentText(QString::fromStdString(*r.spec.dtype));
    auto set = [](QSpinBox* box, const std::optional<int64_t>& v) {
        if (v) box->setValue(static_cast<int>(*v));
    };
    set(batch_, r.spec.batch);
    set(heads_, r.spec.heads);
    set(seq_, r.spec.seq);
    if (r.spec.head_dim) head_dim_->setCurrentText(QString::number(*r.spec.head_dim));
    if (r.spec.causal) causal_->setChecked(*r.spec.causal);
    set(gemm_m_, r.spec.m);
    set(gemm_n_, r.spec.n);
    set(gemm_k_, r.spec.k);
    if (r.spec.raster) raster_->setCurrentText(QString::fromStdString(*r.spec.raster));
    set(rows_, r.spec.rows);
    set(cols_, r.spec.cols);
    if (r.spec.variant) {
        variant_->setCurrentText(QString::fromStdString(*r.spec.variant));
        attn_variant_->setCurrentText(QString::fromStdString(*r.spec.variant));
    }
    tile_m_->setValue(static_cast<int>(r.spec.tile_m.value_or(0)));
    tile_n_->setValue(static_cast<int>(r.spec.tile_n.value_or(0)));
    tile_k_->setValue(static_cast<int>(r.spec.tile_k.value_or(0)));
    stages_->setValue(static_cast<int>(r.spec.stages.value_or(0)));
    warps_->setValue(static_cast<int>(r.spec.warps.value_or(0)));
    const QString profile = QString::fromStdString(r.profile);
    if (int i = profile_->findText(profile); i >= 0 && profile_->itemData(i).isNull()) {
        profile_->setCurrentIndex(i);
    } else if (profile.endsWith(QStringLiteral(".json")) || profile.contains(QLatin1Char('/'))) {
        addProfilePath(profile);
    }
    setModel(QString::fromStdString(r.model));
    l2_->setChecked(r.l2);
    updateFamilyPage();
    updating_ = false;
    emit requestChanged();
}

void WorkloadPanel::setTile(int tile_m, int tile_n) {
    updating_ = true;
    tile_m_->setValue(tile_m);
    tile_n_->setValue(tile_n);
    updating_ = false;
    emit requestChanged();
}

void WorkloadPanel::addProfilePath(const QString& path) {
    int index = profile_->findData(path);
    if (index < 0) {
        index = profile_->count() - 1;  // before "Open profile file…"
        profile_->insertItem(index, QFileInfo(path).fileName(), path);
        profile_->setItemData(index, path, Qt::ToolTipRole);
    }
    if (index == profile_->currentIndex()) emitChanged();  // re-read the file
    else profile_->setCurrentIndex(index);                  // emits through the index handler
}

void WorkloadPanel::setProfile(const QString& name_or_path) {
    const int i = profile_->findText(name_or_path);
    if (i >= 0 && profile_->itemData(i).isNull() && name_or_path != QString::fromUtf8(kOpenProfileText)) profile_->setCurrentIndex(i);
    else addProfilePath(name_or_path);
}

void WorkloadPanel::setModel(const QString& model) {
    if (int i = model_->findText(model); i >= 0) model_->setCurrentIndex(i);
}

}  // namespace tilescope::gui
