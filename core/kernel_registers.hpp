// Registers per thread of the kernels in kernels/ as compiled, for the tiles they are built for.
//
// A kernel's occupancy (blocks per SM) follows from its registers, and the simulator's time
// follows from its occupancy, so lower() should use what the compiler really allocated rather
// than an estimate. These are the counts cudaFuncGetAttributes reported for the fp16 kernels of
// the sm_90 build (CUDA 13.0) on the H100 (recorded per launch in
// profiles/validation/h100-sxm-dataset.jsonl; the __launch_bounds__ minimums of
// kernels/attention/flash2/flash2.cuh show up as the 128 and 167). They are facts of the shipped
// kernels, not fitted numbers: a tile or dtype outside this menu (or another compiler or sm_80
// build, which may allocate a few registers more or less) falls back to the estimates in
// lower.cpp / lower_gemm.cpp. The tables are checked against the data set by
// tests/validate (every fp16 launch of the data set gets its recorded count).
//
// Example: flash2 Br x Bc = 128 x 64 with d = 64 uses 162 registers: 8 warps x 32 x 162 = 41,472
// of the SM's 65,536, so one block per SM, not the two an estimate of 128 would allow.
#pragma once

#include <optional>

#include "core/workload.hpp"

namespace tilescope {

// Fused attention (flash1, flash2): one warp per 16 query rows (warps == br / 16).
std::optional<int> compiled_attention_registers(KernelFamily family, DType dtype, int head_dim, int br, int bc,
                                                int warps);

// The tiled GEMM kernel of kernels/gemm in its three uses: plain C = A B (gemm), S = Q K^T with
// the scale in the epilogue (naive attention's qk launch: B transposed) and O = P V (naive
// attention's pv launch). tile_k 32 and 8 warps.
enum class GemmUse { gemm, attention_qk, attention_pv };
std::optional<int> compiled_gemm_registers(GemmUse use, DType dtype, int tile_m, int tile_n, int tile_k, int warps);

// Instructions one warp of the plain GEMM kernel (GemmUse::gemm, fp16, tile_k 32, 8 warps)
// executes per k-iteration, for 2, 3 or 4 stages: Nsight Compute's smsp__inst_executed.sum of
// one-wave grids at K = 2048 and 8192, the difference over the 192 iterations between them per
// warp (bench/results/h200_gemm_inst_counts_2026-11-28.tgz, bench/scripts/instruction_law.py;
// docs/validation change 56). A fact of the compiled sm_90 kernel like its registers; the H100
// issue probe counted the same 140, 179, 185 and 229 at 3 stages. Other uses (naive attention's
// QK^T and P V: other epilogues and B layouts), dtypes, warp counts and tiles: nullopt.
std::optional<double> compiled_gemm_instructions(GemmUse use, DType dtype, int tile_m, int tile_n, int tile_k,
                                                 int warps, int stages);

// Warp-instructions the softmax kernel of kernels/softmax executes per row (fp16, one row per
// block): per_warp_row for each warp of the block (row set-up, the block reductions' shuffles,
// shared-memory exchange and barriers, the 1/sum), plus per_256_columns for each 256 columns of
// the row (one warp's step of 16-byte loads over all passes: unpack, mask, max, exp, sum, pack,
// store and the loop). Least squares over Nsight Compute's smsp__inst_executed.sum of nine launches
// per variant (131072 x 512, 32768 x 2048, 8192 x 2048 at 1, 2 and 4 warps; lent H200, sm_90
// build; bench/results/h200_softmax_w_2026-11-28.tgz, bench/scripts/softmax_issue_summary.py;
// docs/validation change 59), every launch within 3%. Other dtypes: nullopt.
struct SoftmaxInstructions {
    double per_warp_row = 0, per_256_columns = 0;
};
std::optional<SoftmaxInstructions> compiled_softmax_instructions(SoftmaxVariant variant, DType dtype);

}  // namespace tilescope
