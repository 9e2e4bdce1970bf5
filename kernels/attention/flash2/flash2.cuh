// attention/flash2: fused attention forward, FlashAttention-2 loop order.
//
// What: grid (ceil(seq_q/Br), batch*heads). Each block loads its Q tile (Br x d) once, then loops
// over the K/V tiles (Bc x d each), keeping the running row max m, row sum l and the output
// accumulator O (Br x d, fp32) in registers; O is normalised and written once, plus the
// logsumexp of every row. S = QK^T and P never touch HBM.
// Why this shape: each warp owns 16 query rows (one mma m16n8k16 row block), so the online
// softmax is warp-local (quad shuffles only, no shared-memory reductions), and P goes from the
// S accumulators straight into A fragments of the P V product.
// Memory: K/V double-buffered through cp.async (the loads of tile j+1 overlap the math of
// tile j), 16-byte coalesced global loads, XOR-swizzled unpadded shared tiles read by ldmatrix.
// Shared memory per block = (Br*d + 2 stages * 2 (K,V) * Bc*d) * sizeof(T)   (core/lower contract).
// Ragged seq: rows past the end are zero-filled on load, their scores masked, never stored.
// Hooks (kernels/common/hooks.cuh; the tool's launches use NoHooks): kMma false skips each
// iteration's math (S = Q K^T, the online softmax, O += P V) and keeps its loads, waits and
// barriers, so O is stored as zeros; kLoads false fills both K/V stages in the prologue (tiles 0
// and 1) and issues no load in the loop, so iteration j computes on tile j % 2
// (tilescope-loop-overlap-probe, docs/validation change 63).
// Q fragments stay in registers for d = 64; for d = 128 they are re-read from shared memory
// each tile (keeps the register count under 255 without spills, as FlashAttention-2 does).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/warp_tile.cuh"
#include "kernels/common/hooks.cuh"
#include "kernels/common/ptx.cuh"

namespace tilescope::kern {

// Minimum resident blocks per SM asked of the register allocator, only where ptxas fits it
// without spills (checked with -Xptxas -v on sm_90): more warps per SM hide ldmatrix/exp latency.
template <int BR, int BC, int D>
constexpr int flash2_min_blocks() {
    if (D == 64 && BR == 128 && BC == 32) return 2;   // <= 128 registers
    if (D == 128 && BR == 64 && BC == 32) return 3;   // <= 168 registers
    return 1;
}

template <class T, int BR, int BC, int D, class Hooks = NoHooks>
__global__ void __launch_bounds__(BR * 2, flash2_min_blocks<BR, BC, D>())
    flash2_fwd_kernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                      T* __restrict__ o, float* __restrict__ lse, int seq_q, int seq_kv, float scale_log2,
                      int causal) {
    static_assert(BR % 16 == 0 && BC % 16 == 0 && D % 16 == 0, "tiles must be multiples of 16");
    constexpr int kThreads = BR * 2;   // warps = BR / 16
    constexpr int kChunks = D / 8;     // 16-byte chunks per row
    constexpr bool kQInRegs = (D == 64);
    constexpr bool kMma = HookMma<Hooks>::value;
    constexpr bool kLoads = HookLoads<Hooks>::value;
    using P = Pack<T>;

    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t s_q = smem_u32(smem);
    const uint32_t s_k = s_q + BR * D * 2;
    const uint32_t s_v = s_k + 2 * BC * D * 2;

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int g = lane / 4;
    const int t = lane % 4;

    const int q_tile = causal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
    const int q0 = q_tile * BR;
    const int64_t bh = blockIdx.y;
    const T* qb = q + bh * seq_q * D;
    const T* kb = k + bh * seq_kv * D;
    const T* vb = v + bh * seq_kv * D;

    int n_tiles = (seq_kv + BC - 1) / BC;
    if (causal) {
        const int q_last = min(q0 + BR, seq_q) - 1;
        n_tiles = min(n_tiles, q_last / BC + 1);
    }

    auto load_rows = [&](uint32_t s_base, const T* g_base, int row0, int rows, int limit) {
        for (int i = tid; i < rows * kChunks; i += kThreads) {
            const int r = i / kChunks;
            const int c = i % kChunks;
            const bool ok = row0 + r < limit;
            const T* src = ok ? g_base + static_cast<int64_t>(row0 + r) * D + c * 8 : g_base;
            cp_async16(s_base + swz<kChunks>(r, c), src, ok);
        }
    };

    load_rows(s_q, qb, q0, BR, seq_q);
    if (n_tiles > 0) {
        load_rows(s_k, kb, 0, BC, seq_kv);
        load_rows(s_v, vb, 0, BC, seq_kv);
    }
    if (!kLoads && n_tiles > 1) {
        load_rows(s_k + BC * D * 2, kb, BC, BC, seq_kv);
        load_rows(s_v + BC * D * 2, vb, BC, BC, seq_kv);
    }
    cp_async_commit();

    float acc[D / 8][4];
#pragma unroll
    for (int i = 0; i < D / 8; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
    float m0 = -INFINITY, m1 = -INFINITY;  // running max, log2 domain of scaled scores
    float l0 = 0.f, l1 = 0.f;              // running sums (per-thread partial over its columns)
    uint32_t qf[kQInRegs ? D / 16 : 1][4];

    const int wrow = warp * 16;            // first row of this warp in the tile
    for (int j = 0; j < n_tiles; ++j) {
        const int stage = j & 1;
        if (j + 1 < n_tiles) {
            const int ns = (j + 1) & 1;
            if (kLoads) {
                load_rows(s_k + ns * BC * D * 2, kb, (j + 1) * BC, BC, seq_kv);
                load_rows(s_v + ns * BC * D * 2, vb, (j + 1) * BC, BC, seq_kv);
            }
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
        if constexpr (!kMma) {
            __syncthreads();  // the loop's second barrier (stage `stage` is refilled next iteration)
            continue;
        }

        if (kQInRegs && j == 0) {
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk)
                q_fragment<D>(qf[kQInRegs ? kk : 0], s_q, wrow, kk, lane);
        }
        const uint32_t sk = s_k + stage * BC * D * 2;
        const uint32_t sv = s_v + stage * BC * D * 2;

        // S = Q K^T for this warp's 16 rows x BC columns.
        float s[BC / 8][4];
        qk_tile<T, BC, D>(
            s,
            [&](int kk, uint32_t(&a)[4]) {
                if constexpr (kQInRegs) {
                    a[0] = qf[kk][0]; a[1] = qf[kk][1]; a[2] = qf[kk][2]; a[3] = qf[kk][3];
                } else {
                    q_fragment<D>(a, s_q, wrow, kk, lane);
                }
            },
            sk, lane);

        // Mask columns past seq_kv and (causal) above the diagonal.
        const int col0 = j * BC;
        const bool need_mask = (col0 + BC > seq_kv) || (causal && col0 + BC - 1 > q0 + wrow);
        if (need_mask) mask_tile<BC>(s, col0, q0 + wrow + g, t, seq_kv, causal);

        // Online softmax (log2 domain): m_new = max(m, rowmax*scale*log2e); p = 2^(s*c - m_new).
        float mx0, mx1;
        row_max<BC>(s, mx0, mx1);
        mx0 = quad_max(mx0);
        mx1 = quad_max(mx1);
        const float mn0 = fmaxf(m0, mx0 * scale_log2);
        const float mn1 = fmaxf(m1, mx1 * scale_log2);
        const float base0 = (mn0 == -INFINITY) ? 0.f : mn0;
        const float base1 = (mn1 == -INFINITY) ? 0.f : mn1;
        const float alpha0 = exp2f(m0 - base0);
        const float alpha1 = exp2f(m1 - base1);
        m0 = mn0;
        m1 = mn1;
        float rs0, rs1;
        exp2_rows<BC>(s, scale_log2, base0, base1, rs0, rs1);
        l0 = l0 * alpha0 + rs0;
        l1 = l1 * alpha1 + rs1;
#pragma unroll
        for (int dt = 0; dt < D / 8; ++dt) {
            acc[dt][0] *= alpha0; acc[dt][1] *= alpha0;
            acc[dt][2] *= alpha1; acc[dt][3] *= alpha1;
        }

        // O += P V: P comes straight from the S accumulators as A fragments.
        pv_tile<T, BC, D>(acc, s, sv, lane);
        __syncthreads();  // stage `stage` is overwritten by the loads issued next iteration
    }

    // Epilogue: normalise, stage this warp's 16 rows in its own part of the Q tile, 16-B stores.
    l0 = quad_sum(l0);
    l1 = quad_sum(l1);
    const float inv0 = l0 > 0.f ? 1.f / l0 : 0.f;
    const float inv1 = l1 > 0.f ? 1.f / l1 : 0.f;
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
        const uint32_t r0 = P::pack(acc[dt][0] * inv0, acc[dt][1] * inv0);
        const uint32_t r1 = P::pack(acc[dt][2] * inv1, acc[dt][3] * inv1);
        *reinterpret_cast<uint32_t*>(smem + swz<kChunks>(wrow + g, dt) + 4 * t) = r0;
        *reinterpret_cast<uint32_t*>(smem + swz<kChunks>(wrow + g + 8, dt) + 4 * t) = r1;
    }
    __syncwarp();
    T* ob = o + bh * seq_q * D;
    for (int i = lane; i < 16 * kChunks; i += 32) {
        const int r = i / kChunks;
        const int c = i % kChunks;
        const int row = q0 + wrow + r;
        if (row < seq_q)
            *reinterpret_cast<uint4*>(ob + static_cast<int64_t>(row) * D + c * 8) =
                *reinterpret_cast<const uint4*>(smem + swz<kChunks>(wrow + r, c));
    }
    if (lse != nullptr && t == 0) {
        constexpr float kLn2 = 0.6931471805599453f;
        const int r0 = q0 + wrow + g;
        if (r0 < seq_q) lse[bh * seq_q + r0] = m0 * kLn2 + logf(l0);
        if (r0 + 8 < seq_q) lse[bh * seq_q + r0 + 8] = m1 * kLn2 + logf(l1);
    }
}

}  // namespace tilescope::kern
