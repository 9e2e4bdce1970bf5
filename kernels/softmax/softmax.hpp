// Host-side entry point of the row softmax kernels (no CUDA headers).
//   y[r, :] = softmax(x[r, :]) for rows x cols, row-major, fp16 or bf16, fp32 math.
// Variants: safe = 3 passes over the row (max; sum of exp(x - max); write), reading x in each;
//           online = 2 passes (running max and rescaled sum in one pass; write).
// Tile: m = rows per block (any in [1, 64]), warps in {1, 2, 4, 8, 16}, n = columns per block
// step = warps * 256 (every thread moves one 16-byte vector of 8 elements per step).
// cols must be a multiple of 8. Shared memory: only a static 2*warps*4-byte reduction scratch.
#pragma once

#include <cstdint>

#include "core/result.hpp"
#include "core/workload.hpp"
#include "kernels/common/facts.hpp"

namespace tilescope::kern {

struct SoftmaxArgs {
    const void* x = nullptr;
    void* y = nullptr;
    DType dtype = DType::fp16;
    std::int64_t rows = 0, cols = 0;
    SoftmaxVariant variant = SoftmaxVariant::safe;
    Tile tile;   // m = rows per block, n = warps * 256, warps
    // Causal mask for naive attention: when > 0, row r keeps only columns c <= r % causal_period
    // (the rows are batch*heads stacked seq_q x seq_kv score matrices; causal_period = seq_q).
    std::int64_t causal_period = 0;
    void* stream = nullptr;
};

Status softmax_supported(const SoftmaxArgs& s);
Status launch_softmax(const SoftmaxArgs& s);
Result<KernelFacts> softmax_facts(const SoftmaxArgs& s);

}  // namespace tilescope::kern
