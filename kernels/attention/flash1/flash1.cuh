// attention/flash1: fused attention forward, FlashAttention-1 loop order (the teaching contrast
// to flash2).
//
// What: one block per (batch, head). Outer loop over K/V tiles j (Bc rows each, loaded once
// into shared memory); inner loop over Q tiles i (Br rows): load Q_i, O_i (stored normalised,
// in the input type), l_i and m_i from HBM, compute S_ij = Q_i K_j^T, the tile's row max m~ and
// row sum l~ of P~ = exp(S - m~), then
//     m_new = max(m_i, m~),  l_new = e^(m_i - m_new) l_i + e^(m~ - m_new) l~,
//     O_i  <- (l_i e^(m_i - m_new) O_i + e^(m~ - m_new) P~ V_j) / l_new
// and write O_i, l_i, m_i back. So O, l and m make a round trip through HBM on every outer
// step: the extra traffic that flash2's loop order removes.
// Each warp owns 16 rows of the Q tile and loads/stores those rows itself (warp-local, no
// block barrier inside the inner loop). On the first outer step (j = 0) O, l, m are not read
// (they are known to be 0, 0, -inf); every later step reads them.
// Shared memory per block = (Br*d (Q_i) + Br*d (O_i) + 2*Bc*d (K_j, V_j)) * sizeof(T) + 2*Br*4.
// Hooks (kernels/common/hooks.cuh; the tool's launches use NoHooks, which compiles to nothing):
// every thread calls Hooks::at(point) at 0 (entry), 1 (an outer step begins, before its barrier),
// 2 (its K_j/V_j are in shared memory, after the barrier), 3 (an inner step begins: its warp-local
// loads are issued next), 4 (the step's Q_i, O_i, l_i, m_i are in shared memory), 5 (its S, softmax
// and P V are computed, before the O_i update), 6 (its O_i, l_i, m_i stores are issued) and 7
// (exit); tilescope-flash1-step-probe times the segments between them per warp. Hooks::kStores
// false (that probe only) skips the global stores of O_i, l_i and m_i (the step's shared-memory
// work stays), so what the stores cost the loop is measured.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/warp_tile.cuh"
#include "kernels/common/hooks.cuh"
#include "kernels/common/ptx.cuh"

namespace tilescope::kern {

template <class T, int BR, int BC, int D, class Hooks = NoHooks>
__global__ void __launch_bounds__(BR * 2)
    flash1_fwd_kernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v, T* __restrict__ o,
                      float* __restrict__ l_ws, float* __restrict__ m_ws, int seq_q, int seq_kv, float scale_log2,
                      int causal) {
    constexpr int kThreads = BR * 2;
    constexpr int kChunks = D / 8;
    using P = Pack<T>;

    extern __shared__ __align__(128) unsigned char smem[];
    unsigned char* p_o = smem + BR * D * 2;
    const uint32_t s_q = smem_u32(smem);
    const uint32_t s_o = s_q + BR * D * 2;
    const uint32_t s_k = s_o + BR * D * 2;
    const uint32_t s_v = s_k + BC * D * 2;
    float* s_l = reinterpret_cast<float*>(smem + (2 * BR * D + 2 * BC * D) * 2);
    float* s_m = s_l + BR;

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    const int wrow = warp * 16;
    const int64_t bh = blockIdx.x;
    const T* qb = q + bh * seq_q * D;
    const T* kb = k + bh * seq_kv * D;
    const T* vb = v + bh * seq_kv * D;
    T* ob = o + bh * seq_q * D;
    float* lb = l_ws + bh * seq_q;
    float* mb = m_ws + bh * seq_q;

    const int n_kv = (seq_kv + BC - 1) / BC;
    const int n_q = (seq_q + BR - 1) / BR;
    Hooks::at(0);
    for (int j = 0; j < n_kv; ++j) {
        Hooks::at(1);
        __syncthreads();  // every warp is done with the previous K/V tile
        for (int i = tid; i < BC * kChunks; i += kThreads) {
            const int r = i / kChunks, c = i % kChunks;
            const bool ok = j * BC + r < seq_kv;
            const int64_t off = ok ? static_cast<int64_t>(j * BC + r) * D + c * 8 : 0;
            cp_async16(s_k + swz<kChunks>(r, c), kb + off, ok);
            cp_async16(s_v + swz<kChunks>(r, c), vb + off, ok);
        }
        cp_async_commit();
        cp_async_wait<0>();
        __syncthreads();
        Hooks::at(2);

        const int i_start = causal ? (j * BC) / BR : 0;
        for (int qi = i_start; qi < n_q; ++qi) {
            const int q0 = qi * BR;
            Hooks::at(3);
            // Warp-local loads of this warp's 16 rows of Q_i, O_i, l_i, m_i.
            for (int idx = lane; idx < 16 * kChunks; idx += 32) {
                const int r = idx / kChunks, c = idx % kChunks;
                const int row = q0 + wrow + r;
                const bool ok = row < seq_q;
                const int64_t off = ok ? static_cast<int64_t>(row) * D + c * 8 : 0;
                cp_async16(s_q + swz<kChunks>(wrow + r, c), qb + off, ok);
                if (j > 0) cp_async16(s_o + swz<kChunks>(wrow + r, c), ob + off, ok);
            }
            cp_async_commit();
            if (j > 0) {
                const int r = lane % 16;
                const int row = q0 + wrow + r;
                if (lane < 16) s_l[wrow + r] = row < seq_q ? lb[row] : 0.f;
                else s_m[wrow + r] = row < seq_q ? mb[row] : -INFINITY;
            }
            cp_async_wait<0>();
            __syncwarp();
            Hooks::at(4);

            float s[BC / 8][4];
            qk_tile<T, BC, D>(s, [&](int kk, uint32_t(&a)[4]) { q_fragment<D>(a, s_q, wrow, kk, lane); }, s_k, lane);
            const int col0 = j * BC;
            const int r0 = q0 + wrow + g;
            if ((col0 + BC > seq_kv) || (causal && col0 + BC - 1 > q0 + wrow)) mask_tile<BC>(s, col0, r0, t, seq_kv, causal);
            float mx0, mx1;
            row_max<BC>(s, mx0, mx1);
            const float mt0 = quad_max(mx0) * scale_log2;   // m~ (log2 domain)
            const float mt1 = quad_max(mx1) * scale_log2;
            const float base0 = mt0 == -INFINITY ? 0.f : mt0;
            const float base1 = mt1 == -INFINITY ? 0.f : mt1;
            float lt0, lt1;
            exp2_rows<BC>(s, scale_log2, base0, base1, lt0, lt1);
            lt0 = quad_sum(lt0);
            lt1 = quad_sum(lt1);

            float pv[D / 8][4];
#pragma unroll
            for (int x = 0; x < D / 8; ++x) pv[x][0] = pv[x][1] = pv[x][2] = pv[x][3] = 0.f;
            pv_tile<T, BC, D>(pv, s, s_v, lane);

            Hooks::at(5);
            const float mo0 = j > 0 ? s_m[wrow + g] : -INFINITY;
            const float mo1 = j > 0 ? s_m[wrow + g + 8] : -INFINITY;
            const float lo0 = j > 0 ? s_l[wrow + g] : 0.f;
            const float lo1 = j > 0 ? s_l[wrow + g + 8] : 0.f;
            const float mn0 = fmaxf(mo0, mt0), mn1 = fmaxf(mo1, mt1);
            const float b0 = mn0 == -INFINITY ? 0.f : mn0, b1 = mn1 == -INFINITY ? 0.f : mn1;
            const float eo0 = exp2f(mo0 - b0), et0 = exp2f(mt0 - b0);
            const float eo1 = exp2f(mo1 - b1), et1 = exp2f(mt1 - b1);
            const float ln0 = eo0 * lo0 + et0 * lt0;
            const float ln1 = eo1 * lo1 + et1 * lt1;
            const float inv0 = ln0 > 0.f ? 1.f / ln0 : 0.f;
            const float inv1 = ln1 > 0.f ? 1.f / ln1 : 0.f;
#pragma unroll
            for (int dt = 0; dt < D / 8; ++dt) {
                unsigned char* p0 = p_o + swz<kChunks>(wrow + g, dt) + 4 * t;
                unsigned char* p1 = p_o + swz<kChunks>(wrow + g + 8, dt) + 4 * t;
                float2 old0 = make_float2(0.f, 0.f), old1 = make_float2(0.f, 0.f);
                if (j > 0) {
                    old0 = P::unpack(*reinterpret_cast<const uint32_t*>(p0));
                    old1 = P::unpack(*reinterpret_cast<const uint32_t*>(p1));
                }
                *reinterpret_cast<uint32_t*>(p0) =
                    P::pack((lo0 * eo0 * old0.x + et0 * pv[dt][0]) * inv0, (lo0 * eo0 * old0.y + et0 * pv[dt][1]) * inv0);
                *reinterpret_cast<uint32_t*>(p1) =
                    P::pack((lo1 * eo1 * old1.x + et1 * pv[dt][2]) * inv1, (lo1 * eo1 * old1.y + et1 * pv[dt][3]) * inv1);
            }
            __syncwarp();
            if constexpr (Hooks::kStores) {
                for (int idx = lane; idx < 16 * kChunks; idx += 32) {
                    const int r = idx / kChunks, c = idx % kChunks;
                    const int row = q0 + wrow + r;
                    if (row < seq_q)
                        *reinterpret_cast<uint4*>(ob + static_cast<int64_t>(row) * D + c * 8) =
                            *reinterpret_cast<const uint4*>(p_o + swz<kChunks>(wrow + r, c));
                }
                if (t == 0) {
                    if (r0 < seq_q) { lb[r0] = ln0; mb[r0] = mn0; }
                    if (r0 + 8 < seq_q) { lb[r0 + 8] = ln1; mb[r0 + 8] = mn1; }
                }
            }
            __syncwarp();  // this warp's rows of s_q / s_o / s_l / s_m are reused next
            Hooks::at(6);
        }
    }
    Hooks::at(7);
}

}  // namespace tilescope::kern
