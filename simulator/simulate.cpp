// simulate(): runs the launches of a workload one after another through the launch engine,
// carrying the L2 contents (and its dirty data) from one launch to the next.
//
// How it works, in brief (the README's version):
//  * Occupancy comes from core's occupancy() (the CUDA occupancy calculator). Each SM gets
//    blocks_per_sm slots. Blocks are dispatched in block-ID order: the first wave round-robin over
//    the SMs, then each block into the slot that frees first, which gives waves and the tail
//    effect. A persistent launch has one block per slot looping over work items
//    item = block + k * grid.
//  * Each block's program (Launch::program) is grouped into phases by iteration; a phase's loads,
//    compute and stores run as jobs on processor-sharing servers: HBM and L2 for the whole GPU
//    and one per SM for shared memory and the tensor / FP32 / SFU pipes. Loads are issued up to
//    `stages` - 1 iterations ahead of compute. See launch_engine.cpp.
//  * Fair sharing is exact processor sharing computed in virtual time (ps_server.hpp), so the
//    engine is event-driven: events are job completions and latency timers, and a change in
//    the number of jobs at a server costs O(log n), not a pass over all blocks. A time-stepped
//    fluid model would need a step far below one tile's transfer time (~100 ns) to resolve
//    latency, i.e. millions of steps over all in-flight blocks; the event queue only does work
//    when something changes.
//  * The L2 is a fully associative write-back LRU over per-buffer chunks, one per L2 partition
//    (l2_cache.hpp, buffer_layout.hpp). HBM bytes are its fills and write-backs; dirty data left at the end of
//    a launch is reported as l2_dirty_bytes_at_end and stays for the next launch.
//
//  * Latency limit of the tensor pipe (calibration.tensor_flops_per_cycle_per_warp, off by
//    default): an SM's tensor rate is at most resident warps x that per-warp rate, so blocks of
//    few warps (or few resident blocks) are latency-bound rather than throughput-bound.
//  * Warp model (calibration.warp_iteration_ns, warp_load_issue_ns_per_byte,
//    warp_smem_read_ns_per_byte, warp_op_ns, warp_overlap_exponent; off by default): an
//    iteration of a block takes at least the serial time of one of its warps (its mma chain, a
//    fixed per-iteration cost, its share of the load issue, of the shared-memory reads and of
//    the scalar FP32/SFU work), stretched by k^(1 - exponent) for k resident warps per SM sub-partition
//    (launch_engine.cpp WarpModel). With calibration.warp_issue_model = 1 the k warps of a
//    sub-partition queue for issue instead: an iteration of the SM's B blocks takes k x (issue
//    terms) + (mma chain), docs/validation change 23.
//
// Deliberately left out: instruction-level timing inside a block (warp scheduling, register
// pressure and bank conflicts; dependency chains only through the per-warp terms above),
// shared-memory bank conflicts, L1 caching of global loads, set associativity and slices of the
// L2 (its partitions are modelled: l2_cache.hpp L2System), DRAM page/bank effects, MSHR merging in
// time, the gap between back-to-back launches, clock throttling.
#include "simulator/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "core/occupancy.hpp"
#include "simulator/launch_engine.hpp"

namespace tilescope::sim {

namespace {

Result<Rates> make_rates(const Hardware& hw, DType dtype) {
    const Calibration& c = hw.calibration;
    const auto positive = [&](double v, const char* field) -> Status {
        if (!(v > 0)) {
            return make_error("profile " + hw.name + ": " + field + " must be > 0 for the simulator (got " +
                              std::to_string(v) + ")");
        }
        return {};
    };
    for (const Status& s :
         {positive(static_cast<double>(hw.sm_count), "sm_count"), positive(hw.sm_clock_hz, "sm_clock_hz"),
          positive(hw.hbm_bandwidth_bytes_per_s, "hbm_bandwidth_bytes_per_s"),
          positive(hw.l2_bandwidth_bytes_per_s, "l2_bandwidth_bytes_per_s"),
          positive(c.hbm_efficiency, "calibration.hbm_efficiency"),
          positive(c.l2_efficiency, "calibration.l2_efficiency"),
          positive(c.smem_efficiency, "calibration.smem_efficiency"),
          positive(c.tensor_efficiency, "calibration.tensor_efficiency"),
          positive(c.fp32_efficiency, "calibration.fp32_efficiency"),
          positive(c.sm_l2_bytes_per_cycle, "calibration.sm_l2_bytes_per_cycle"),
          positive(c.load_latency_scale, "calibration.load_latency_scale")}) {
        if (!s) return s.error();
    }
    if (hw.l2_bytes < 0 || hw.hbm_latency_ns < 0 || hw.l2_latency_ns < 0 || c.launch_overhead_ns < 0 ||
        c.block_overhead_ns < 0 || !(c.tensor_flops_per_cycle_per_warp >= 0) ||
        !std::isfinite(c.tensor_flops_per_cycle_per_warp) || !(c.warp_iteration_ns >= 0) ||
        !std::isfinite(c.warp_iteration_ns) || !(c.warp_load_issue_ns_per_byte >= 0) ||
        !std::isfinite(c.warp_load_issue_ns_per_byte) || !(c.load_latency_ns_per_byte >= 0) ||
        !std::isfinite(c.load_latency_ns_per_byte) || !(c.fragment_store_bytes_per_s >= 0) ||
        !std::isfinite(c.fragment_store_bytes_per_s) || !(c.warp_smem_read_ns_per_byte >= 0) ||
        !std::isfinite(c.warp_smem_read_ns_per_byte) || !(c.warp_op_ns >= 0) || !std::isfinite(c.warp_op_ns) ||
        !(c.load_latency_ns_per_tbps >= 0) || !std::isfinite(c.load_latency_ns_per_tbps) ||
        !(c.block_reduction_ns >= 0) || !std::isfinite(c.block_reduction_ns) ||
        !(c.fragment_store_issue_ns_per_byte >= 0) || !std::isfinite(c.fragment_store_issue_ns_per_byte) ||
        !(c.fragment_store_hold_ns_per_byte >= 0) || !std::isfinite(c.fragment_store_hold_ns_per_byte) ||
        !(c.hbm_activations_per_s >= 0) || !std::isfinite(c.hbm_activations_per_s) ||
        !(c.hbm_narrow_segment_ns >= 0) || !std::isfinite(c.hbm_narrow_segment_ns) ||
        !(c.warp_fill_wait_ns_per_byte >= 0) || !std::isfinite(c.warp_fill_wait_ns_per_byte) ||
        !(c.warp_store_issue_ns_per_byte >= 0) || !std::isfinite(c.warp_store_issue_ns_per_byte) ||
        !(c.warp_chain_ns >= 0) || !std::isfinite(c.warp_chain_ns) || !(c.warp_chain_ns_per_instruction >= 0) ||
        !std::isfinite(c.warp_chain_ns_per_instruction)) {
        return make_error("profile " + hw.name +
                          ": l2_bytes, latencies, overheads, calibration.tensor_flops_per_cycle_per_warp, "
                          "warp_iteration_ns, warp_load_issue_ns_per_byte, warp_smem_read_ns_per_byte, "
                          "warp_op_ns, load_latency_ns_per_byte, load_latency_ns_per_tbps, block_reduction_ns and "
                          "fragment_store_bytes_per_s, fragment_store_issue_ns_per_byte, fragment_store_hold_ns_per_byte, "
                          "hbm_activations_per_s, hbm_narrow_segment_ns, "
                          "warp_fill_wait_ns_per_byte, warp_store_issue_ns_per_byte, warp_chain_ns, "
                          "warp_chain_ns_per_instruction must be >= 0");
    }
    if (!(c.fragment_store_load_wait >= 0 && c.fragment_store_load_wait <= 1)) {
        return make_error("profile " + hw.name + ": calibration.fragment_store_load_wait must be in [0, 1] (got " +
                          std::to_string(c.fragment_store_load_wait) + ")");
    }
    if (!(c.issue_efficiency >= 0 && c.issue_efficiency <= 1)) {
        return make_error("profile " + hw.name + ": calibration.issue_efficiency must be in [0, 1] (got " +
                          std::to_string(c.issue_efficiency) + ")");
    }
    if (c.issue_phase_work != 0.0 && !(c.issue_efficiency > 0)) {
        return make_error("profile " + hw.name +
                          ": calibration.issue_phase_work 1 needs issue_efficiency > 0 (the issue rate it charges; got 0)");
    }
    if (c.load_latency_queue_l2_hits != 0.0 && c.load_latency_queue_dram == 0.0) {
        return make_error("profile " + hw.name +
                          ": calibration.load_latency_queue_l2_hits needs calibration.load_latency_queue_dram = 1 "
                          "(without it every load already queues; got load_latency_queue_dram 0)");
    }
    if (c.load_latency_queue_shared_path != 0.0 && c.load_latency_queue_l2_hits != 1.0) {
        return make_error("profile " + hw.name +
                          ": calibration.load_latency_queue_shared_path = 1 needs calibration.load_latency_queue_l2_hits = 1 "
                          "(got " + std::to_string(static_cast<int>(c.load_latency_queue_l2_hits)) + ")");
    }
    if (c.fragment_store_own_drain != 0.0 && !(c.fragment_store_bytes_per_s > 0)) {
        return make_error("profile " + hw.name +
                          ": calibration.fragment_store_own_drain = 1 needs calibration.fragment_store_bytes_per_s > 0 "
                          "(the drain's rate; got " + std::to_string(c.fragment_store_bytes_per_s) + ")");
    }
    for (const auto& [v, what] : {std::pair{c.lrc_in_step_one_block, "lrc_in_step_one_block"},
                                  std::pair{c.lrc_in_step_several_blocks, "lrc_in_step_several_blocks"}}) {
        if (!(v >= 0 && v <= 1))
            return make_error("profile " + hw.name + ": calibration." + what + " must be in [0, 1] (got " +
                              std::to_string(v) + ")");
    }
    if (!(c.l2_ways >= 0 && c.l2_ways <= 256 && c.l2_ways == std::floor(c.l2_ways))) {
        return make_error("profile " + hw.name + ": calibration.l2_ways must be a whole number in [0, 256] (got " +
                          std::to_string(c.l2_ways) + ")");
    }
    if (!(c.l2_dirty_limit >= 0 && c.l2_dirty_limit <= 1)) {
        return make_error("profile " + hw.name + ": calibration.l2_dirty_limit must be in [0, 1] (got " +
                          std::to_string(c.l2_dirty_limit) + ")");
    }
    if (!(c.lrc_lock_loss_per_iteration >= 0) || !std::isfinite(c.lrc_lock_loss_per_iteration)) {
        return make_error("profile " + hw.name + ": calibration.lrc_lock_loss_per_iteration must be >= 0 (got " +
                          std::to_string(c.lrc_lock_loss_per_iteration) + ")");
    }
    if (!(c.warp_overlap_exponent > 0 && c.warp_overlap_exponent <= 1)) {
        return make_error("profile " + hw.name + ": calibration.warp_overlap_exponent must be in (0, 1] (got " +
                          std::to_string(c.warp_overlap_exponent) + ")");
    }
    if (c.warp_issue_model != 0.0 && c.warp_overlap_exponent != 1.0) {
        return make_error("profile " + hw.name +
                          ": calibration.warp_overlap_exponent must be 1 with warp_issue_model 1 (got " +
                          std::to_string(c.warp_overlap_exponent) + "; the issue form has no overlap exponent)");
    }
    if (c.warp_queue_model != 0.0 && (c.warp_overlap_exponent != 1.0 || c.warp_issue_model != 0.0)) {
        return make_error("profile " + hw.name +
                          ": calibration.warp_queue_model 1 needs warp_overlap_exponent 1 and warp_issue_model 0 (got " +
                          std::to_string(c.warp_overlap_exponent) + " and " + std::to_string(c.warp_issue_model) + ")");
    }
    if (c.warp_fill_wait_ns_per_byte > 0 && (c.warp_issue_model != 0.0 || c.warp_queue_model != 0.0)) {
        return make_error("profile " + hw.name +
                          ": calibration.warp_fill_wait_ns_per_byte needs the power-law warp model (warp_issue_model 0 and "
                          "warp_queue_model 0; got " + std::to_string(c.warp_issue_model) + " and " +
                          std::to_string(c.warp_queue_model) + ")");
    }
    if (c.warp_store_issue_ns_per_byte > 0 && (c.warp_issue_model != 0.0 || c.warp_queue_model != 0.0)) {
        return make_error("profile " + hw.name +
                          ": calibration.warp_store_issue_ns_per_byte needs the power-law warp model (warp_issue_model 0 "
                          "and warp_queue_model 0; got " + std::to_string(c.warp_issue_model) + " and " +
                          std::to_string(c.warp_queue_model) + ")");
    }
    if (c.warp_chain_ns_per_instruction > 0 && (c.warp_issue_model != 0.0 || c.warp_queue_model != 0.0)) {
        return make_error("profile " + hw.name +
                          ": calibration.warp_chain_ns_per_instruction needs the power-law warp model (warp_issue_model 0 "
                          "and warp_queue_model 0; got " + std::to_string(c.warp_issue_model) + " and " +
                          std::to_string(c.warp_queue_model) + ")");
    }
    if (c.warp_smsp_pacing != 0.0 && (c.warp_issue_model != 0.0 || c.warp_queue_model != 0.0)) {
        return make_error("profile " + hw.name +
                          ": calibration.warp_smsp_pacing 1 needs warp_issue_model 0 and warp_queue_model 0 (got " +
                          std::to_string(c.warp_issue_model) + " and " + std::to_string(c.warp_queue_model) + ")");
    }
    if (c.warp_wait_shared != 0.0 && (c.warp_issue_model != 0.0 || c.warp_queue_model != 0.0)) {
        return make_error("profile " + hw.name +
                          ": calibration.warp_wait_shared " + std::to_string(static_cast<int>(c.warp_wait_shared)) + " needs warp_issue_model 0 and warp_queue_model 0 (got " +
                          std::to_string(c.warp_issue_model) + " and " + std::to_string(c.warp_queue_model) + ")");
    }
    if (!(c.l2_dirty_weight >= 1 && c.l2_dirty_weight <= 16)) {
        return make_error("profile " + hw.name + ": calibration.l2_dirty_weight must be in [1, 16] (got " +
                          std::to_string(c.l2_dirty_weight) + ")");
    }
    if (!(c.l2_dirty_age_weight > 0 && c.l2_dirty_age_weight <= 1) ||
        (c.l2_dirty_age_weight != 1.0 && (c.l2_ways == 0.0 || c.l2_clean_victims != 0.0))) {
        return make_error("profile " + hw.name + ": calibration.l2_dirty_age_weight must be in (0, 1], and below 1 needs l2_ways > 0 and l2_clean_victims 0 (got " +
                          std::to_string(c.l2_dirty_age_weight) + ")");
    }
    if (c.l2_clean_victims != 0.0 && c.l2_ways == 0.0) {
        return make_error("profile " + hw.name +
                          ": calibration.l2_clean_victims 1 needs sampled victims (l2_ways > 0; got l2_ways 0)");
    }
    if (c.warp_load_issue_serial != 0.0 && (c.warp_issue_model != 0.0 || c.warp_queue_model != 0.0)) {
        return make_error("profile " + hw.name +
                          ": calibration.warp_load_issue_serial 1 needs warp_issue_model 0 and warp_queue_model 0 (got " +
                          std::to_string(c.warp_issue_model) + " and " + std::to_string(c.warp_queue_model) +
                          "; their issue term already queues the loads)");
    }
    const double sms = static_cast<double>(hw.sm_count);
    double tensor = hw.tensor_fp16_flops_per_s;
    if (dtype == DType::bf16) tensor = hw.tensor_bf16_flops_per_s;
    if (dtype == DType::fp32) tensor = hw.tensor_tf32_flops_per_s;
    Rates r;
    r.hbm_bytes_per_ns = hw.hbm_bandwidth_bytes_per_s * c.hbm_efficiency * 1e-9;
    r.l2_bytes_per_ns = hw.l2_bandwidth_bytes_per_s * c.l2_efficiency * 1e-9;
    r.sm_l2_bytes_per_ns = c.sm_l2_bytes_per_cycle * hw.sm_clock_hz * 1e-9;
    r.sm_share_resident = c.sm_share_resident != 0.0;
    r.sm_share_wait_releases = c.sm_share_resident == 2.0;
    r.smem_bytes_per_ns = hw.smem_bandwidth_bytes_per_cycle_per_sm * hw.sm_clock_hz * c.smem_efficiency * 1e-9;
    r.tensor_flops_per_ns = tensor / sms * c.tensor_efficiency * 1e-9;
    r.tensor_flops_per_ns_per_warp = c.tensor_flops_per_cycle_per_warp * hw.sm_clock_hz * 1e-9;
    r.warp_model = c.warp_model();
    r.warp_iteration_ns = c.warp_iteration_ns;
    r.warp_load_issue_ns_per_byte = c.warp_load_issue_ns_per_byte;
    r.warp_overlap_exponent = c.warp_overlap_exponent;
    r.warp_smem_read_ns_per_byte = c.warp_smem_read_ns_per_byte;
    r.warp_op_ns = c.warp_op_ns;
    r.warp_issue_model = c.warp_issue_model != 0.0;
    r.warp_queue_model = c.warp_queue_model != 0.0;
    r.warp_load_issue_serial = c.warp_load_issue_serial != 0.0;
    r.warp_fill_wait_ns_per_byte = c.warp_fill_wait_ns_per_byte;
    r.warp_store_issue_ns_per_byte = c.warp_store_issue_ns_per_byte;
    r.warp_wait_shared = static_cast<int>(c.warp_wait_shared);
    r.warp_smsp_pacing = c.warp_smsp_pacing != 0.0;
    r.warp_chain_ns = c.warp_chain_ns;
    r.warp_chain_ns_per_instruction = c.warp_chain_ns_per_instruction;
    r.ns_per_issued_instruction = c.issue_efficiency > 0 && hw.sm_clock_hz > 0
                                      ? 1e9 / (std::max(1, hw.sm_subpartitions) * hw.sm_clock_hz * c.issue_efficiency)
                                      : 0.0;
    r.issue_phase_work = c.issue_phase_work != 0.0;
    r.sm_subpartitions = std::max(1, hw.sm_subpartitions);
    r.fp32_flops_per_ns = hw.fp32_flops_per_s / sms * c.fp32_efficiency * 1e-9;
    r.sfu_ops_per_ns = hw.sfu_ops_per_s / sms * 1e-9;
    r.hbm_latency_ns = hw.hbm_latency_ns * c.load_latency_scale;
    r.l2_latency_ns = hw.l2_latency_ns * c.load_latency_scale;
    r.l1_latency_ns = hw.l1_latency_ns;
    r.load_latency_ns_per_byte = c.load_latency_ns_per_byte;
    r.pipelined_load_burst_issue = static_cast<int>(c.pipelined_load_burst_issue);
    r.load_latency_ns_per_tbps = c.load_latency_ns_per_tbps;
    r.latency_queue_dram = c.load_latency_queue_dram != 0.0;
    r.latency_queue_l2_hits = static_cast<int>(c.load_latency_queue_l2_hits);  // checked above: needs the DRAM-only form
    r.latency_queue_shared_path = c.load_latency_queue_shared_path != 0.0;      // checked above: needs l2_hits = 1
    r.l2_hit_ns_per_tbps =
        c.load_latency_l2_hit_ns_per_tbps > 0 ? c.load_latency_l2_hit_ns_per_tbps : c.load_latency_ns_per_tbps;
    r.block_start_spread = c.block_start_spread;
    r.hbm_server_slots = static_cast<std::uint32_t>(c.hbm_server_slots);
    r.block_reduction_ns = c.block_reduction_ns;
    r.fragment_store_bytes_per_ns = c.fragment_store_bytes_per_s * 1e-9;
    r.fragment_store_issue_ns_per_byte = c.fragment_store_issue_ns_per_byte;
    r.fragment_store_own_drain = c.fragment_store_own_drain != 0.0;
    r.fragment_store_hold_ns_per_byte = c.fragment_store_hold_ns_per_byte;
    r.fragment_store_load_wait = c.fragment_store_load_wait;
    r.pipeline_wait_then_issue = c.pipeline_wait_then_issue != 0.0;
    r.pipeline_serial = static_cast<int>(c.pipeline_serial);
    r.pipeline_additive = static_cast<int>(c.pipeline_additive);
    r.l2_fill_in_flight = c.l2_fill_in_flight != 0.0;
    // An HBM that opens at most A pages per second moves r bytes per ns in the time of one: r / A.
    r.hbm_activation_bytes = c.hbm_activations_per_s > 0 ? r.hbm_bytes_per_ns / (c.hbm_activations_per_s * 1e-9) : 0.0;
    r.hbm_narrow_segment_ns = c.hbm_narrow_segment_ns;
    r.l1_random_replacement = c.l1_random_replacement != 0.0;
    r.smem_fill_bypass = c.smem_fill_bypass != 0.0;
    r.l1_capacity_fraction = c.l1_capacity_fraction;
    r.lrc_in_step_one_block = c.lrc_in_step_one_block;
    r.lrc_in_step_several_blocks = c.lrc_in_step_several_blocks;
    r.lrc_lock_loss_per_iteration = c.lrc_lock_loss_per_iteration;
    r.lrc_block_distance = c.lrc_block_distance;
    r.block_overhead_ns = c.block_overhead_ns;
    r.wait_then_issue_block_ns = c.wait_then_issue_block_ns;
    r.warp_wait_shared_part = c.warp_wait_shared_part;
    r.launch_overhead_ns = c.launch_overhead_ns;
    return r;
}

Result<std::optional<Prediction>> run_launches(const Workload& workload, const std::vector<Launch>& launches,
                                               const Hardware& hw, const Options& options, const Rates& rates,
                                               LayoutScan scan);

}  // namespace

Result<Prediction> simulate(const Workload& workload, const std::vector<Launch>& launches,
                            const Hardware& hw, const Options& options) {
    if (options.max_samples < 2) return make_error("simulator option max_samples must be >= 2");
    auto rates = make_rates(hw, workload.dtype);
    if (!rates) return rates.error();
    for (const Launch& l : launches) {
        if (!l.program) return make_error("launch " + l.name + " has no block program");
        if (l.blocks() <= 0) return make_error("launch " + l.name + " has an empty grid");
    }
    // Sampled layout first; in the rare case an access breaks it, start over with a full scan.
    for (const LayoutScan scan : {LayoutScan::sampled, LayoutScan::full}) {
        auto p = run_launches(workload, launches, hw, options, *rates, options.l2 ? scan : LayoutScan::none);
        if (!p) return p.error();
        if (p->has_value()) return std::move(**p);
    }
    return make_error("internal: L2 chunk layout still broken after a full scan");
}

namespace {

// Upper estimate of the L2 model's chunk lookups: every global byte of a launch at the smallest
// chunk size among the buffers that launch touches.
double estimated_l2_chunk_accesses(const std::vector<Launch>& launches, const BufferLayout& layout) {
    double total = 0;
    for (std::size_t i = 0; i < launches.size(); ++i) {
        std::int64_t chunk = 0;
        for (std::uint32_t id : layout.ids[i]) {
            const std::int64_t c = layout.chunk_bytes[id];
            if (c > 0 && (chunk == 0 || c < chunk)) chunk = c;
        }
        if (chunk <= 0) continue;
        total += (launches[i].counts.global_load_bytes + launches[i].counts.global_store_bytes) / static_cast<double>(chunk);
    }
    return total;
}

Result<std::optional<Prediction>> run_launches(const Workload& workload, const std::vector<Launch>& launches,
                                               const Hardware& hw, const Options& options, const Rates& rates,
                                               LayoutScan scan) {
    auto layout = make_buffer_layout(launches, hw, scan);
    if (!layout) return layout.error();

    SimState state;
    state.hw = &hw;
    state.options = &options;
    state.rates = rates;
    state.layout = std::move(layout).value();
    // Refuse, with the numbers, a workload that would keep the simulator busy for many minutes,
    // rather than appear hung: by its blocks (each costs the engine its events), and with the L2
    // on by its L2 chunk lookups (one per chunk touched).
    auto too_costly = [&](const char* needs, double amount, const char* what, double limit, const char* options_left) {
        char buf[360];
        std::snprintf(buf, sizeof buf, "simulating %s %s %.2g %s (limit %.2g, about 2-3 minutes of one core); use %s",
                      describe(workload).c_str(), needs, amount, what, limit, options_left);
        return make_error(buf);
    };
    if (options.max_blocks > 0) {
        double blocks = 0;
        for (const Launch& l : launches) blocks += static_cast<double>(std::max(l.blocks(), l.work_items));
        if (blocks > options.max_blocks)
            return too_costly("needs", blocks, "thread blocks or tiles of work", options.max_blocks,
                              "--model analytic or a smaller shape");
    }
    if (options.l2 && options.max_l2_chunk_accesses > 0) {
        const double accesses = estimated_l2_chunk_accesses(launches, state.layout);
        if (accesses > options.max_l2_chunk_accesses)
            return too_costly("with its L2 cache needs about", accesses, "L2 chunk lookups", options.max_l2_chunk_accesses,
                              "--model analytic, --l2 off, or a smaller shape");
    }
    if (options.l2) {
        state.l2.reset(hw.l2_bytes, hw.l2_partitions, state.layout.min_chunk_bytes, state.layout.names.size(),
                       hw.calibration.l2_dirty_limit, static_cast<int>(hw.calibration.l2_ways),
                       hw.calibration.l2_store_copy != 0.0);
        state.l2.set_clean_victims(hw.calibration.l2_clean_victims != 0.0);
        state.l2.set_dirty_weight(hw.calibration.l2_dirty_weight);
        state.l2.set_dirty_age_weight(hw.calibration.l2_dirty_age_weight);
        for (std::size_t i = 0; i < state.layout.names.size(); ++i) {
            state.l2.set_buffer(static_cast<std::uint32_t>(i), state.layout.bytes[i], state.layout.chunk_bytes[i]);
        }
    }

    Prediction p;
    p.model = "sim";
    p.workload = workload;
    p.gpu = hw.name;
    double t_ns = 0;
    double hit_bytes = 0, load_bytes = 0;
    std::map<std::string, double> time_by_bound;
    for (std::size_t i = 0; i < launches.size(); ++i) {
        auto occ = occupancy(launches[i], hw);
        if (!occ) return make_error("launch " + launches[i].name + ": " + occ.error().message);
        auto lr = simulate_launch(state, launches[i], i, *occ, t_ns);
        if (state.misaligned) return std::optional<Prediction>{};
        if (!lr) return lr.error();
        LaunchResult& r = lr.value();
        const double d = r.metrics[Metric::gpu_time_duration];
        t_ns += d;
        p.total += r.metrics;
        time_by_bound[r.bound] += d;
        hit_bytes += r.extra["l2_hit_bytes"];
        load_bytes += r.extra["l2_load_bytes"];
        p.launches.push_back(std::move(r));
    }
    double best = -1;
    for (const auto& [name, d] : time_by_bound) {
        if (d > best) {
            best = d;
            p.bound = name;
        }
    }
    const double secs = t_ns * 1e-9;
    const Metrics& m = p.total;
    p.extra["l2_hit_bytes"] = hit_bytes;
    p.extra["l2_dirty_bytes_at_end"] = options.l2 ? static_cast<double>(state.l2.dirty_bytes()) : 0.0;
    p.extra["hbm_bytes_per_s"] = secs > 0 ? (m[Metric::dram_bytes_read] + m[Metric::dram_bytes_write]) / secs : 0.0;
    p.extra["l2_bytes_per_s"] = secs > 0 ? m[Metric::lts_t_bytes] / secs : 0.0;
    p.extra["l2_load_bytes"] = load_bytes;
    p.extra["l2_hit_rate"] = load_bytes > 0 ? hit_bytes / load_bytes : 0.0;
    return std::optional<Prediction>{std::move(p)};
}

}  // namespace

}  // namespace tilescope::sim
