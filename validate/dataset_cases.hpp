// The cases of the committed validation data set (profiles/validation/), as WorkloadSpecs.
// `tilescope calibrate --measure-dataset FILE` measures exactly these (plus the
// microbenchmarks) on the local GPU; the train / held-out split is then validate/split.hpp's.
//
//   attention-naive, -flash1, -flash2 forward, fp16, non-causal,
//     d in {64, 128}, N in {512, 1024, 2048, 4096, 8192, 16384},
//     16k tokens per batch (batch = 16384 / N), hidden 2048 (heads = 2048 / d);
//     flash1/flash2: every (Br, Bc) in {32, 64, 128}^2 (warps = Br / 16);
//     naive: every GEMM tile (m, n) in {64, 128}^2 of the kernel menu (tile k 32, stages 2,
//     8 warps), softmax 1 row per block.
//   gemm fp16: 8 shapes (square, tall, wide, deep; multiples of 128, at most 4096^3 of work)
//     x tiles (m, n) in {64, 128}^2 (k 32, stages 3, 8 warps)  = 32 cases.
//   softmax fp16: safe and online, 15 shapes x warps {1, 2, 4} (n = warps * 256, 1 row/block)
//     = 90 cases: 16384 x 1024, 16384 x 4096, 4096 x 16384, 65536 x 2048, and the rest of the
//     grid rows x cols = 2^24 and 2^26 elements, cols = 512 ... 32768 (powers of two).
#pragma once

#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope::validate {

std::vector<WorkloadSpec> dataset_case_specs();

// The data-set cases as workloads, in dataset_case_specs() order: the training half only if
// `training_only`, and, if `matching` is not empty, only those whose case name (split.hpp)
// contains one of its strings. An error if a spec does not validate or nothing matches.
Result<std::vector<Workload>> dataset_cases(bool training_only, const std::vector<std::string>& matching);

}  // namespace tilescope::validate
