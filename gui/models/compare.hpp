// Naive vs fused attention for one shape: both predictions plus the IO-complexity formulas of
// the FlashAttention paper evaluated for the shape (HBM accesses, in elements and bytes):
//   naive  Θ(N·d + N²) per head          fused  Θ(N²·d²/M) per head, M = SRAM size in elements.
#pragma once

#include <string>

#include "core/result.hpp"
#include "gui/models/prediction_service.hpp"

namespace tilescope::gui {

struct IoFormulas {
    double n = 0, d = 0;             // sequence length, head dimension
    double heads_total = 0;          // batch * heads
    double sram_elements = 0;        // M: shared memory per SM / dtype bytes
    double dtype_bytes = 0;
    double naive_elements = 0;       // B·H·(N·d + N²)
    double fused_elements = 0;       // B·H·N²·d²/M
    double fused_tile_elements = 0;  // flash2 with its Br: B·H·(2·N·d + 2·N·d·ceil(N/Br)); K,V re-read per Q tile
    int block_rows = 0;              // Br of the fused prediction
};

struct Comparison {
    PredictionSnapshot naive;
    PredictionSnapshot fused;
    IoFormulas io;
    std::string note;  // e.g. "the GEMM workload has no attention shape: default attention shape used"
};

IoFormulas io_formulas(const Workload& fused, const Hardware& hw);

// Predicts attention-naive (default tiles) and attention-flash2 (the panel's tiles when the
// panel shows a fused kernel) for the request's attention shape, with the request's model.
Result<Comparison> compute_comparison(const PredictRequest& base);

}  // namespace tilescope::gui
