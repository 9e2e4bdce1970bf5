// segment_stream_replay: tilescope-segment-stream-probe's loops (kernels/tools/segment_stream_probe.cu)
// predicted by the simulator, so that the model's load round trip can be put next to the one the
// probe measured (docs/validation change 62; bench/scripts/segment_stream_summary.py joins the two).
// Not a test.
//
// Each configuration of the probe's timed grid (kernels/tools/segment_stream_grid.hpp) becomes one
// launch: blocks of 256 threads, each reading its R rows of a 2 GiB matrix in steps of W bytes per
// row (strided, as naive attention's P V reads P) or R x W contiguous bytes (dense), in the GEMM
// kernel's wait-then-issue loop of S stages (Launch::loads_after_wait), optionally with an
// L2-resident tile per step (every block the same buffer); per step: the load(s), their arrival
// in shared memory (smem_fill), the barrier, and the read-back of the stage (smem_read, the
// probe's XOR: 4 FP32 operations per 16 bytes). The launch's shared memory per block is what lets
// the probe's blocks per SM share an SM on the profile's GPU (the probe's own rule).
//
// Usage: segment_stream_replay [--gpu calibrated/h200] [--exact] [--stages S]
//   --gpu: a bundled profile name or a profile JSON's path; --exact: no coarsening (slower);
//   --stages: only the configurations of S stages (2, 3 or 4).
// Prints one JSON object per configuration (the probe's keys, plus "ms_model" and the model's
// blocks per SM); configurations the profile cannot hold are left out, as the probe leaves them.
#include <cstdio>
#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "core/launch.hpp"
#include "core/lower_detail.hpp"
#include "core/occupancy.hpp"
#include "core/workload.hpp"
#include "kernels/tools/segment_stream_grid.hpp"
#include "simulator/simulate.hpp"

using namespace tilescope;
using segment_probe::Config;
using namespace tilescope::detail;

namespace {

enum : std::uint32_t { kMatrix = 0, kTile = 1 };

Launch segment_launch(const Config& c, int smem) {
    const std::int64_t blocks = c.blocks(segment_probe::kMatrixBytes);
    Launch l;
    l.name = "segment-stream";
    l.grid_x = blocks;
    l.threads_per_block = segment_probe::kThreads;
    l.registers_per_thread = 32;
    l.smem_bytes_per_block = smem;
    l.stages = c.stages;
    l.loads_after_wait = true;
    l.work_items = blocks;
    l.buffers = {Buffer{"X", segment_probe::kMatrixBytes, false}, Buffer{"T", c.l2_total(), false}};
    const double steps = c.steps();
    l.counts.global_load_bytes = static_cast<double>(blocks) * steps * c.stage_bytes();
    l.counts.smem_write_bytes = l.counts.global_load_bytes;
    l.counts.smem_read_bytes = l.counts.global_load_bytes;
    l.counts.flops_fp32 = l.counts.global_load_bytes / 4;
    l.program = [c](std::int64_t block, std::vector<Step>& out) {
        const std::int64_t base = block * c.rows * c.row_bytes;
        for (int s = 0; s < c.steps(); ++s) {
            const std::int64_t offset = base + s * c.step_stride();
            if (c.dense())  // one contiguous row of R x W bytes
                push_load(out, s, kMatrix, offset, c.step_stride(), 1, c.step_stride());
            else
                push_load(out, s, kMatrix, offset, c.segment_bytes, c.rows, c.row_stride());
            if (c.l2_bytes > 0)
                push_load(out, s, kTile, (std::int64_t{s} * c.l2_bytes) % c.l2_total(), c.l2_bytes, 1, c.l2_bytes);
            push_smem(out, StepKind::smem_fill, s, c.stage_bytes());
            push_barrier(out, s);
            push_smem(out, StepKind::smem_read, s, c.stage_bytes());
            push_compute(out, Unit::fp32, s, c.stage_bytes() / 4.0);
        }
    };
    return l;
}

}  // namespace

int main(int argc, char** argv) {
    std::string gpu = "calibrated/h200";
    bool exact = false;
    int only_stages = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--gpu" && i + 1 < argc) {
            gpu = argv[++i];
        } else if (a == "--exact") {
            exact = true;
        } else if (a == "--stages" && i + 1 < argc && std::string(argv[i + 1]).find_first_not_of("234") == std::string::npos &&
                   std::string(argv[i + 1]).size() == 1) {
            only_stages = std::stoi(argv[++i]);
        } else {
            std::fprintf(stderr, "segment_stream_replay: unknown argument %s (usage: segment_stream_replay [--gpu NAME|PATH] [--exact] [--stages 2|3|4])\n",
                         a.c_str());
            return 2;
        }
    }
    auto hw = load_hardware(gpu);
    if (!hw) {
        std::fprintf(stderr, "segment_stream_replay: %s\n", hw.error().message.c_str());
        return 2;
    }
    Workload w;
    w.kernel = KernelFamily::gemm;
    w.dtype = DType::fp16;
    sim::Options opt;
    opt.timeline = false;
    if (exact) opt.phase_budget = 0;
    for (const Config& c : segment_probe::timed_grid()) {
        if (only_stages != 0 && c.stages != only_stages) continue;
        const int smem = segment_probe::smem_for(hw->smem_per_sm_bytes, hw->smem_reserved_per_block_bytes,
                                                 hw->smem_per_sm_bytes - hw->smem_reserved_per_block_bytes,
                                                 c.blocks_per_sm, c.stages * c.stage_bytes());
        if (smem == 0) continue;
        const Launch l = segment_launch(c, smem);
        const auto occ = occupancy(l, *hw);
        auto p = sim::simulate(w, {l}, *hw, opt);
        if (!p) {
            std::fprintf(stderr, "segment_stream_replay: %s\n", p.error().message.c_str());
            return 1;
        }
        const double ns = p->total[Metric::gpu_time_duration];
        std::printf("{\"model\":\"segment_stream_replay\",\"gpu\":\"%s\",\"layout\":\"%s\",\"segment_bytes\":%d,\"rows\":%d,"
                    "\"stages\":%d,\"blocks_per_sm\":%d,\"row_bytes\":%lld,\"l2_bytes_per_step\":%d,\"model_blocks_per_sm\":%d,"
                    "\"ms_model\":%.5f,\"tb_per_s_model\":%.4f,\"dram_bytes_model\":%.0f}\n",
                    gpu.c_str(), c.layout, c.segment_bytes, c.rows, c.stages, c.blocks_per_sm,
                    static_cast<long long>(c.row_bytes), c.l2_bytes, occ ? occ->blocks_per_sm : -1, ns * 1e-6,
                    static_cast<double>(segment_probe::kMatrixBytes) / ns * 1e-3,
                    p->total[Metric::dram_bytes_read]);
        std::fflush(stdout);
    }
    return 0;
}
