// Internal to lower_*.cpp: shared helpers for building Launches. Not part of the public contract.
//
// Counting rules shared by every family (the CUDA kernels in kernels/ follow the same rules):
//  - Global traffic is clipped to data that exists: a partial tile at a ragged edge loads and
//    stores only its existing rows/columns.
//  - Inside the SM everything is per full tile: a partial tile is zero-filled in shared memory
//    (cp.async zfill writes the whole tile), read whole by the warps, and computed whole by the
//    tensor cores (MMA fragments have fixed shapes). Softmax is the exception: its element-wise
//    work runs only on existing elements (masked lanes do nothing).
//  - Shared-memory reads model warp tiling: an operand tile is read once by every warp that needs
//    it (e.g. GEMM: A by each warp column, B by each warp row; attention: K and V by every warp,
//    each warp's own Q/O rows once).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "core/kernel_registers.hpp"
#include "core/launch.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope::detail {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// sum_{i=0}^{n-1} floor((a*i + b) / m) for n, m > 0 and a, b >= 0, in O(log) steps.
std::int64_t floor_sum(std::int64_t n, std::int64_t m, std::int64_t a, std::int64_t b);

// (query tile, key/value tile) pairs processed by fused attention for one (batch, head).
// Causal: a K/V tile is skipped when it lies entirely above the diagonal; tiles that cross the
// diagonal are computed whole and masked.
struct AttentionTiles {
    std::int64_t q_tiles = 0;       // ceil(N / Br)
    std::int64_t kv_tiles = 0;      // ceil(N_kv / Bc)
    std::int64_t pairs = 0;         // sum over q tiles of kv_for_q(i)
    std::int64_t last_kv_users = 0; // q tiles that process the last (possibly partial) kv tile
};
AttentionTiles attention_tiles(std::int64_t seq_q, std::int64_t seq_kv, std::int64_t br, std::int64_t bc, bool causal);
// Shape and tile of a fused-attention workload (flash1 and flash2), read once from the Workload.
struct FusedAttention {
    std::int64_t bh, n, n_kv, d, br, bc;
    int warps, dt;
    bool causal;
    AttentionTiles t;
};
FusedAttention fused_attention(const Workload& w);
// K/V tiles processed by query tile i (prefix 0 .. result-1).
std::int64_t kv_tiles_for_q(std::int64_t i, std::int64_t seq_q, std::int64_t kv_tiles, std::int64_t br,
                            std::int64_t bc, bool causal);
// First query tile that processes K/V tile j.
std::int64_t first_q_for_kv(std::int64_t j, std::int64_t br, std::int64_t bc, bool causal);

// Register estimate for a fused-attention thread: base + O and S accumulators (fp32) + Q and P
// fragments (dtype), for the query rows one warp owns. An estimate, not what nvcc allocates.
int attention_registers(std::int64_t br, std::int64_t bc, std::int64_t head_dim, int warps, int dtype_size);

// Step builders. Inline: the simulator calls a block program once per block, and for small
// tiles that is tens of millions of steps per launch; out-of-line calls were a quarter of a
// sweep's time.
inline void push_global(std::vector<Step>& out, StepKind kind, std::int32_t iteration, std::uint32_t buffer,
                        std::int64_t offset_bytes, std::int64_t row_bytes, std::int64_t rows, std::int64_t stride_bytes) {
    Step& s = out.emplace_back();
    s.kind = kind;
    s.iteration = iteration;
    s.region = Region{buffer, offset_bytes, row_bytes, rows, stride_bytes};
    s.amount = static_cast<double>(s.region.bytes());
}
inline void push_load(std::vector<Step>& out, std::int32_t iteration, std::uint32_t buffer, std::int64_t offset_bytes,
                      std::int64_t row_bytes, std::int64_t rows, std::int64_t stride_bytes) {
    push_global(out, StepKind::load, iteration, buffer, offset_bytes, row_bytes, rows, stride_bytes);
}
inline void push_store(std::vector<Step>& out, std::int32_t iteration, std::uint32_t buffer, std::int64_t offset_bytes,
                       std::int64_t row_bytes, std::int64_t rows, std::int64_t stride_bytes) {
    push_global(out, StepKind::store, iteration, buffer, offset_bytes, row_bytes, rows, stride_bytes);
}
inline void push_smem(std::vector<Step>& out, StepKind kind, std::int32_t iteration, double bytes) {
    Step& s = out.emplace_back();
    s.kind = kind;
    s.iteration = iteration;
    s.amount = bytes;
}
inline void push_compute(std::vector<Step>& out, Unit unit, std::int32_t iteration, double ops) {
    Step& s = out.emplace_back();
    s.kind = StepKind::compute;
    s.unit = unit;
    s.iteration = iteration;
    s.amount = ops;
}
inline void push_barrier(std::vector<Step>& out, std::int32_t iteration) {
    Step& s = out.emplace_back();
    s.kind = StepKind::barrier;
    s.iteration = iteration;
}
// `count` block-wide reductions in sequence (a row's max, then its sum).
inline void push_reduction(std::vector<Step>& out, std::int32_t iteration, double count) {
    Step& s = out.emplace_back();
    s.kind = StepKind::reduction;
    s.iteration = iteration;
    s.amount = count;
}

// Warp-instructions the block's warps execute in this iteration (StepKind::issue).
inline void push_issue(std::vector<Step>& out, std::int32_t iteration, double warp_instructions) {
    Step& s = out.emplace_back();
    s.kind = StepKind::issue;
    s.iteration = iteration;
    s.amount = warp_instructions;
}

// Checks the launch against the GPU (shared memory per block, threads, registers, via
// occupancy()) and applies persistence (grid = resident slots looping over work items).
// `what` describes the configuration for the error text, e.g. "tile 128x64 with head-dim 64".
Status finish_launch(Launch& launch, const Hardware& hw, const std::string& what, bool persistent);

// A (batched) tiled GEMM C = A * B (B optionally stored transposed, N x K), used by the gemm
// family and by naive attention's two matmuls.
struct GemmParams {
    std::string name;
    std::int64_t batches = 1, m = 0, n = 0, k = 0;
    int tile_m = 0, tile_n = 0, tile_k = 0, stages = 1, warps = 1;
    int dtype_size = 2;
    bool b_transposed = false;           // B stored as N x K row-major (e.g. K for S = Q K^T)
    Raster raster = Raster::row;
    std::string a_name = "A", b_name = "B", c_name = "C";
    double epilogue_fp32_per_element = 0;  // e.g. 1 for the softmax scale folded into S = QK^T*scale
    GemmUse use = GemmUse::gemm;           // which compiled variant (its registers: kernel_registers.hpp)
    DType dtype = DType::fp16;
};
Launch make_gemm_launch(const GemmParams& p);

// Row softmax y = softmax(x) over rows x cols.
struct SoftmaxParams {
    std::string name;
    std::int64_t rows = 0, cols = 0;
    int tile_m = 1, tile_n = 1024, warps = 4, stages = 1;
    int dtype_size = 2;
    SoftmaxVariant variant = SoftmaxVariant::safe;
    std::string x_name = "x", y_name = "y";
    // The compiled kernel's warp-instructions (compiled_softmax_instructions), where known: the
    // program then carries them as StepKind::issue steps.
    std::optional<SoftmaxInstructions> instructions;
};
Launch make_softmax_launch(const SoftmaxParams& p);

Result<std::vector<Launch>> lower_naive(const Workload& w, const Hardware& hw);
Result<std::vector<Launch>> lower_flash1(const Workload& w, const Hardware& hw);
Result<std::vector<Launch>> lower_flash2(const Workload& w, const Hardware& hw);
Result<std::vector<Launch>> lower_gemm(const Workload& w, const Hardware& hw);
Result<std::vector<Launch>> lower_softmax(const Workload& w, const Hardware& hw);

}  // namespace tilescope::detail
