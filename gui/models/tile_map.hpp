// Tile map: predicted time and HBM bytes over a grid of (tile-m x tile-n), computed in a
// worker with progress and cancel, plus the table model the heat-map view paints from.
#pragma once

#include <QAbstractTableModel>
#include <QColor>

#include <functional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "gui/models/prediction_service.hpp"

namespace tilescope::gui {

struct TileCell {
    int tile_m = 0;
    int tile_n = 0;
    bool legal = false;
    std::string reason;         // why the cell is illegal (core's message)
    double time_ns = 0;         // gpu__time_duration.sum
    double hbm_bytes = 0;       // dram__bytes_read.sum + dram__bytes_write.sum
    double hbm_read_bytes = 0;  // dram__bytes_read.sum
    double hbm_write_bytes = 0; // dram__bytes_write.sum
    std::string bound;
};

struct TileMap {
    std::vector<int> sizes;     // the same list on both axes, ascending
    std::vector<TileCell> cells;  // row-major: row = tile-m index, column = tile-n index
    std::string model;
    std::string gpu;
    int selected_m = 0;         // tile of the base request (highlighted)
    int selected_n = 0;
    const TileCell& at(std::size_t row, std::size_t col) const { return cells[row * sizes.size() + col]; }
};

// Powers of two 16..256.
std::vector<int> default_tile_sizes();

// Runs base.model for every (tile-m, tile-n) on all cores (`cancelled` and `progress` are called
// from several threads); an illegal cell is kept with its reason.
// Returns an error only when the profile cannot be loaded or the sweep was cancelled.
Result<TileMap> compute_tile_map(const PredictRequest& base, const std::vector<int>& sizes,
                                 const std::function<bool()>& cancelled,
                                 const std::function<void(int done, int total)>& progress);

// CSV with one header row:
// tile_m,tile_n,status,reason,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,bound
std::string tile_map_csv(const TileMap& map);

// The band around the fastest tile inside which the calibrated model cannot order tiles reliably:
// on the H100's and H200's held-out halves it orders two tiles right at least 95% of the time only
// when it predicts them 10% or more apart (50-77% within 5%; docs/validation/report.md, "Tile
// choice", and README "When to trust the predicted best tile"). The time map outlines the tiles
// within it as ties of the best.
inline constexpr double kTieBand = 0.10;

class TileMapModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Quantity { time, hbm_bytes };
    explicit TileMapModel(QObject* parent = nullptr);

    void setTileMap(TileMap map);
    void clear();
    void setQuantity(Quantity q);
    Quantity quantity() const { return quantity_; }
    const TileMap& tileMap() const { return map_; }

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Heat colour for a legal cell (log scale between the best and worst legal cells).
    QColor heatColor(const TileCell& cell) const;
    double value(const TileCell& cell) const;
    // Predicted time over the fastest legal tile's, minus 1 (NaN for an illegal cell or an empty map).
    double overBest(const TileCell& cell) const;
    // A legal cell whose predicted time is within kTieBand of the fastest (the fastest included).
    bool nearBest(const TileCell& cell) const { return overBest(cell) <= kTieBand; }

private:
    TileMap map_;
    Quantity quantity_ = Quantity::time;
    double min_ = 0, max_ = 0;
    double best_time_ns_ = 0;  // the fastest legal cell's time (0: none)
    void updateRange();
};

}  // namespace tilescope::gui
