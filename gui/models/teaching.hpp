// Teaching mode: the fused (flash2 loop order) attention kernel stepped one K/V tile at a time
// on a small random example, computed for real in double precision with the online-softmax
// recurrence, and checked against the direct softmax(QKᵀ·scale)·V at the end.
//
// For query row r, visiting K/V tile j with scores s_c = q_r·k_c·scale (c in tile j):
//   m' = max(m, max_c s_c)
//   l' = l·exp(m − m') + Σ_c exp(s_c − m')
//   o' = o·exp(m − m') + Σ_c exp(s_c − m')·v_c          and at the end  O_r = o / l.
// Byte counters follow the same loop: HBM reads of Q_i once per block and K_j, V_j per step,
// shared-memory writes of every tile loaded, shared-memory reads of K_j, V_j per step (by every
// warp) and of Q_i (each warp its own rows; per step for d > 64, once per block for d <= 64 where
// Q stays in registers) -- the same accounting as core/lower_flash2.cpp, which a test checks,
// HBM writes of O_i (dtype) and logsumexp (fp32) when a block finishes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilescope::gui {

struct TeachingConfig {
    int n = 64;             // sequence length (queries = keys)
    int d = 16;             // head dimension
    int br = 16;            // query rows per tile (Br)
    int bc = 16;            // key/value rows per tile (Bc)
    int warps = 1;          // warps per block (Br/16): every warp reads all of K_j and V_j
    int dtype_bytes = 2;    // fp16 storage for the byte counters
    int tracked_rows = 4;   // rows of the Q tile whose m, l are shown
    std::uint64_t seed = 2024;
};

struct TeachingStep {
    int q_tile = 0;                 // resident Q_i (and the O_i accumulator)
    int kv_tile = 0;                // resident K_j, V_j
    bool block_done = false;        // last K/V tile of this Q tile: O_i written to HBM
    std::vector<double> m, l;       // running statistics after this step, tracked rows
    double hbm_read_bytes = 0;      // cumulative
    double hbm_write_bytes = 0;
    double smem_read_bytes = 0;
    double smem_write_bytes = 0;
};

struct TeachingRun {
    TeachingConfig config;
    int q_tiles = 0, kv_tiles = 0;
    std::vector<double> q, k, v;          // n x d row-major
    std::vector<double> o_online;         // n x d from the recurrence
    std::vector<double> o_direct;         // n x d from softmax(S)·V
    std::vector<TeachingStep> steps;      // q_tiles * kv_tiles
    double max_abs_error = 0;             // max |o_online − o_direct|
    std::vector<double> final_m, final_l; // per row, after the loop (all n rows)
    std::vector<double> direct_row_max, direct_row_sum;  // the same from the full row of S
};

// Requires n % br == 0 and n % bc == 0 (the example is chosen so); others give empty steps.
TeachingRun run_teaching(const TeachingConfig& config);

}  // namespace tilescope::gui
