// gemm: tiled tensor-core GEMM with a cp.async multi-stage shared-memory pipeline.
//
// What: C[b] (M x N) = alpha * A[b] (M x K, row-major) * op(B[b]), fp32 accumulation, C stored
// in the input type. op(B) is B for a K x N row-major B (`kBNMajor` false: the gemm family and
// naive attention's O = P V) or B^T for an N x K row-major B (`kBNMajor` true: S = Q K^T).
// One block computes a TM x TN tile of C; its warps form a WM x WN grid, each warp a
// (TM/WM) x (TN/WN) sub-tile of mma m16n8k16. The K loop runs in steps of TK with STAGES
// shared-memory buffers: the loads of step k+STAGES-1 are in flight while step k computes.
// Shared memory per block = STAGES * (TM*TK + TK*TN) * sizeof(T), no padding (XOR swizzle).
// Loop order: by default an iteration waits for its oldest tile (`cp.async.wait_group STAGES-2`)
// and a barrier, then issues the loads of step k+STAGES-1 (at most STAGES-1 tiles in flight while
// it waits). With kIssueFirst (used only by tilescope-gemm-order-probe, docs/validation change 55)
// it is FlashAttention-2's order: a barrier (every warp is done with the buffer being refilled),
// issue step k+STAGES-1, then wait for step k (`wait_group STAGES-1`) and a barrier, so STAGES
// tiles are in flight while it waits. Both orders do the same arithmetic in the same order.
// Block order (raster): row = blockIdx walks the N tiles fastest, column = the M tiles fastest.
// Hooks: every thread calls Hooks::at(0) on entry, at(1) once its K loop's copies are done and
// at(2) after its stores. NoHooks (every kernel the tool runs) compiles to nothing;
// tilescope-qk-timeline-probe (docs/validation changes 60-61) records per-block clocks with them.
// Hooks::kStores false (that probe only) skips the epilogue's stores unless raster_column < 0,
// which no caller passes: the compiler cannot drop the K loop's arithmetic, and the block issues
// no store, so the probe sees the same blocks without their store traffic.
// Hooks::kMma false (tilescope-loop-overlap-probe only, docs/validation change 63) skips the K
// loop's ldmatrix and mma (the loads, waits and barriers stay; the block stores zeros); Hooks::
// kLoads false (that probe only) fills all STAGES buffers in the prologue and issues no load in
// the K loop (iteration kt computes on buffer kt % STAGES, so C = sum over kt of the product of
// step (kt % STAGES)'s tiles). A Hooks type without these members gets true (kernels/common/hooks.cuh).
// Ragged M, N, K are handled by zero-filled loads and bounds-checked stores; K and N must be
// multiples of 8 (16-byte rows of the tiles).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/hooks.cuh"
#include "kernels/common/ptx.cuh"

namespace tilescope::kern {

template <class T, int TM, int TN, int TK, int STAGES, int WM, int WN, bool kBNMajor, bool kIssueFirst = false,
          class Hooks = NoHooks>
__global__ void __launch_bounds__(WM * WN * 32)
    gemm_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int m, int n, int k,
                int64_t lda, int64_t ldb, int64_t ldc, int64_t batch_stride_a, int64_t batch_stride_b,
                int64_t batch_stride_c, float alpha, int raster_column) {
    constexpr int kThreads = WM * WN * 32;
    constexpr int kWTM = TM / WM;
    constexpr int kWTN = TN / WN;
    constexpr int kMI = kWTM / 16;
    constexpr int kNI = kWTN / 8;
    static_assert(kWTM % 16 == 0 && kWTN % 16 == 0, "warp tile must be a multiple of 16x16");
    constexpr int kCA = TK / 8;                       // chunks per A-tile row
    constexpr int kCB = kBNMajor ? TK / 8 : TN / 8;   // chunks per B-tile row
    constexpr int kStageA = TM * TK * 2;              // bytes
    constexpr int kStageB = TK * TN * 2;
    using P = Pack<T>;
    constexpr bool kMma = HookMma<Hooks>::value;
    constexpr bool kLoads = HookLoads<Hooks>::value;

    Hooks::at(0);
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t s_a = smem_u32(smem);
    const uint32_t s_b = s_a + STAGES * kStageA;

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int warp_m = warp / WN;
    const int warp_n = warp % WN;

    const int tiles_m = (m + TM - 1) / TM;
    const int tiles_n = (n + TN - 1) / TN;
    const int bid = static_cast<int>(blockIdx.x);
    const int tile_m = raster_column ? bid % tiles_m : bid / tiles_n;
    const int tile_n = raster_column ? bid / tiles_m : bid % tiles_n;
    const int m0 = tile_m * TM;
    const int n0 = tile_n * TN;
    a += blockIdx.y * batch_stride_a;
    b += blockIdx.y * batch_stride_b;
    c += blockIdx.y * batch_stride_c;

    auto load_stage = [&](int stage, int kt) {
        const int k0 = kt * TK;
        const uint32_t sa = s_a + stage * kStageA;
        for (int i = tid; i < TM * kCA; i += kThreads) {
            const int r = i / kCA, ch = i % kCA;
            const bool ok = (m0 + r < m) && (k0 + ch * 8 < k);
            const T* src = ok ? a + static_cast<int64_t>(m0 + r) * lda + k0 + ch * 8 : a;
            cp_async16(sa + swz<kCA>(r, ch), src, ok);
        }
        const uint32_t sb = s_b + stage * kStageB;
        if constexpr (kBNMajor) {
            for (int i = tid; i < TN * kCB; i += kThreads) {
                const int r = i / kCB, ch = i % kCB;
                const bool ok = (n0 + r < n) && (k0 + ch * 8 < k);
                const T* src = ok ? b + static_cast<int64_t>(n0 + r) * ldb + k0 + ch * 8 : b;
                cp_async16(sb + swz<kCB>(r, ch), src, ok);
            }
        } else {
            for (int i = tid; i < TK * kCB; i += kThreads) {
                const int r = i / kCB, ch = i % kCB;
                const bool ok = (k0 + r < k) && (n0 + ch * 8 < n);
                const T* src = ok ? b + static_cast<int64_t>(k0 + r) * ldb + n0 + ch * 8 : b;
                cp_async16(sb + swz<kCB>(r, ch), src, ok);
            }
        }
    };

    float acc[kMI][kNI][4];
#pragma unroll
    for (int i = 0; i < kMI; ++i)
#pragma unroll
        for (int j = 0; j < kNI; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;

    const int k_tiles = (k + TK - 1) / TK;
#pragma unroll
    for (int s = 0; s < (kLoads ? STAGES - 1 : STAGES); ++s) {
        if (s < k_tiles) load_stage(s, s);
        cp_async_commit();
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int next = kt + STAGES - 1;
        if constexpr (kIssueFirst) {
            __syncthreads();  // buffer next % STAGES was step kt-1's: every warp is done with it
            if (kLoads && next < k_tiles) load_stage(next % STAGES, next);
            cp_async_commit();
            cp_async_wait<STAGES - 1>();
            __syncthreads();
        } else {
            cp_async_wait<STAGES - 2>();
            __syncthreads();
            if (kLoads && next < k_tiles) load_stage(next % STAGES, next);
            cp_async_commit();
        }
        if constexpr (!kMma) continue;

        const int stage = kt % STAGES;
        const uint32_t sa = s_a + stage * kStageA;
        const uint32_t sb = s_b + stage * kStageB;
#pragma unroll
        for (int kk = 0; kk < TK / 16; ++kk) {
            uint32_t af[kMI][4];
#pragma unroll
            for (int mi = 0; mi < kMI; ++mi)
                ldmatrix_x4(af[mi], sa + swz<kCA>(warp_m * kWTM + mi * 16 + (lane % 8) + ((lane / 8) % 2) * 8,
                                                  2 * kk + lane / 16));
#pragma unroll
            for (int nj = 0; nj < kNI / 2; ++nj) {
                uint32_t bf[4];
                if constexpr (kBNMajor) {
                    ldmatrix_x4(bf, sb + swz<kCB>(warp_n * kWTN + nj * 16 + (lane % 8) + (lane / 16) * 8,
                                                  2 * kk + (lane / 8) % 2));
                } else {
                    ldmatrix_x4_trans(bf, sb + swz<kCB>(kk * 16 + (lane % 8) + ((lane / 8) % 2) * 8,
                                                        (warp_n * kWTN + nj * 16) / 8 + lane / 16));
                }
#pragma unroll
                for (int mi = 0; mi < kMI; ++mi) {
                    mma16816<T>(acc[mi][2 * nj], af[mi], bf[0], bf[1]);
                    mma16816<T>(acc[mi][2 * nj + 1], af[mi], bf[2], bf[3]);
                }
            }
        }
    }
    cp_async_wait<0>();
    Hooks::at(1);

    const int g = lane / 4, t = lane % 4;
    const bool store = Hooks::kStores || raster_column < 0;
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) {
#pragma unroll
        for (int ni = 0; ni < kNI; ++ni) {
            const int row = m0 + warp_m * kWTM + mi * 16 + g;
            const int col = n0 + warp_n * kWTN + ni * 8 + 2 * t;
            if (store && col < n) {
                if (row < m)
                    *reinterpret_cast<uint32_t*>(c + static_cast<int64_t>(row) * ldc + col) =
                        P::pack(acc[mi][ni][0] * alpha, acc[mi][ni][1] * alpha);
                if (row + 8 < m)
                    *reinterpret_cast<uint32_t*>(c + static_cast<int64_t>(row + 8) * ldc + col) =
                        P::pack(acc[mi][ni][2] * alpha, acc[mi][ni][3] * alpha);
            }
        }
    }
    Hooks::at(2);
}

}  // namespace tilescope::kern
