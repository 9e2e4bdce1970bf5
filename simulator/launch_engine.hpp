// LaunchEngine: event-driven simulation of one kernel launch (see simulate.cpp for the overview).
#pragma once

#include <cstdint>
#include <string>

#include "core/hardware.hpp"
#include "core/launch.hpp"
#include "core/occupancy.hpp"
#include "core/prediction.hpp"
#include "core/result.hpp"
#include "simulator/buffer_layout.hpp"
#include "simulator/l2_cache.hpp"
#include "simulator/simulate.hpp"

namespace tilescope::sim {

// Per-SM and whole-GPU rates the engine needs, derived once from Hardware + Calibration.
struct Rates {
    double hbm_bytes_per_ns = 0;       // whole GPU, times hbm_efficiency
    double l2_bytes_per_ns = 0;        // whole GPU, times l2_efficiency
    double sm_l2_bytes_per_ns = 0;     // one SM's L2 port
    bool sm_share_resident = false;    // the SM server shares among resident blocks (change 84)
    bool sm_share_wait_releases = false;  // ... except a block in its iteration wait (change 95)
    double smem_bytes_per_ns = 0;      // one SM
    double tensor_flops_per_ns = 0;    // one SM, for the workload's dtype
    double tensor_flops_per_ns_per_warp = 0;  // latency limit of one warp; 0 = no limit
    // Warp model (core/hardware.hpp Calibration::warp_model): off when `warp_model` is false.
    bool warp_model = false;
    double warp_iteration_ns = 0;             // fixed serial cost of one warp per iteration
    double warp_load_issue_ns_per_byte = 0;   // per global byte loaded per thread of the block
    double warp_overlap_exponent = 1;         // k warps per sub-partition deliver k^this
    double warp_smem_read_ns_per_byte = 0;    // per shared-memory byte read per warp
    double warp_op_ns = 0;                    // per FP32/SFU operation per thread
    bool warp_issue_model = false;            // Calibration::warp_issue_model: k x I + L, not k^(1-g)
    bool warp_queue_model = false;            // Calibration::warp_queue_model: wait L, then k_b x I shared
    bool warp_load_issue_serial = false;      // Calibration::warp_load_issue_serial: k x load issue
    double warp_fill_wait_ns_per_byte = 0;    // Calibration::warp_fill_wait_ns_per_byte (change 45)
    double warp_store_issue_ns_per_byte = 0;  // Calibration::warp_store_issue_ns_per_byte (change 76)
    int warp_wait_shared = 0;                 // Calibration::warp_wait_shared: the wait is shared SM work (change 48; 2: not in wait-then-issue launches, change 88)
    bool warp_smsp_pacing = false;            // Calibration::warp_smsp_pacing: a block's own k_s (change 52)
    double warp_chain_ns = 0;                 // Calibration::warp_chain_ns (change 56)
    double warp_chain_ns_per_instruction = 0; // Calibration::warp_chain_ns_per_instruction (change 56)
    // SM time per warp-instruction issued, 1 / (sub-partitions x clock x Calibration::issue_efficiency);
    // 0 = issue not charged (change 59).
    double ns_per_issued_instruction = 0;
    bool issue_phase_work = false;  // Calibration::issue_phase_work: instructions as phase work (change 72)
    int sm_subpartitions = 4;
    double fp32_flops_per_ns = 0;      // one SM
    double sfu_ops_per_ns = 0;         // one SM
    double hbm_latency_ns = 0;
    double l2_latency_ns = 0;
    double l1_latency_ns = 0;                 // an L1 hit (not scaled by load_latency_scale)
    double load_latency_ns_per_byte = 0;      // per byte per thread of a load phase (burst drain)
    // Calibration::pipelined_load_burst_issue: 0 off, 1 every pipelined launch (change 53), 2 only
    // those that issue before they wait (change 54).
    int pipelined_load_burst_issue = 0;
    double load_latency_ns_per_tbps = 0;      // per TB/s moved by the loads in flight (queueing)
    bool latency_queue_dram = false;          // the queueing counts and delays L2 misses only (change 65)
    // With latency_queue_dram, an L2 hit's round trip grows too (change 81): 1 with every load
    // byte in flight, 2 with the hits' bytes in flight only; 0 it does not.
    int latency_queue_l2_hits = 0;
    double l2_hit_ns_per_tbps = 0;            // the hits' growth under latency_queue_l2_hits (change 81)
    bool latency_queue_shared_path = false;   // a miss grows at the hits' slope with every byte too (change 81)
    std::uint32_t hbm_server_slots = 0;       // 0 = processor sharing; else limited (change 68)
    double block_start_spread = 0;            // later waves' block starts spread by this share (change 65)
    double block_reduction_ns = 0;            // one block-wide reduction (StepKind::reduction)
    double fragment_store_bytes_per_ns = 0;   // 0 = fragment stores cost what other stores do
    double fragment_store_issue_ns_per_byte = 0;  // per stored byte, on the SM server (change 35)
    bool fragment_store_own_drain = false;    // fragment stores drain on a server of their own
    double fragment_store_hold_ns_per_byte = 0;  // a fragment-storing block's wait per stored byte (change 60)
    double fragment_store_load_wait = 0;  // share of an SM's store wait its other blocks' loads wait (change 61)
    bool pipeline_wait_then_issue = false;    // honour Launch::loads_after_wait (change 36)
    int pipeline_serial = 0;  // a block's loads wait for its compute: 1 wait-then-issue loops, 2 all (change 63)
    int pipeline_additive = 0;  // a block's loads stand still while it computes: 1 wait-then-issue loops, 2 all (change 64)
    bool l2_fill_in_flight = false;           // a load hit on a chunk being filled waits for it (change 43)
    double hbm_activation_bytes = 0;          // HBM bytes-worth of time per DRAM page opened (change 37)
    double hbm_narrow_segment_ns = 0;         // extra round trip of a narrow-segment miss (change 62)
    bool l1_random_replacement = false;       // Calibration::l1_random_replacement
    bool smem_fill_bypass = false;            // Calibration::smem_fill_bypass (change 40)
    double l1_capacity_fraction = 1;          // Calibration::l1_capacity_fraction
    double block_overhead_ns = 0;
    double wait_then_issue_block_ns = 0;  // Calibration::wait_then_issue_block_ns (change 96)
    double warp_wait_shared_part = 0;     // Calibration::warp_wait_shared_part (change 96)
    double launch_overhead_ns = 0;
    // L2 request coalescer (Calibration::lrc_model; off when both probabilities are 0).
    double lrc_in_step_one_block = 0;
    double lrc_in_step_several_blocks = 0;
    double lrc_lock_loss_per_iteration = 0;
    double lrc_block_distance = 0;   // Calibration::lrc_block_distance (change 49); 0 = none
    bool lrc() const { return lrc_in_step_one_block > 0 || lrc_in_step_several_blocks > 0; }
};

// State shared by the launches of one prediction: the L2 contents carry from launch to launch.
struct SimState {
    const Hardware* hw = nullptr;
    const Options* options = nullptr;
    Rates rates;
    BufferLayout layout;
    L2System l2;  // one LRU per L2 partition (hw->l2_partitions)
    bool misaligned = false;  // an access broke a sampled layout's chunk size: rerun with a full scan
};

// Simulates launch number `index` starting at `start_ns`; fills metrics, extra, timeline, samples.
Result<LaunchResult> simulate_launch(SimState& state, const Launch& launch, std::size_t index,
                                     const Occupancy& occ, double start_ns);

}  // namespace tilescope::sim
