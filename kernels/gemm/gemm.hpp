// Host-side entry point of the tiled GEMM (no CUDA headers).
//   C[b] = alpha * A[b] * op(B[b]),  A: M x K row-major (lda), C: M x N row-major (ldc),
//   op(B) = B (K x N row-major, ldb) or, with b_transposed, B^T for B stored N x K (ldb).
// Menu: tile (m, n) in {64, 128} x {64, 128}, tile k = 32, stages in {2, 3, 4},
// warps in {4 (2x2 warp grid), 8 (2x4)}; fp16 or bf16; K and N multiples of 8.
// Shared memory per block = stages * (tm*tk + tk*tn) * dtype_bytes.
#pragma once

#include <cstdint>

#include "core/result.hpp"
#include "core/workload.hpp"
#include "kernels/common/facts.hpp"

namespace tilescope::kern {

struct GemmArgs {
    const void* a = nullptr;
    const void* b = nullptr;
    void* c = nullptr;
    DType dtype = DType::fp16;
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t lda = 0, ldb = 0, ldc = 0;
    std::int64_t batch = 1;
    std::int64_t batch_stride_a = 0, batch_stride_b = 0, batch_stride_c = 0;
    float alpha = 1.0f;
    bool b_transposed = false;
    Raster raster = Raster::row;
    Tile tile;          // m, n, k, stages, warps
    void* stream = nullptr;
};

std::int64_t gemm_smem_bytes(const Tile& tile, int dtype_bytes);
Status gemm_supported(const GemmArgs& g);
Status launch_gemm(const GemmArgs& g);
Result<KernelFacts> gemm_facts(const GemmArgs& g);

}  // namespace tilescope::kern
