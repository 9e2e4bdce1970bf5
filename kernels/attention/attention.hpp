// Host-side entry points of the attention kernels (no CUDA headers: callers pass device
// pointers as void* and the stream as an opaque handle).
//
// Layout: Q [batch, heads, seq_q, d], K and V [batch, heads, seq_kv, d], O like Q, all
// contiguous, fp16 or bf16. `lse` (flash2 only, may be null) is fp32 [batch, heads, seq_q]:
// the natural-log logsumexp of each scaled score row. Causal masking is top-left aligned:
// query row i sees keys 0..i (as torch's scaled_dot_product_attention(is_causal=True)).
//
// Menus (compile-time instantiations; anything else is rejected with a message):
//   flash1 / flash2: Br in {32, 64, 128}, Bc in {32, 64, 128}, d in {64, 128}, warps = Br/16.
//   naive: see gemm/gemm.hpp and softmax/softmax.hpp; seq_q and seq_kv multiples of 8.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.hpp"
#include "core/workload.hpp"
#include "kernels/common/facts.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/softmax/softmax.hpp"

namespace tilescope::kern {

struct AttentionArgs {
    const void* q = nullptr;
    const void* k = nullptr;
    const void* v = nullptr;
    void* o = nullptr;
    float* lse = nullptr;         // flash2: optional output
    DType dtype = DType::fp16;
    std::int64_t batch = 0, heads = 0, seq_q = 0, seq_kv = 0;
    int head_dim = 0;
    bool causal = false;
    float scale = 0;              // 0 -> 1/sqrt(head_dim)
    int br = 0, bc = 0;           // tile rows of Q and of K/V
    void* stream = nullptr;       // cudaStream_t
};

// Workspace of flash1 (row statistics l and m kept in HBM between outer steps), fp32,
// 2 * batch * heads * seq_q floats.
std::int64_t flash1_workspace_bytes(const AttentionArgs& a);

// Shared memory per block (bytes) of each kernel: the contract with core/lower.
std::int64_t flash2_smem_bytes(int br, int bc, int head_dim, int dtype_bytes);
std::int64_t flash1_smem_bytes(int br, int bc, int head_dim, int dtype_bytes);

// Checks the tile/head_dim/dtype menu without launching anything.
Status flash2_supported(const AttentionArgs& a);
Status flash1_supported(const AttentionArgs& a);

Status launch_flash2(const AttentionArgs& a);
// `workspace` must hold flash1_workspace_bytes(a) bytes of device memory.
Status launch_flash1(const AttentionArgs& a, void* workspace);

Result<KernelFacts> flash2_facts(const AttentionArgs& a);
Result<KernelFacts> flash1_facts(const AttentionArgs& a);

// ---- naive attention: three launches over HBM-resident S and P ------------------------------
// qk:      S[bh] = scale * Q[bh] K[bh]^T   (gemm, B transposed; S in the input dtype)
// softmax: P = softmax(S) per row (causal: columns past the row are zeroed)
// pv:      O[bh] = P[bh] V[bh]             (gemm)
// `gemm_tile` drives both GEMMs, except that pv's tile n is min(tile n, head_dim) (the output
// is only head_dim wide). The softmax launch uses `softmax_tile` (default 1 row per block,
// 4 warps, n = 1024) and the workload's softmax variant (same as core/lower_naive.cpp).
enum class NaiveStage { qk, softmax, pv };
std::int64_t naive_scores_bytes(const AttentionArgs& a);   // bytes of S (and of P)
Tile naive_default_softmax_tile();
Tile naive_pv_tile(const AttentionArgs& a, const Tile& gemm_tile);
GemmArgs naive_gemm_args(const AttentionArgs& a, const Tile& gemm_tile, NaiveStage stage, const void* s_or_p,
                         void* s_out);
SoftmaxArgs naive_softmax_args(const AttentionArgs& a, const Tile& softmax_tile, SoftmaxVariant variant,
                               const void* s, void* p);
Status naive_supported(const AttentionArgs& a, const Tile& gemm_tile, const Tile& softmax_tile);

}  // namespace tilescope::kern
