#include "gui/models/tile_map.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>
#include <thread>
#include <utility>

#include "core/metrics.hpp"
#include "gui/models/format.hpp"
#include "gui/models/metrics_model.hpp"

namespace tilescope::gui {

std::vector<int> default_tile_sizes() { return {16, 32, 64, 128, 256}; }

Result<TileMap> compute_tile_map(const PredictRequest& base, const std::vector<int>& sizes,
                                 const std::function<bool()>& cancelled,
                                 const std::function<void(int done, int total)>& progress) {
    auto hw = load_hardware(base.profile);
    if (!hw) return hw.error();
    TileMap map;
    map.sizes = sizes;
    map.model = base.model;
    map.gpu = hw->name;
    map.selected_m = static_cast<int>(base.spec.tile_m.value_or(0));
    map.selected_n = static_cast<int>(base.spec.tile_n.value_or(0));
    if (auto w = make_workload(base.spec)) {  // defaults filled: the tile the panel shows
        map.selected_m = w->tile.m;
        map.selected_n = w->tile.n;
    }
    // Cells are independent: spread them over the cores (workers take the next cell index);
    // results land at their index, so the map is the same for any number of threads.
    const std::size_t total = sizes.size() * sizes.size();
    map.cells.resize(total);
    std::atomic<std::size_t> next{0};
    std::atomic<int> done{0};
    std::atomic<bool> stopped{false};
    auto work = [&]() {
        for (std::size_t i = next++; i < total; i = next++) {
            if (stopped.load() || (cancelled && cancelled())) {
                stopped = true;
                return;
            }
            PredictRequest req = base;
            req.spec.tile_m = sizes[i / sizes.size()];
            req.spec.tile_n = sizes[i % sizes.size()];
            req.timeline = false;  // the map needs totals only
            TileCell& cell = map.cells[i];
            cell.tile_m = static_cast<int>(*req.spec.tile_m);
            cell.tile_n = static_cast<int>(*req.spec.tile_n);
            auto snap = compute_prediction(req, hw.value());
            if (snap) {
                const Metrics& t = snap->prediction.total;
                cell.legal = true;
                cell.time_ns = t[Metric::gpu_time_duration];
                cell.hbm_read_bytes = t[Metric::dram_bytes_read];
                cell.hbm_write_bytes = t[Metric::dram_bytes_write];
                cell.hbm_bytes = cell.hbm_read_bytes + cell.hbm_write_bytes;
                cell.bound = snap->prediction.bound;
            } else {
                cell.reason = snap.error().message;
            }
            const int d = ++done;
            if (progress) progress(d, static_cast<int>(total));
        }
    };
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    if (stopped.load()) return make_error("tile map cancelled");
    return map;
}

std::string tile_map_csv(const TileMap& map) {
    std::ostringstream out;
    out.precision(17);
    out << "tile_m,tile_n,status,reason,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,bound\n";
    for (const TileCell& c : map.cells) {
        std::string reason = c.reason;
        std::replace(reason.begin(), reason.end(), '"', '\'');
        out << c.tile_m << ',' << c.tile_n << ',' << (c.legal ? "ok" : "illegal") << ",\"" << reason << "\",";
        if (c.legal) out << c.time_ns << ',' << c.hbm_read_bytes << ',' << c.hbm_write_bytes << ',' << c.bound;
        else out << ",,,";
        out << '\n';
    }
    return out.str();
}

// ---------------------------------------------------------------- TileMapModel

TileMapModel::TileMapModel(QObject* parent) : QAbstractTableModel(parent) {}

void TileMapModel::setTileMap(TileMap map) {
    beginResetModel();
    map_ = std::move(map);
    updateRange();
    endResetModel();
}

void TileMapModel::clear() { setTileMap(TileMap{}); }

void TileMapModel::setQuantity(Quantity q) {
    beginResetModel();
    quantity_ = q;
    updateRange();
    endResetModel();
}

double TileMapModel::value(const TileCell& cell) const {
    return quantity_ == Quantity::time ? cell.time_ns : cell.hbm_bytes;
}

void TileMapModel::updateRange() {
    min_ = std::numeric_limits<double>::infinity();
    max_ = 0;
    best_time_ns_ = 0;
    for (const TileCell& c : map_.cells) {
        if (!c.legal) continue;
        min_ = std::min(min_, value(c));
        max_ = std::max(max_, value(c));
        if (c.time_ns > 0 && (best_time_ns_ == 0 || c.time_ns < best_time_ns_)) best_time_ns_ = c.time_ns;
    }
}

double TileMapModel::overBest(const TileCell& cell) const {
    if (!cell.legal || !(best_time_ns_ > 0) || !(cell.time_ns > 0)) return std::nan("");
    return cell.time_ns / best_time_ns_ - 1.0;
}

QColor TileMapModel::heatColor(const TileCell& cell) const {
    if (!cell.legal) return QColor(0xc8, 0xc8, 0xc8);
    double t = 0.0;
    const double v = value(cell);
    if (max_ > min_ && min_ > 0 && v > 0) t = std::log(v / min_) / std::log(max_ / min_);
    t = std::clamp(t, 0.0, 1.0);
    // Best (t = 0) green, through yellow, to worst (t = 1) red.
    const double hue = (1.0 - t) * 120.0;
    return QColor::fromHsvF(static_cast<float>(hue / 360.0), 0.65f, 0.92f);
}

int TileMapModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(map_.sizes.size());
}

int TileMapModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(map_.sizes.size());
}

QVariant TileMapModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const TileCell& c = map_.at(static_cast<std::size_t>(index.row()), static_cast<std::size_t>(index.column()));
    switch (role) {
    case Qt::DisplayRole:
        if (!c.legal) return QStringLiteral("illegal");
        return quantity_ == Quantity::time ? format_time_ns(c.time_ns) : format_bytes(c.hbm_bytes);
    case RawValueRole: return c.legal ? value(c) : std::nan("");
    case Qt::BackgroundRole: return heatColor(c);
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("tile %1 x %2\n").arg(c.tile_m).arg(c.tile_n);
        if (!c.legal) return tip + QStringLiteral("illegal: ") + QString::fromStdString(c.reason);
        tip += QStringLiteral("time %1 (gpu__time_duration.sum)\nHBM %2 (dram__bytes_read.sum + dram__bytes_write.sum)\nbound: %3")
                   .arg(format_time_ns(c.time_ns), format_bytes(c.hbm_bytes), QString::fromStdString(c.bound));
        const double over = overBest(c);
        if (over == 0.0)
            tip += QStringLiteral("\nfastest predicted tile");
        else if (std::isfinite(over))
            tip += QStringLiteral("\n%1% slower than the fastest predicted tile").arg(over * 100.0, 0, 'f', 1);
        if (std::isfinite(over) && over <= kTieBand)
            tip += QStringLiteral("\nwithin %1% of the fastest: the calibrated model cannot order such tiles "
                                  "reliably (measure them)").arg(kTieBand * 100.0, 0, 'f', 0);
        return tip;
    }
    default: return {};
    }
}

QVariant TileMapModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole || section < 0 || section >= static_cast<int>(map_.sizes.size())) return {};
    const int size = map_.sizes[static_cast<std::size_t>(section)];
    return orientation == Qt::Horizontal ? QStringLiteral("n=%1").arg(size) : QStringLiteral("m=%1").arg(size);
}

}  // namespace tilescope::gui
