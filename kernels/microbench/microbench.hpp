// Microbenchmarks of the memory hierarchy and the tensor cores (host API, no CUDA headers).
// Each returns the achieved figure, timed with CUDA events (warm-up, median of repeats).
//   hbm_copy:     streaming copy of `bytes` (read + write counted), bytes/s
//   l2_read:      repeated reads of a buffer that fits in L2, bytes/s
//   smem_read:    16-byte shared-memory loads on every SM, bytes/s (whole GPU)
//   latency:      dependent pointer chase over `bytes` (stride 128 B, random order), ns per load
//                 (bytes << L2 size: L2 latency; bytes >> L2 size: HBM latency)
//   tensor_peak:  back-to-back mma.sync m16n8k16 fp16->fp32 on every SM, flop/s
//   launch_overhead: an empty kernel (one block of 32 threads), ns. Each timed launch is queued
//                 behind a short busy kernel, as a data-set case is queued behind its L2 flush,
//                 so the events see the GPU's own launch cost, not the host's submission.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.hpp"

namespace tilescope::kern {

struct MicrobenchResult {
    std::string name;
    double value = 0;        // the figure, in `unit`
    std::string unit;        // "bytes_per_s", "ns", "flops_per_s"
    double work = 0;         // bytes moved (or flops) per timed run
    double time_ns = 0;      // median time of one run
};

Result<MicrobenchResult> bench_hbm_copy(std::int64_t bytes, int repeats);
Result<MicrobenchResult> bench_l2_read(std::int64_t bytes, int repeats);
Result<MicrobenchResult> bench_smem_read(int repeats);
Result<MicrobenchResult> bench_latency(std::int64_t bytes, int steps);
Result<MicrobenchResult> bench_tensor_peak(int repeats);
Result<MicrobenchResult> bench_launch_overhead(int repeats);

// The streaming copy kernel alone (16-byte vectors, grid-stride), for counter checks.
// `bytes` must be a multiple of 16.
Status launch_copy(const void* src, void* dst, std::int64_t bytes, void* stream);

}  // namespace tilescope::kern
