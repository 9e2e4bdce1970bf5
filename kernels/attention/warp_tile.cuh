// attention/warp_tile: the steps of one warp's 16-row tile that both fused kernels (flash1, flash2)
// take in the same way: S = Q K^T into mma accumulators, the mask, the row maximum, the
// exponentials with their row sums, and O += P V from the exponentials left in the accumulators.
// What the two loop orders do differently (where Q, O, l and m live, when they are rescaled and
// stored) stays in each kernel.
//
// Fragment layout (mma.m16n8k16, kernels/common/ptx.cuh): a warp's 16 rows x BC columns of S sit in
// s[BC / 8][4]; lane (g = lane / 4, t = lane % 4) holds, in tile nt, columns nt*8 + 2t, +1 of row g
// (elements 0, 1) and of row g + 8 (elements 2, 3). So each thread's row quantities come in a pair,
// ...0 for row g and ...1 for row g + 8, and a row's four threads (one quad) reduce them together.
// Shared-memory tiles are row-major with kChunks = D / 8 16-byte chunks a row, swizzled (swz).
// Everything is forced inline: the kernels compile to what they compiled to when these lines were
// written out in each of them.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/common/ptx.cuh"

namespace tilescope::kern {

// s = Q K^T for the warp's 16 rows (starting at row `wrow` of the Q tile) and the BC rows of the K
// tile at shared address `sk`. `q_frag(kk, a)` fills a[4] with the A fragment of Q's columns
// kk*16 .. kk*16 + 15 (flash2 may keep them in registers; flash1 reads them with q_fragment).
template <class T, int BC, int D, class QFrag>
__device__ __forceinline__ void qk_tile(float (&s)[BC / 8][4], QFrag q_frag, uint32_t sk, int lane) {
    constexpr int kChunks = D / 8;
#pragma unroll
    for (int i = 0; i < BC / 8; ++i) s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        uint32_t a[4];
        q_frag(kk, a);
#pragma unroll
        for (int nn = 0; nn < BC / 16; ++nn) {
            uint32_t b[4];
            ldmatrix_x4(b, sk + swz<kChunks>(nn * 16 + (lane % 8) + (lane / 16) * 8, 2 * kk + (lane / 8) % 2));
            mma16816<T>(s[2 * nn], a, b[0], b[1]);
            mma16816<T>(s[2 * nn + 1], a, b[2], b[3]);
        }
    }
}

// The A fragment of columns kk*16 .. kk*16 + 15 of the warp's 16 rows of the Q tile at `sq`.
template <int D>
__device__ __forceinline__ void q_fragment(uint32_t (&a)[4], uint32_t sq, int wrow, int kk, int lane) {
    ldmatrix_x4(a, sq + swz<D / 8>(wrow + (lane % 8) + ((lane / 8) % 2) * 8, 2 * kk + lane / 16));
}

// Sets to -inf the scores of columns at or past seq_kv and, when causal, above the diagonal; the
// tile's first column is col0 and the thread's first row r0 (= the warp's first row + g).
template <int BC>
__device__ __forceinline__ void mask_tile(float (&s)[BC / 8][4], int col0, int r0, int t, int seq_kv, int causal) {
#pragma unroll
    for (int nt = 0; nt < BC / 8; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int col = col0 + nt * 8 + 2 * t + (e & 1);
            const int row = r0 + (e >> 1) * 8;
            if (col >= seq_kv || (causal && col > row)) s[nt][e] = -INFINITY;
        }
    }
}

// The thread's share of its two rows' maxima (not yet reduced over the quad).
template <int BC>
__device__ __forceinline__ void row_max(const float (&s)[BC / 8][4], float& mx0, float& mx1) {
    mx0 = -INFINITY;
    mx1 = -INFINITY;
#pragma unroll
    for (int nt = 0; nt < BC / 8; ++nt) {
        mx0 = fmaxf(mx0, fmaxf(s[nt][0], s[nt][1]));
        mx1 = fmaxf(mx1, fmaxf(s[nt][2], s[nt][3]));
    }
}

// s <- 2^(s * scale_log2 - base) (base0 for row g, base1 for row g + 8), and the thread's share of
// the two rows' sums of them (not yet reduced over the quad).
template <int BC>
__device__ __forceinline__ void exp2_rows(float (&s)[BC / 8][4], float scale_log2, float base0, float base1,
                                          float& sum0, float& sum1) {
    sum0 = 0.f;
    sum1 = 0.f;
#pragma unroll
    for (int nt = 0; nt < BC / 8; ++nt) {
        s[nt][0] = exp2f(fmaf(s[nt][0], scale_log2, -base0));
        s[nt][1] = exp2f(fmaf(s[nt][1], scale_log2, -base0));
        s[nt][2] = exp2f(fmaf(s[nt][2], scale_log2, -base1));
        s[nt][3] = exp2f(fmaf(s[nt][3], scale_log2, -base1));
        sum0 += s[nt][0] + s[nt][1];
        sum1 += s[nt][2] + s[nt][3];
    }
}

// acc += P V: P is the exponentials in s, packed to T as A fragments straight from the
// accumulators; V is the BC x D tile at shared address `sv`.
template <class T, int BC, int D>
__device__ __forceinline__ void pv_tile(float (&acc)[D / 8][4], const float (&s)[BC / 8][4], uint32_t sv, int lane) {
    constexpr int kChunks = D / 8;
    using P = Pack<T>;
#pragma unroll
    for (int kb2 = 0; kb2 < BC / 16; ++kb2) {
        uint32_t a[4];
        a[0] = P::pack(s[2 * kb2][0], s[2 * kb2][1]);
        a[1] = P::pack(s[2 * kb2][2], s[2 * kb2][3]);
        a[2] = P::pack(s[2 * kb2 + 1][0], s[2 * kb2 + 1][1]);
        a[3] = P::pack(s[2 * kb2 + 1][2], s[2 * kb2 + 1][3]);
#pragma unroll
        for (int dn = 0; dn < D / 16; ++dn) {
            uint32_t b[4];
            ldmatrix_x4_trans(b, sv + swz<kChunks>(kb2 * 16 + (lane % 8) + ((lane / 8) % 2) * 8, 2 * dn + lane / 16));
            mma16816<T>(acc[2 * dn], a, b[0], b[1]);
            mma16816<T>(acc[2 * dn + 1], a, b[2], b[3]);
        }
    }
}

}  // namespace tilescope::kern
