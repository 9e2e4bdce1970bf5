// gemm_run<T, kBNMajor>(): picks the (tile, stages, warps) instantiation of gemm_kernel.
// Each (T, layout) pair is instantiated in its own .cu file (parallel compilation).
#pragma once

#include <string>

#include "kernels/common/launch.cuh"
#include "kernels/gemm/gemm.cuh"
#include "kernels/gemm/gemm.hpp"

namespace tilescope::kern {

template <class T, int TM, int TN, int TK, int STAGES, int WM, int WN, bool kBNMajor>
Status gemm_launch_one(const GemmArgs& g, KernelFacts* facts) {
    const int64_t tiles = ((g.m + TM - 1) / TM) * ((g.n + TN - 1) / TN);
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(g.batch));
    const dim3 block(WM * WN * 32);
    const size_t smem = static_cast<size_t>(STAGES * (TM * TK + TK * TN)) * sizeof(T);
    return launch_or_facts(gemm_kernel<T, TM, TN, TK, STAGES, WM, WN, kBNMajor>, grid, block, smem, g.stream, facts,
                           static_cast<const T*>(g.a), static_cast<const T*>(g.b), static_cast<T*>(g.c),
                           static_cast<int>(g.m), static_cast<int>(g.n), static_cast<int>(g.k), g.lda, g.ldb, g.ldc,
                           g.batch_stride_a, g.batch_stride_b, g.batch_stride_c, g.alpha,
                           g.raster == Raster::column ? 1 : 0);
}

template <class T, bool kBNMajor>
Status gemm_run(const GemmArgs& g, KernelFacts* facts) {
    const Tile& t = g.tile;
#define TS_G(TM_, TN_, S_, W_, WM_, WN_)                                       \
    if (t.m == TM_ && t.n == TN_ && t.k == 32 && t.stages == S_ && t.warps == W_) \
        return gemm_launch_one<T, TM_, TN_, 32, S_, WM_, WN_, kBNMajor>(g, facts);
#define TS_G_TILE(TM_, TN_) \
    TS_G(TM_, TN_, 2, 4, 2, 2) TS_G(TM_, TN_, 3, 4, 2, 2) TS_G(TM_, TN_, 4, 4, 2, 2) \
    TS_G(TM_, TN_, 2, 8, 2, 4) TS_G(TM_, TN_, 3, 8, 2, 4) TS_G(TM_, TN_, 4, 8, 2, 4)
    TS_G_TILE(64, 64) TS_G_TILE(64, 128) TS_G_TILE(128, 64) TS_G_TILE(128, 128)
#undef TS_G_TILE
#undef TS_G
    return make_error("gemm: tile " + std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k) +
                      " stages " + std::to_string(t.stages) + " warps " + std::to_string(t.warps) +
                      " is not in the menu {64,128}x{64,128}x32, stages {2,3,4}, warps {4,8}");
}

extern template Status gemm_run<__half, false>(const GemmArgs&, KernelFacts*);
extern template Status gemm_run<__half, true>(const GemmArgs&, KernelFacts*);
extern template Status gemm_run<__nv_bfloat16, false>(const GemmArgs&, KernelFacts*);
extern template Status gemm_run<__nv_bfloat16, true>(const GemmArgs&, KernelFacts*);

}  // namespace tilescope::kern
