// attention-naive: three launches that materialise S and P in HBM.
//   "qk"      batched GEMM S[b,h] = Q K^T * scale (M = seq, N = seq_kv, K = d); K is the
//             transposed B operand (stored seq_kv x d). S is stored in the dtype. The scale is one
//             fp32 multiply per S element in the epilogue. tile_k is clamped to d.
//   "softmax" row softmax of S into P: rows = batch*heads*seq, cols = seq_kv, 1 row per block,
//             1024 columns per step, 4 warps; the workload's variant (safe: the row is read from
//             HBM once per pass, 3 reads + 1 write; online: 2 reads + 1 write). A real kernel could
//             keep a 4096-wide row in registers and read it once; we count the textbook passes
//             because that is what the teaching kernel does (kernels/attention/naive).
//   "pv"      batched GEMM O = P V (M = seq, N = d, K = seq_kv); tile_n is clamped to d.
// Both GEMMs use the workload's tile, stages and warps with row rasterisation.
// Causal: S is computed in full and the mask is applied by the softmax launch (masked elements
// are written as 0), so bytes and FLOPs equal the non-causal case.
#include <algorithm>

#include "core/lower_detail.hpp"

namespace tilescope::detail {

Result<std::vector<Launch>> lower_naive(const Workload& w, const Hardware& hw) {
    const std::int64_t bh = w.batch * w.heads;
    const int dt = dtype_bytes(w.dtype);
    const int d = static_cast<int>(w.head_dim);
    std::vector<Launch> launches;

    GemmParams qk;
    qk.name = "attention-naive:qk";
    qk.batches = bh;
    qk.m = w.seq_q;
    qk.n = w.seq_kv;
    qk.k = w.head_dim;
    qk.tile_m = w.tile.m;
    qk.tile_n = w.tile.n;
    qk.tile_k = std::min(w.tile.k, d);
    qk.stages = w.tile.stages;
    qk.warps = w.tile.warps;
    qk.dtype_size = dt;
    qk.b_transposed = true;
    qk.use = GemmUse::attention_qk;
    qk.dtype = w.dtype;
    qk.a_name = "Q";
    qk.b_name = "K";
    qk.c_name = "S";
    qk.epilogue_fp32_per_element = 1.0;
    launches.push_back(make_gemm_launch(qk));
    const std::string qk_what = "qk tile " + std::to_string(qk.tile_m) + "x" + std::to_string(qk.tile_n) + "x" +
                                std::to_string(qk.tile_k) + " with " + std::to_string(qk.stages) + " stages";
    if (Status s = finish_launch(launches.back(), hw, qk_what, w.persistent); !s) return s.error();

    SoftmaxParams sm;
    sm.name = "attention-naive:softmax";
    sm.rows = bh * w.seq_q;
    sm.cols = w.seq_kv;
    sm.tile_m = 1;
    sm.tile_n = 1024;
    sm.warps = 4;
    sm.dtype_size = dt;
    sm.variant = w.variant;
    sm.instructions = compiled_softmax_instructions(w.variant, w.dtype);
    sm.x_name = "S";
    sm.y_name = "P";
    launches.push_back(make_softmax_launch(sm));
    if (Status s = finish_launch(launches.back(), hw, "softmax of S", w.persistent); !s) return s.error();

    GemmParams pv;
    pv.name = "attention-naive:pv";
    pv.batches = bh;
    pv.m = w.seq_q;
    pv.n = w.head_dim;
    pv.k = w.seq_kv;
    pv.tile_m = w.tile.m;
    pv.tile_n = std::min(w.tile.n, d);
    pv.tile_k = w.tile.k;
    pv.stages = w.tile.stages;
    pv.warps = w.tile.warps;
    pv.dtype_size = dt;
    pv.use = GemmUse::attention_pv;
    pv.dtype = w.dtype;
    pv.a_name = "P";
    pv.b_name = "V";
    pv.c_name = "O";
    launches.push_back(make_gemm_launch(pv));
    const std::string pv_what = "pv tile " + std::to_string(pv.tile_m) + "x" + std::to_string(pv.tile_n) + "x" +
                                std::to_string(pv.tile_k) + " with " + std::to_string(pv.stages) + " stages";
    if (Status s = finish_launch(launches.back(), hw, pv_what, w.persistent); !s) return s.error();
    return launches;
}

}  // namespace tilescope::detail
