// analytic(): closed-form metrics from each launch's `counts` (no caches: every global load is an
// HBM read and an L2 request, every store an HBM write and an L2 request) and a roofline time:
//   t_hbm    = (load + store bytes) / (hbm_bandwidth * hbm_efficiency)
//   t_l2     = (load + store bytes) / (l2_bandwidth * l2_efficiency), fragment stores by sector
//   t_smem   = (smem read + write bytes) / (smem B/clk/SM * sm_clock * SMs * smem_efficiency)
//   t_tensor = flops_tensor / (tensor rate for the dtype * tensor_efficiency); fp32 uses TF32
//   t_fp32   = flops_fp32 / (fp32 rate * fp32_efficiency)
//   t_sfu    = sfu_ops / sfu rate
//   time     = max(terms) + kernel_launch_latency_ns + calibration launch_overhead_ns
// `bound` names the largest term. The efficiencies default to 1 (datasheet peak); a calibrated
// profile lowers them. Tail effects and latency are the simulator's job, not this model's.
#include "core/analytic.hpp"

#include <array>

#include "core/occupancy.hpp"

namespace tilescope {
namespace {

double tensor_rate(const Hardware& hw, DType dt) {
    switch (dt) {
        case DType::fp16: return hw.tensor_fp16_flops_per_s;
        case DType::bf16: return hw.tensor_bf16_flops_per_s;
        case DType::fp32: return hw.tensor_tf32_flops_per_s;
    }
    return hw.tensor_fp16_flops_per_s;
}

}  // namespace

Prediction analytic(const Workload& workload, const std::vector<Launch>& launches, const Hardware& hw) {
    Prediction p;
    p.model = "analytic";
    p.workload = workload;
    p.gpu = hw.name;
    p.launches.reserve(launches.size());
    const Calibration& cal = hw.calibration;
    const double smem_bw = hw.smem_bandwidth_bytes_per_cycle_per_sm * hw.sm_clock_hz * hw.sm_count * cal.smem_efficiency;
    const double hbm_bw = hw.hbm_bandwidth_bytes_per_s * cal.hbm_efficiency;
    const double l2_bw = hw.l2_bandwidth_bytes_per_s * cal.l2_efficiency;
    const double tensor = tensor_rate(hw, workload.dtype) * cal.tensor_efficiency;
    const double fp32 = hw.fp32_flops_per_s * cal.fp32_efficiency;
    static constexpr std::array<const char*, 6> kTerms = {"hbm", "l2", "smem", "tensor", "fp32", "sfu"};

    double t_now_ns = 0;
    double longest_ns = -1;
    for (const Launch& l : launches) {
        LaunchResult r;
        r.name = l.name;
        r.start_ns = t_now_ns;
        r.facts.grid_x = l.grid_x;
        r.facts.grid_y = l.grid_y;
        r.facts.grid_z = l.grid_z;
        r.facts.threads_per_block = l.threads_per_block;
        r.facts.smem_bytes_per_block = l.smem_bytes_per_block;
        r.facts.registers_per_thread = l.registers_per_thread;
        if (auto occ = occupancy(l, hw)) {
            r.facts.blocks_per_sm = occ->blocks_per_sm;
            r.facts.waves = occ->waves;
            r.facts.occupancy_limiter = occ->limiter;
        }
        const Counts& c = l.counts;
        const double global_bytes = c.global_load_bytes + c.global_store_bytes;
        // L2 requests: fragment stores count the whole sectors they touch (Launch::fragment_store_row_bytes).
        const double l2_bytes =
            c.global_load_bytes + c.global_store_bytes * static_cast<double>(l.store_sector_factor(hw.l2_sector_bytes));
        Metrics& m = r.metrics;
        m[Metric::dram_bytes_read] = c.global_load_bytes;
        m[Metric::dram_bytes_write] = c.global_store_bytes;
        // No caches: every load misses, so with several L2 partitions the far share of loads and
        // stores is looked up a second time at its home partition (core/hardware.hpp).
        m[Metric::lts_t_bytes] = l2_bytes * (1.0 + hw.l2_far_share());
        m[Metric::smem_bytes_read] = c.smem_read_bytes;
        m[Metric::smem_bytes_write] = c.smem_write_bytes;
        m[Metric::flops_tensor] = c.flops_tensor;
        m[Metric::flops_fp32] = c.flops_fp32;
        m[Metric::flops] = c.flops_tensor + c.flops_fp32;
        m[Metric::sfu_ops] = c.sfu_ops;

        const std::array<double, 6> t_ns = {
            global_bytes / hbm_bw * 1e9,
            l2_bytes / l2_bw * 1e9,
            (c.smem_read_bytes + c.smem_write_bytes) / smem_bw * 1e9,
            c.flops_tensor / tensor * 1e9,
            c.flops_fp32 / fp32 * 1e9,
            c.sfu_ops / hw.sfu_ops_per_s * 1e9,
        };
        std::size_t arg = 0;
        for (std::size_t i = 1; i < t_ns.size(); ++i) {
            if (t_ns[i] > t_ns[arg]) arg = i;
        }
        for (std::size_t i = 0; i < t_ns.size(); ++i) r.extra[std::string("t_") + kTerms[i] + "_ns"] = t_ns[i];
        r.bound = kTerms[arg];
        const double duration_ns = t_ns[arg] + hw.kernel_launch_latency_ns + cal.launch_overhead_ns;
        m[Metric::gpu_time_duration] = duration_ns;
        r.extra["hbm_bytes_per_s"] = duration_ns > 0 ? global_bytes / (duration_ns * 1e-9) : 0.0;
        r.extra["arithmetic_intensity_flops_per_byte"] = global_bytes > 0 ? m[Metric::flops] / global_bytes : 0.0;
        t_now_ns += duration_ns;
        if (duration_ns > longest_ns) {
            longest_ns = duration_ns;
            p.bound = r.bound;
        }
        p.total += m;
        p.launches.push_back(std::move(r));
    }
    return p;
}

}  // namespace tilescope
