// Measurement harness: runs a Workload's real kernels and returns a core Measurement
// (= Prediction with model "measured") with the same metric names as the models, per launch
// and in total, plus launch facts and provenance. CUDA-free interface (CLI and GUI include it).
//
// Per workload: inputs are random (seeded), outputs poisoned; the launch sequence is timed with
// CUDA events (warm-up runs, then `repeats` runs, L2 flushed before each by reading a buffer of
// 2x the L2 size; the median per launch is reported as gpu__time_duration.sum), then run once
// more under the CUPTI range profiler (auto range = one range per kernel, kernel replay).
//
// Counter -> metric mapping (H100 / sm_90 names; per range):
//   dram__bytes_read.sum, dram__bytes_write.sum, lts__t_bytes.sum   as is
//   smem__bytes_read.sum  = l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum * 128
//                           (a wavefront is one pass of the 128-B shared-memory data path: LDS and
//                           LDSM/ldmatrix; equals bytes for conflict-free 16-B / ldmatrix access,
//                           bank conflicts and narrow accesses inflate it; no hardware counter
//                           "smem__bytes_read" exists, and the sass byte counters read 0 for LDSM)
//   smem__bytes_write.sum = ..._cmd_write.sum * 128 (STS) + smsp__inst_executed_op_ldgsts.sum * 512
//                           (cp.async does not appear in the LSU write wavefronts; every cp.async in
//                           kernels/ is 16 B per lane with full warps, so one LDGSTS = 512 B)
//   flops_tensor          = sm__inst_executed_pipe_tensor_op_hmma.sum * 4096
//                           (each HMMA.16816 warp instruction is 16*8*16 FMAs = 4096 flops)
//   flops_fp32, flops     NaN (not measured): the range profiler's sm__sass_thread_inst_executed_op_f*
//                           counters disagreed with Nsight Compute on H100 (FMUL read ~0); extra
//                           "tensor_tflops" gives the tensor-core rate instead
//   sfu_ops               = sm__inst_executed_pipe_xu.sum * 32 (XU-pipe warp instructions x 32 lanes;
//                           includes conversions, so an upper bound on transcendental ops)
//   gpu__time_duration.sum = median CUDA-event time (CUPTI's own value is in extra
//                           "cupti_gpu_time_duration_ns"; it is taken under replay)
//   extra: smem_wavefronts_read/write (l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_*.sum),
//          ldgsts/ldsm warp instruction counts, time_min_ns, time_max_ns, hbm_bytes_per_s,
//          l2_bytes_per_s, tensor_tflops.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/prediction.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope::kern {

struct MeasureOptions {
    int warmup = 3;
    int repeats = 20;
    bool counters = true;      // run the CUPTI pass
    bool flush_l2 = true;
    std::uint64_t seed = 1;
    std::string gpu_label;     // Measurement::gpu (e.g. the profile name); empty -> device name
};

enum class GpuState { ok, no_gpu, no_permission, error };
struct GpuCheck {
    GpuState state = GpuState::error;
    std::string message;       // one line, says which problem
    std::string gpu_name;
};

// Is there a CUDA GPU and (when need_counters) may this process read its counters? The
// counter check runs one tiny kernel under the CUPTI range profiler.
GpuCheck check_gpu(bool need_counters);
// Same, as a Status whose message starts with "no CUDA GPU" or "no profiling permission".
Status gpu_status();

class Measurer {
public:
    static Result<std::unique_ptr<Measurer>> create(const MeasureOptions& options);
    ~Measurer();
    Measurer(const Measurer&) = delete;
    Measurer& operator=(const Measurer&) = delete;

    Result<Measurement> measure(const Workload& w);
    const std::map<std::string, std::string>& provenance() const { return provenance_; }

private:
    Measurer() = default;
    struct Impl;
    std::unique_ptr<Impl> impl_;
    MeasureOptions options_;
    std::map<std::string, std::string> provenance_;
};

Result<Measurement> measure(const Workload& w, const MeasureOptions& options);

// The commit this library was built from (CMake-configured), "unknown" outside a git checkout.
std::string build_commit();

}  // namespace tilescope::kern
