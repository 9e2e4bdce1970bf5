// Public GEMM entry points: menu checks and dispatch to the per-(dtype, layout) instantiations.
#include <string>

#include "kernels/gemm/gemm_run.cuh"

namespace tilescope::kern {

namespace {
Status run(const GemmArgs& g, KernelFacts* facts) {
    Status st = gemm_supported(g);
    if (!st) return st;
    if (g.dtype == DType::fp16)
        return g.b_transposed ? gemm_run<__half, true>(g, facts) : gemm_run<__half, false>(g, facts);
    return g.b_transposed ? gemm_run<__nv_bfloat16, true>(g, facts) : gemm_run<__nv_bfloat16, false>(g, facts);
}
}  // namespace

std::int64_t gemm_smem_bytes(const Tile& tile, int dtype_bytes) {
    return static_cast<std::int64_t>(tile.stages) * (tile.m * tile.k + tile.k * tile.n) * dtype_bytes;
}

Status gemm_supported(const GemmArgs& g) {
    if (g.dtype != DType::fp16 && g.dtype != DType::bf16)
        return make_error("gemm kernel supports --dtype fp16 or bf16 only");
    if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return make_error("gemm kernel needs positive m, n, k");
    if (g.k % 8 != 0 || g.n % 8 != 0)
        return make_error("gemm kernel needs k and n to be multiples of 8 (got k=" + std::to_string(g.k) +
                          ", n=" + std::to_string(g.n) + ")");
    if (g.m > (1LL << 30) || g.n > (1LL << 30) || g.k > (1LL << 30) || g.batch > 65535)
        return make_error("gemm kernel: sizes must be <= 2^30 and batch <= 65535");
    const Tile& t = g.tile;
    const bool tile_ok = (t.m == 64 || t.m == 128) && (t.n == 64 || t.n == 128) && t.k == 32;
    const bool st_ok = t.stages >= 2 && t.stages <= 4 && (t.warps == 4 || t.warps == 8);
    if (!tile_ok || !st_ok)
        return make_error("gemm kernel tile " + std::to_string(t.m) + "x" + std::to_string(t.n) + "x" +
                          std::to_string(t.k) + " stages " + std::to_string(t.stages) + " warps " +
                          std::to_string(t.warps) +
                          " is not in the menu {64,128}x{64,128}x32, stages {2,3,4}, warps {4,8}");
    const int64_t tiles = ((g.m + t.m - 1) / t.m) * ((g.n + t.n - 1) / t.n);
    if (tiles > 0x7fffffffLL) return make_error("gemm kernel: too many tiles for one launch");
    return Status::success();
}

Status launch_gemm(const GemmArgs& g) { return run(g, nullptr); }

Result<KernelFacts> gemm_facts(const GemmArgs& g) {
    KernelFacts f;
    Status st = run(g, &f);
    if (!st) return st.error();
    return f;
}

}  // namespace tilescope::kern
