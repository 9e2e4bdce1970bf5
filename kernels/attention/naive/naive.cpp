// attention/naive: the three-launch baseline (S = QK^T*scale to HBM, P = softmax(S) to HBM,
// O = PV), built from the tiled tensor-core GEMM (kernels/gemm) and the row softmax
// (kernels/softmax). This file only wires arguments; the kernels are documented there.
// S and P are B*H*seq_q*seq_kv elements each in the input dtype: the N^2 HBM traffic and
// memory the fused kernels avoid.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/attention/attention.hpp"

namespace tilescope::kern {

std::int64_t naive_scores_bytes(const AttentionArgs& a) {
    return a.batch * a.heads * a.seq_q * a.seq_kv * (a.dtype == DType::fp32 ? 4 : 2);
}

Tile naive_default_softmax_tile() {
    Tile t;
    t.m = 1;
    t.n = 1024;
    t.k = 0;
    t.stages = 1;
    t.warps = 4;
    return t;
}

Tile naive_pv_tile(const AttentionArgs& a, const Tile& gemm_tile) {
    Tile t = gemm_tile;
    t.n = std::min(gemm_tile.n, a.head_dim);
    return t;
}

GemmArgs naive_gemm_args(const AttentionArgs& a, const Tile& gemm_tile, NaiveStage stage, const void* s_or_p,
                         void* s_out) {
    GemmArgs g;
    g.dtype = a.dtype;
    g.batch = a.batch * a.heads;
    g.stream = a.stream;
    const std::int64_t d = a.head_dim;
    if (stage == NaiveStage::qk) {
        g.a = a.q;
        g.b = a.k;
        g.c = s_out;
        g.m = a.seq_q;
        g.n = a.seq_kv;
        g.k = d;
        g.lda = d;
        g.ldb = d;
        g.ldc = a.seq_kv;
        g.batch_stride_a = a.seq_q * d;
        g.batch_stride_b = a.seq_kv * d;
        g.batch_stride_c = a.seq_q * a.seq_kv;
        g.alpha = a.scale > 0 ? a.scale : 1.0f / std::sqrt(static_cast<float>(d));
        g.b_transposed = true;
        g.tile = gemm_tile;
    } else {
        g.a = s_or_p;
        g.b = a.v;
        g.c = a.o;
        g.m = a.seq_q;
        g.n = d;
        g.k = a.seq_kv;
        g.lda = a.seq_kv;
        g.ldb = d;
        g.ldc = d;
        g.batch_stride_a = a.seq_q * a.seq_kv;
        g.batch_stride_b = a.seq_kv * d;
        g.batch_stride_c = a.seq_q * d;
        g.alpha = 1.0f;
        g.b_transposed = false;
        g.tile = naive_pv_tile(a, gemm_tile);
    }
    return g;
}

SoftmaxArgs naive_softmax_args(const AttentionArgs& a, const Tile& softmax_tile, SoftmaxVariant variant,
                               const void* s, void* p) {
    SoftmaxArgs sa;
    sa.x = s;
    sa.y = p;
    sa.dtype = a.dtype;
    sa.rows = a.batch * a.heads * a.seq_q;
    sa.cols = a.seq_kv;
    sa.variant = variant;
    sa.tile = softmax_tile;
    sa.causal_period = a.causal ? a.seq_q : 0;
    sa.stream = a.stream;
    return sa;
}

Status naive_supported(const AttentionArgs& a, const Tile& gemm_tile, const Tile& softmax_tile) {
    if (a.dtype != DType::fp16 && a.dtype != DType::bf16)
        return make_error("naive attention kernels support --dtype fp16 or bf16 only");
    if (a.head_dim % 8 != 0 || a.head_dim < 64 || a.head_dim > 128)
        return make_error("naive attention kernels support --head-dim 64 or 128 (got " +
                          std::to_string(a.head_dim) + ")");
    if (a.seq_kv % 8 != 0)
        return make_error("naive attention kernels need --seq-kv to be a multiple of 8 (got " +
                          std::to_string(a.seq_kv) + ")");
    Status st = gemm_supported(naive_gemm_args(a, gemm_tile, NaiveStage::qk, nullptr, nullptr));
    if (!st) return st;
    st = gemm_supported(naive_gemm_args(a, gemm_tile, NaiveStage::pv, nullptr, nullptr));
    if (!st) return st;
    return softmax_supported(naive_softmax_args(a, softmax_tile, SoftmaxVariant::safe, nullptr, nullptr));
}

}  // namespace tilescope::kern
