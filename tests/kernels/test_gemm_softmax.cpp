// GEMM and softmax kernels vs CPU float64 references (ragged sizes, both rasters, every
// stage count, both softmax variants).
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include "reference.hpp"

using namespace tilescope;

namespace {

double run_gemm(std::int64_t m, std::int64_t n, std::int64_t k, Tile t, Raster raster, DType dt, std::uint64_t seed) {
    Workload w;
    w.kernel = KernelFamily::gemm;
    w.dtype = dt;
    w.m = m;
    w.n = n;
    w.k = k;
    w.tile = t;
    w.raster = raster;
    auto r = kern::WorkloadRunner::create(w, seed);
    if (!r) FAIL(r.error().message);
    REQUIRE((*r)->run_all(nullptr).ok());
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<double> ref;
    test::gemm_reference(test::download(**r, "A"), test::download(**r, "B"), m, n, k, ref);
    return test::rel_error(test::download(**r, "C"), ref);
}

double run_softmax(std::int64_t rows, std::int64_t cols, SoftmaxVariant v, int warps, int rows_per_block, DType dt,
                   std::uint64_t seed) {
    Workload w;
    w.kernel = KernelFamily::softmax;
    w.dtype = dt;
    w.rows = rows;
    w.cols = cols;
    w.variant = v;
    w.tile = Tile{rows_per_block, warps * 256, 0, 1, warps};
    auto r = kern::WorkloadRunner::create(w, seed);
    if (!r) FAIL(r.error().message);
    REQUIRE((*r)->run_all(nullptr).ok());
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<double> ref;
    test::softmax_reference(test::download(**r, "x"), rows, cols, ref);
    return test::rel_error(test::download(**r, "y"), ref);
}

}  // namespace

TEST_CASE("gemm matches the float64 reference over the menu", "[gemm]") {
    for (int tm : {64, 128})
        for (int tn : {64, 128})
            for (int stages : {2, 3, 4})
                for (int warps : {4, 8}) {
                    const double e = run_gemm(200, 136, 72, Tile{tm, tn, 32, stages, warps}, Raster::row, DType::fp16, 5);
                    INFO("tile " << tm << "x" << tn << " stages " << stages << " warps " << warps << " err " << e);
                    CHECK(e <= 1e-2);
                }
    CHECK(run_gemm(512, 256, 1024, Tile{128, 128, 32, 3, 8}, Raster::column, DType::fp16, 6) <= 1e-2);
    CHECK(run_gemm(384, 512, 256, Tile{128, 64, 32, 2, 4}, Raster::row, DType::bf16, 7) <= 1e-2);
}

TEST_CASE("softmax safe and online variants match the float64 reference", "[softmax]") {
    for (SoftmaxVariant v : {SoftmaxVariant::safe, SoftmaxVariant::online}) {
        CHECK(run_softmax(37, 1000, v, 4, 1, DType::fp16, 8) <= 1e-2);
        CHECK(run_softmax(64, 4096, v, 4, 3, DType::fp16, 9) <= 1e-2);
        CHECK(run_softmax(16, 520, v, 1, 2, DType::bf16, 10) <= 1e-2);
        CHECK(run_softmax(8, 8192, v, 8, 1, DType::fp16, 11) <= 1e-2);
    }
}
