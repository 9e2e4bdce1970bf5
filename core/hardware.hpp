// Hardware: one GPU's facts, loaded from a JSON profile (profiles/*.json) and validated once.
//
// Every field carries its unit in its name. In the JSON file every field is an object
//   "hbm_bandwidth_bytes_per_s": { "value": 1.555e12, "source": "A100 datasheet, Table 1" }
// and the source note is kept in `sources` (field name -> note) so the CLI and GUI can show it.
// A calibrated profile (profiles/calibrated/) has the same fields plus a "calibration" object
// (fitted free parameters of the simulator) and a "provenance" object.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tilescope {

// Free parameters of the simulator, fitted by `tilescope calibrate`. Defaults are the
// physical ideal (datasheet bandwidth fully achieved, no extra overhead).
struct Calibration {
    double hbm_efficiency = 1.0;        // achieved / datasheet HBM bandwidth, (0, 1]
    double l2_efficiency = 1.0;         // achieved / datasheet L2 bandwidth, (0, 1]
    double smem_efficiency = 1.0;       // achieved / peak shared-memory bandwidth, (0, 1]
    double tensor_efficiency = 1.0;     // achieved / peak tensor-core rate, (0, 1]
    double fp32_efficiency = 1.0;       // achieved / peak FP32 rate, (0, 1]
    double launch_overhead_ns = 0.0;    // fixed cost per kernel launch
    double block_overhead_ns = 0.0;     // fixed cost per thread block (prologue, epilogue)
    // Simulator: latency limit of the tensor pipe. One warp issuing mma.sync sustains at most this
    // many tensor FLOP per SM clock (a dependent chain: one m16n8k16 = 4096 FLOP per mma latency
    // times the loop's independent mmas), so an SM's tensor rate is
    //   min(peak / SMs x tensor_efficiency, resident warps per SM x this x sm_clock)
    // with resident warps = blocks_per_sm x warps per block (occupancy). Few warps cannot hide the
    // latency; enough warps reach the throughput limit. 0 = no limit (the default: uncalibrated
    // profiles predict exactly as before this field existed).
    double tensor_flops_per_cycle_per_warp = 0.0;
    // Simulator: serial time of one warp (the "warp model"; off while all three are at their
    // defaults). A warp runs one iteration of its block's program in
    //   t_warp = tensor FLOP per warp / (tensor_flops_per_cycle_per_warp x sm_clock)
    //          + warp_iteration_ns                  (only iterations with tensor work)
    //          + warp_load_issue_ns_per_byte x (global bytes the iteration loads / threads per block)
    //          + warp_smem_read_ns_per_byte x (shared-memory bytes the iteration reads / warps)
    //          + warp_op_ns x ((FP32 + SFU operations of the iteration) / threads per block)
    // i.e. its mma chain, a fixed cost per iteration of an mma loop (the barrier, the reduction
    // and exp chain of an online softmax, loop control) and the issue of its share of the loads (address
    // arithmetic plus one 16-byte cp.async per lane), the fragments it reads from shared memory
    // (ldmatrix issue and the wait before the mma that uses them) and its threads' scalar work
    // (the online softmax's max, exp, sum and rescale, one dependent chain per thread). The last
    // two split what a single per-iteration cost cannot tell apart: a GEMM K step (two mma
    // k-steps, no scalar work) and a flash iteration (a Br x Bc softmax per block) pay very
    // different fixed costs. k warps sharing one SM sub-partition
    // overlap each other's latencies and deliver k^warp_overlap_exponent times one warp's
    // throughput, so with k resident warps per sub-partition an iteration takes
    // t_warp x k^(1 - exponent) (exponent 1: perfect hiding; 0: none). With the warp model on,
    // tensor_flops_per_cycle_per_warp enters t_warp instead of capping the SM's tensor rate.
    double warp_iteration_ns = 0.0;
    double warp_load_issue_ns_per_byte = 0.0;
    double warp_overlap_exponent = 1.0;
    double warp_smem_read_ns_per_byte = 0.0;  // optional: 0 = not part of t_warp (the default)
    double warp_op_ns = 0.0;                  // optional: 0 = not part of t_warp (the default)
    // Simulator: how the k warps of one SM sub-partition share an iteration (0 or 1; 0, the
    // default, is the power law above). 1 = the issue form, measured with Nsight Compute
    // (docs/validation change 23): a warp's iteration is issue I (the load-issue, shared-memory
    // read and scalar-op terms: instructions a scheduler issues one per clock, so k warps queue
    // for them) plus latency L (its mma chain, tensor FLOP per warp / the per-warp tensor rate,
    // plus warp_iteration_ns; it overlaps the other warps' issue), and the B blocks resident on an SM finish an
    // iteration together in k x I + L. Issue-slot use is then k I / (k I + L), the measured
    // k / (k + s) with s = L / I. warp_overlap_exponent must stay at 1 (it has no meaning here).
    double warp_issue_model = 0.0;
    // Simulator: a third form (0 or 1; docs/validation change 26): each warp alternates its issue I
    // (load-issue, shared-memory-read and scalar-op terms; the sub-partition's issue slot is
    // shared with the SM's other blocks) and a latency nobody shares (its mma chain, tensor FLOP
    // per warp / the per-warp rate, plus warp_iteration_ns): a phase waits the latency, then its
    // block's k_b x I joins the SM server, where the B resident blocks share it. A closed
    // network of blocks around one issue server, between the issue form's k x I + L and blocks
    // that never meet. warp_overlap_exponent must stay at 1; not with warp_issue_model 1.
    double warp_queue_model = 0.0;
    // Simulator: the power law's load issue is serial (0 or 1; docs/validation change 33). With 1,
    // the warps sharing a sub-partition issue their global loads (cp.async, ld.global) one after
    // another: the load-issue term of t_warp is charged k times (k warps per sub-partition) instead
    // of being stretched by k^(1-g) with the rest; the other terms keep the power law. Measured by
    // tilescope-l2-fill-probe (change 32): one warp's 16-byte cp.async takes 17-18 ns of its step
    // whatever the other warps do, and flash2's 2-warp tiles take about that much longer per
    // extra cp.async. Power-law form only (not with warp_issue_model or warp_queue_model, whose
    // issue term already queues the loads).
    double warp_load_issue_serial = 0.0;
    // Simulator: the warp's own time to issue its global stores, per byte each thread of the block
    // stores in the iteration (docs/validation change 76), as warp_load_issue_ns_per_byte is for its
    // loads: part of t_warp, and with warp_load_issue_serial 1 charged k times (the warps of a
    // sub-partition issue them one after another). Only launches whose stores are staged through
    // shared memory (Launch::staged_stores: FlashAttention-1's O_i, l_i, m_i each inner step,
    // FlashAttention-2's O); register stores (softmax's y) and fragment stores are not charged
    // (until 7a175c0 every non-fragment store was: candidate SR, which the softmax family refused).
    // tilescope-flash1-step-probe (change 75, lent H200): FlashAttention-1's inner step without
    // its stores is 1.86-1.91 us at 2, 4 and 8 warps, alone on its SM; with them 0.27-0.35 us
    // longer at one warp per sub-partition and 0.75 us at two, for 68 B per thread (d = 64); at
    // d = 128, 132 B per thread, 0.71-1.2 us: 5.4 ns/B over both (docs/validation change 76).
    // Power-law form only. 0 = none (the default: profiles without the field predict exactly as
    // before).
    double warp_store_issue_ns_per_byte = 0.0;
    // Simulator: the power law's fixed wait per mma-loop iteration grows with the global bytes the
    // block loads in that iteration (docs/validation change 45): a block's iteration waits
    // warp_iteration_ns + this x (bytes the block's tile loads of the iteration move). A wait, not
    // work: other resident blocks' work fills it, so a second block on an SM does not pay it again.
    // The GEMM iteration and residency series (changes 17, 42) measured a lone block's iteration
    // 64 ns longer per extra 4 KiB its tiles load (8, 12, 16 KiB: 537, 668-689, 833 ns at 8 warps,
    // 3 stages) while a second block adds about 130 ns whatever it loads. Power-law form only.
    // 0 = none (the default: profiles without the field predict exactly as before).
    double warp_fill_wait_ns_per_byte = 0.0;
    // Simulator: the power law's fixed wait per mma-loop iteration (warp_iteration_ns, plus the
    // fill wait above) is time of the SM that its resident blocks share, not a delay that another
    // block's work can fill (0 or 1; docs/validation change 48). With 1, each block's iteration
    // puts wait / B on its SM server as work (B = the launch's resident blocks per SM), so B blocks
    // take wait + B x work per iteration whether they run in step or not (a block alone on an SM
    // where B could reside, in a tail, gets that work at the SM server's per-job cap: it waits
    // between wait / B and wait); with 0 (the default, the law of change 17) the wait comes before
    // the work and blocks that drift out of step fill each other's waits. The residency series (change 17) measured wait + B x work for blocks that
    // start together; in the simulator's multi-wave launches the blocks drift apart and hid up to
    // a quarter of each iteration, which the H100's per-wave times do not show (change 48).
    // 2 (docs/validation change 88): shared as with 1, except in launches whose loop waits for its
    // oldest loads before it issues the next (Launch::loads_after_wait: the GEMM kernel, so the
    // GEMM family and naive attention's QK^T and P V), which keep the law of change 17: the GEMM
    // timeline probe (change 87, lent H200) timed three 64x64 GEMM blocks on an SM at 0.729 us per
    // K step each, the wait hidden under the other blocks' work, where the shared wait gives 0.862.
    // Power-law form only. 0 = off: profiles without the field predict exactly as before.
    double warp_wait_shared = 0.0;
    // Simulator: a phase's warp-instructions (the softmax lowering's issue steps) are work on its SM
    // server (0 or 1; docs/validation change 72): a phase takes at least its block's instructions
    // x 1 / (sub-partitions x clock x issue_efficiency) of the SM, shared with the SM's other
    // blocks, and a block uses at most min(1, warps / sub-partitions) of the SM (one instruction
    // per clock per warp's sub-partition). The softmax timeline probe measured a pass's time per
    // step on the H200 at about (warps per sub-partition x a warp's instructions per step) / clock:
    // the step is the schedulers' issue, not a fixed round trip. 0 (the default): the instructions
    // only floor the whole launch (issue_efficiency, change 59), as before.
    double issue_phase_work = 0.0;
    // Simulator: each block is paced by the busiest SM sub-partition its warps sit on (0 or 1;
    // docs/validation change 52). The power law's k is the SM's average of warps per
    // sub-partition, B x w / 4; but warps are whole, and the GPU puts warp slot i of an SM on
    // sub-partition i mod 4, a block's w warps in consecutive slots. Three blocks of two warps then
    // load the sub-partitions 2, 2, 1, 1: blocks 0 and 2 share two warps per sub-partition and
    // block 1 has its own. With 1, a block's work uses its own k_s (the most warps on any of its
    // sub-partitions): the stretched terms scale by (k_s / k)^(1 - exponent) and the serial load
    // issue by k_s / k. In a one-wave launch the slowest blocks set the time (the length series,
    // change 51, measured 32 x 128 at d = 64, 3 blocks of 2 warps, 1.32 x slower per iteration than
    // 32 x 64 with 6, where the average k gave 1.20 x); in a many-wave launch a light slot takes
    // more blocks and the SM's throughput stays near the average's. Power-law form only. Only
    // launches whose blocks load the sub-partitions unevenly change (4- and 8-warp blocks never
    // do). 0 = off: profiles without the field predict exactly as before.
    double warp_smsp_pacing = 0.0;
    // Simulator: the power law's wait per mma-loop iteration as the chain of instructions one warp
    // executes in it (docs/validation change 56). Launches whose lowering knows that count
    // (Launch::chain_instructions: the plain GEMM kernel at 8 warps and tile_k 32, counted by
    // Nsight Compute, core/kernel_registers.hpp compiled_gemm_instructions) wait
    //   max(0, warp_chain_ns + warp_chain_ns_per_instruction x instructions - a lone block's work)
    // per iteration instead of warp_iteration_ns (+ the fill wait), so that a block alone on its SM
    // takes the chain, and B blocks in step the chain plus (B - 1) blocks' work. The H100's
    // iteration series measured lone 8-warp, 3-stage iterations at 71.5 ns + 3.330 ns per
    // instruction within 2 ns on all four tiles. Other launches keep warp_iteration_ns. Power-law
    // form only. 0 = off (the default: profiles without the fields predict exactly as before).
    double warp_chain_ns = 0.0;
    double warp_chain_ns_per_instruction = 0.0;
    // Simulator: the share of its peak (one warp-instruction per clock on each of the SM's
    // sm_subpartitions schedulers, at sm_clock_hz) that an SM sustains when its warps have
    // instructions to spare (docs/validation change 59). Launches whose lowering knows the warp-
    // instructions its blocks execute (StepKind::issue: the softmax kernel, counted by Nsight
    // Compute) take at least that many instructions / (sub-partitions x clock x this) of SM work
    // per phase, like another pipe. The H200 softmax probe measured the schedulers issuing in at
    // most 87.9% of the active cycles. 0 = off (the default: profiles without the field predict
    // exactly as before).
    double issue_efficiency = 0.0;
    bool warp_model() const {
        return warp_iteration_ns > 0 || warp_load_issue_ns_per_byte > 0 || warp_overlap_exponent != 1.0 ||
               warp_smem_read_ns_per_byte > 0 || warp_op_ns > 0 || warp_issue_model != 0.0 || warp_queue_model != 0.0 ||
               warp_load_issue_serial != 0.0 || warp_fill_wait_ns_per_byte > 0 || warp_wait_shared != 0.0 ||
               warp_smsp_pacing != 0.0 || warp_chain_ns_per_instruction > 0 || warp_store_issue_ns_per_byte > 0;
    }
    // Simulator: exposed latency of a tile load, as a multiple of the pointer-chase latencies
    // (hbm_latency_ns, l2_latency_ns). A pointer chase times one dependent 4-byte load on an idle
    // GPU; a block's tile load is a burst of 16-byte requests from every lane, spread over many
    // DRAM pages and both L2 partitions, and its last byte (which the wait needs) arrives later.
    // The simulator charges each load phase latency x this. 1 = the pointer chase (the default:
    // profiles without the field predict as before).
    double load_latency_scale = 1.0;
    // Simulator: the same wait grows with the burst: a lane's requests return one after another,
    // so a load phase's latency also gets this many ns per byte each thread of the block loads
    // in it (bytes / threads per block). A softmax step (16 B per thread) barely notices it; a
    // flash1 inner step with d = 128 (Q_i and O_i: 512 B per thread) waits for its last 16-byte
    // request much longer. 0 = none (the default).
    double load_latency_ns_per_byte = 0.0;
    // Simulator: in a pipelined loop (stages >= 2) a load's burst term is the warp's load-issue
    // cost, not the burst drain above (0 or 1; docs/validation change 53). Such a load is issued
    // `stages - 1` iterations ahead by `cp.async` instructions that leave one at a time at the
    // issue cost `tilescope-l2-fill-probe` measured (warp_load_issue_ns_per_byte, 1.11 ns/B on the
    // H100), so its last request is that much later than its first; the drain term
    // (load_latency_ns_per_byte, fitted on FlashAttention-1 and softmax loads the block waits for
    // at once: 3.08 ns/B) charged a two-warp FlashAttention-2 block's first 32 KiB fill about
    // 1.6 us. With 1, launches with stages >= 2 use warp_load_issue_ns_per_byte per byte per
    // thread there; launches with stages = 1 keep load_latency_ns_per_byte. With 2 (change 54) only
    // pipelined launches that issue before they wait (not Launch::loads_after_wait: FlashAttention-2)
    // do; the GEMM kernel's wait-then-issue loops keep the drain term, which change 53 found stands
    // in there for a wait not yet measured. 0 = off (the default: profiles without the field
    // predict exactly as before).
    double pipelined_load_burst_issue = 0.0;
    // Simulator: the same round trip grows with the traffic the memory system carries: this many
    // ns per TB/s that loads in flight GPU-wide move (docs/validation change 27: on the H100 a
    // loop with one 16-byte load per lane in flight takes about 0.45 us + 0.15 us per TB/s in use,
    // measured over 0.5-1.5 TB/s). With B bytes in flight (every load phase issued and not yet
    // back, one iteration's worth each) and L0 the latency above, Little's law (throughput = B / L)
    // gives L = L0 + c B / L, solved for L. The bandwidth bound is kept as before (a load is back
    // no sooner than its bytes are served). 0 = none (the default: profiles without the field
    // predict exactly as before).
    double load_latency_ns_per_tbps = 0.0;
    // Simulator: the queueing term above counts DRAM traffic only (0 or 1; docs/validation change
    // 65). 1: B is the bytes in flight that missed in the L2 (one iteration's fills per load
    // phase), and only a miss's round trip (the HBM latency) grows with it; an L2 hit's does not.
    // The probes that measured the term (change 27's softmax grid, change 62's segment stream)
    // streamed from DRAM; an L2 hit does not queue at the DRAM. 0 (the default): every load in
    // flight counts and every round trip grows, as before.
    double load_latency_queue_dram = 0.0;
    // Simulator (with load_latency_queue_dram = 1): an L2 hit's round trip grows too (0, 1 or 2;
    // docs/validation change 81). The misses keep the DRAM-only term above; a hit's L2 latency grows
    // by the same c ns per TB/s with 1: every load byte in flight (misses and hits: they share the
    // crossbar and the L2 slices), 2: the hits' bytes in flight only. 0 (the default): a hit's
    // round trip does not grow, as with load_latency_queue_dram alone.
    double load_latency_queue_l2_hits = 0.0;
    // The hits' growth, ns per TB/s, where it differs from load_latency_ns_per_tbps (0: the same).
    double load_latency_l2_hit_ns_per_tbps = 0.0;
    // With load_latency_queue_l2_hits = 1, a miss's round trip shares the hits' path (0 or 1;
    // change 81): it grows at the hits' slope with every load byte in flight and at the rest of
    // load_latency_ns_per_tbps with the bytes that missed, so DRAM-only traffic gives the misses'
    // slope and hit-only traffic the hits'. 0 (the default): the misses grow with their own bytes.
    double load_latency_queue_shared_path = 0.0;
    // Simulator: blocks after the first wave start out of step (docs/validation change 65). The
    // engine is deterministic and identical blocks that start together stay in lock-step for the
    // whole launch, where the hardware's drift apart (the QK^T timeline probe, change 60: 3-8% of
    // a block's starts fall within 5% of its length of another start on its SM). With a in (0, 1],
    // a block that replaces a retired one starts after block_overhead_ns x (1 + a (2u - 1)), u in
    // [0, 1) a hash of its index: the mean is unchanged, the first wave starts together (the
    // residency series, change 41). 0 (the default): every block after block_overhead_ns.
    double block_start_spread = 0.0;
    // Simulator: the HBM server's service slots (docs/validation change 68). The memory servers
    // share their bandwidth by processor sharing, which finishes equal requests that arrived
    // together at the same instant, so blocks of a first wave that start in step stay in step,
    // load after load (the online softmax's first wave alternates between a saturated and a
    // nearly idle HBM). With S > 0, at most S requests share the HBM's bandwidth at once and the
    // rest wait first come first served (limited processor sharing): requests that arrive
    // together leave in turn, S at a time, and the blocks drift apart as the hardware's do. Only
    // launches with more than S requests in the HBM at once change (softmax-like grids of many
    // small blocks). 0 (the default): every request shares it, as before. A whole number.
    double hbm_server_slots = 0.0;
    // Simulator: the latency of one block-wide reduction (kernels/softmax block_reduce: five
    // dependent warp shuffles, a shared-memory exchange between the warps and two barriers),
    // which every warp of the block waits for before the next pass over its row can load. The
    // softmax kernel reduces a row's max and its sum (safe: after passes 1 and 2; online: both
    // after pass 1); such a wait is per row and hidden only by other blocks, so it weighs most
    // where few blocks share an SM. 0 = none (the default: profiles without the field predict
    // exactly as before). docs/validation change 29.
    double block_reduction_ns = 0.0;
    // Simulator: the rate, bytes/s for the whole GPU, at which stores written as mma accumulator
    // fragments (Launch::fragment_stores(): 4 bytes per lane, half of a 32-byte sector per request)
    // drain through the L2. Fitted by calibrate (the calibrated H100 profile: 0.92 TB/s); measured
    // alone by bench/scripts/hbm_write_rate.py, which writes the same 4 GiB once as GEMM-epilogue
    // fragments and once with 16-byte coalesced stores (H100: 0.87 against 3.27 TB/s). Such a
    // store's L2 work is its bytes x L2 rate / this rate, on the L2 server shared with the loads.
    // 0 = like any store (the default).
    double fragment_store_bytes_per_s = 0.0;
    // Simulator: the fragment stores' own path (docs/validation change 35; both 0 by default, so
    // profiles without them predict exactly as before). tilescope-store-path-probe (change 24)
    // found the slow path in two places: each SM issues fragment stores at 15.8 GB/s whatever its
    // warps (1-4 SMs, 8 or 32 warps per SM: 0.0632 ns per byte), and the whole GPU drains them at
    // about 0.9 TB/s, while L2-resident reads between them cost the stores almost nothing.
    // fragment_store_issue_ns_per_byte: ns per stored byte that a fragment-store phase adds to
    // its block's work on the SM (the SM server, shared with the SM's other blocks).
    // fragment_store_own_drain = 1: the stores' data bytes drain on a GPU-wide server of their
    // own at fragment_store_bytes_per_s, and their sectors cost the L2 server only their bytes at
    // its own rate (0: the L2 work of a fragment store is its bytes x L2 rate / that rate, shared
    // with the loads, as before).
    double fragment_store_issue_ns_per_byte = 0.0;
    double fragment_store_own_drain = 0.0;
    // Simulator: ns per stored byte that a block writing mma fragments keeps its slot after its
    // last compute (docs/validation change 60; 0 = none, the default). tilescope-qk-timeline-probe
    // (H200) timed naive attention's QK^T blocks: from the end of a block's K loop to its last
    // warp's last store takes 0.72, 1.26-1.27 and 2.60-2.68 us for 8, 16 and 32 KiB of scores,
    // 0.079 ns per byte (bench/scripts/qk_timeline_summary.py), with 2 or 4 blocks per SM and at
    // d = 64 or 128 alike. That time is the block's own (its warps issue their stores one
    // partial-sector row at a time); the other blocks of the SM run meanwhile, so it is a wait of
    // the block, not SM work.
    double fragment_store_hold_ns_per_byte = 0.0;
    // Simulator (with fragment_store_hold_ns_per_byte > 0), a share in [0, 1]: while a block of an
    // SM is in that store wait, the SM's other blocks stand still for this share of it. Their load
    // and compute jobs are longer by share x (the job's time) x (the store waits the SM's other
    // slots have begun) / (the time since the launch began): the blocks are taken to be out of
    // step, as on the hardware. Measured (H200, docs/validation change 61: naive attention's QK^T
    // blocks with their stores, with the scores held by the L2, and with no stores): the stores
    // lengthen the other blocks' K loops by 0.74-0.97 of the store time that overlaps them with
    // 2 blocks per SM, and alike whether the scores go on to DRAM or stay in the L2, so the stores
    // hold the SM back on its own side, not as L2 or DRAM bandwidth.
    double fragment_store_load_wait = 0.0;
    // Simulator: honour a pipelined loop's order (0 or 1; docs/validation change 36). 1 = a launch
    // whose loop waits for its oldest loads before issuing the next (Launch::loads_after_wait: the
    // GEMM kernel, so naive attention's QK^T and P V too) keeps s-1 iterations' loads in flight and
    // issues each as the oldest returns: a latency-bound loop takes L / (s-1) per iteration. 0 (the
    // default, the law before change 36) = every pipelined loop as flash2's, which issues first and
    // waits after: (L + c) / s. The flag only says whether the simulator reads the launch's order,
    // so profiles without it predict exactly as before.
    double pipeline_wait_then_issue = 0.0;
    // Simulator: a block's pipelined loads do not overlap its own compute (0, 1 or 2; docs/validation
    // change 63): iteration j's loads are issued once iteration j-1 has computed, as in a one-stage
    // loop, so a block's iteration takes its loads' round trip plus its compute; other blocks on the
    // SM still overlap it. 1: wait-then-issue loops only (Launch::loads_after_wait: the GEMM kernel,
    // so the GEMM family and naive attention's QK^T and P V); 2: every loop with stages >= 2 (also
    // FlashAttention-2's issue-first loop). The loop overlap probe (tilescope-loop-overlap-probe,
    // lent H200) timed the GEMM kernel and FlashAttention-2 whole, without their mma and without
    // their loops' loads: whole = 0.87-1.49 x (loads + compute) over P V's and the GEMM family's
    // grids, where the pipelined law takes about the larger of the two. The launch's stages still
    // size its shared memory (so its blocks per SM). 0 (the default) = the pipelined law, so
    // profiles without the field predict exactly as before.
    double pipeline_serial = 0.0;
    // Simulator: a block's pipelined loads make no progress while the block computes (0, 1 or 2;
    // docs/validation change 64). A load is back later by the time its block spent computing
    // while the load was in flight, so the loop keeps its stages' loads in flight (its loads-only
    // period is the pipelined one: L / (s - 1) for a wait-then-issue loop, L / s for an issue-first
    // one) and adds its compute to it, which is what the loop overlap probe measured (whole about
    // loads only + compute only); pipeline_serial instead exposes the whole round trip L + c.
    // 1: wait-then-issue loops (Launch::loads_after_wait: the GEMM kernel); 2: every loop with
    // stages >= 2 (FlashAttention-2 too). Other blocks on the SM still overlap a block's waits.
    // 0 (the default) = the pipelined law, so profiles without the field predict as before.
    double pipeline_additive = 0.0;
    // Simulator: a load that hits an L2 chunk whose fill from HBM is still in flight waits for that
    // fill (0 or 1; docs/validation change 43). 0 (the default, the law before change 43): a chunk
    // is present in the L2 from the moment its miss is issued, so when blocks that run in step read
    // the same tile, the first misses and the others hit at the L2's latency. 1: they get the data
    // with the first one's fill (the L2's miss-status registers hold them), i.e. they wait as a miss
    // does, and no sooner than the fill lands (issue + the scaled HBM latency). Bytes and hits are
    // counted by the same rules; their totals move only as far as the new timing changes the order
    // in which blocks reach the L2 (the coalescer's joins, the LRU's victims).
    double l2_fill_in_flight = 0.0;
    // Simulator: how many DRAM pages the HBM opens per second, GPU-wide (docs/validation change 37;
    // 0, the default, = no such limit, as before). A load whose misses are narrow row segments of a
    // wide matrix (naive attention's P V reads 64 bytes of each of 128 rows of P per k-tile, rows
    // 4 KiB or more apart) opens a page per segment; the HBM moves such data no faster than this
    // many pages per second (its activation window: per pseudo-channel at most four activations per
    // tFAW), whatever its bandwidth. The simulator charges a load's misses the larger of their
    // bytes and the pages they open (one per KiB of each row segment) times hbm bandwidth / this.
    double hbm_activations_per_s = 0.0;
    // Simulator: the extra round trip (ns) of an HBM miss on narrow row segments (docs/validation
    // change 62; 0, the default, = none, as before). A load region whose rows lie at least a DRAM
    // page (1 KiB) apart and are row_bytes wide (naive attention's P V reads 64 bytes of each row
    // of P per k-tile, the rows 4 KiB or more apart; the GEMM kernel's operands alike) adds this x
    // min(1, 64 / row_bytes) to its iteration's round trip when it misses in the L2; an iteration
    // pays its slowest region's. Measured (tilescope-segment-stream-probe, H200, 2 stages): 64-byte
    // segments take 140-215 ns longer per round trip than the same bytes in flight read
    // contiguously (169-194 ns in P V's own configurations, hence 180), 128-byte segments
    // 65-115 ns, 256-byte 25-60 ns; the rate of narrow segments is
    // not capped below 2.6-2.9 TB/s (hbm_activations_per_s does not bind at P V's 1.7-1.9 TB/s).
    double hbm_narrow_segment_ns = 0.0;
    // Simulator: the L1's victim (0 or 1; 0, the default, is the least recently used chunk). 1 =
    // random replacement (docs/validation change 25): the H100's L1 keeps less of a re-read row
    // than an LRU of its capacity would (simulator/l1_cache.hpp).
    double l1_random_replacement = 0.0;
    // Simulator: whether tiles that `cp.async` writes into shared memory (StepKind::smem_fill)
    // take the shared-memory pipe's time (0, the default) or arrive through the L1's fill path
    // beside it (1): then only the ldmatrix reads and the warps' own st.shared take the
    // 128 B/clock (docs/validation change 40).
    double smem_fill_bypass = 0.0;
    // Simulator: the share of the L1 (what the shared-memory carve-out leaves of the SM's 256 KiB)
    // that holds re-read global data, in (0, 1]; 1, the default, is all of it. Fitted with random
    // replacement to the L2 bytes of training launches that read through the L1
    // (validate/scripts/fit_l1.py).
    double l1_capacity_fraction = 1.0;
    // Simulator: the share of each L2 partition that dirty data may fill, [0, 1]; a store beyond
    // it writes back (and evicts) the partition's least recent dirty chunks while the kernel runs.
    // 0 = no limit (the default: the LRU keeps stores dirty until they are evicted). Measured by
    // kernels/tools/l2_reuse_probe.cu (docs/validation change 30): whatever the size a kernel
    // writes, the H100 keeps 23.7 MiB of it dirty (0.47 of its 50 MiB) and writes back the rest.
    double l2_dirty_limit = 0.0;
    // Simulator: the L2's soft edge (change 49). W > 0: a newcomer's victim is the least recent of
    // W chunks of its partition drawn at random, the statistics of a W-way set-associative LRU
    // whose sets an address hash picks, so data a little larger than the L2 is partly kept and
    // data a little smaller partly lost; 0 (the default) = the exact LRU of all chunks. A whole
    // number in [0, 256]. Measured by kernels/tools/l2_reuse_probe.cu: the H100 re-reads from DRAM
    // 0.8% of 28 MiB, 7% of 32, 36% of 36, 80% of 40 and 99% of 44 MiB read twice, where the exact
    // LRU loses nothing up to 32 MiB and everything from 36; W = 12 replays that curve best
    // (build/release/bin/l2_probe_replay --ways 12; rms 0.036 against 0.156).
    double l2_ways = 0.0;
    // Simulator: 1 = a store from an SM of the partition that is not the chunk's home leaves a clean
    // copy in the SM's partition, as a far load does (change 49; 0, the default: the near copy is
    // dropped). The same probe's read-and-copy curve: its re-read loses 13% at 16 MiB and 50% at
    // 20, which only a store that takes room in both partitions comes near (replay rms 0.114
    // with W = 12 against 0.194 without the copy).
    double l2_store_copy = 0.0;
    // Simulator: 1 = with sampled victims (l2_ways > 0), a newcomer evicts the least recent clean
    // chunk of its draw, a dirty one only when every chunk drawn is dirty (change 74; 0, the
    // default: the least recent chunk drawn, clean or dirty). The L2 reuse probe's read-and-copy
    // curve (re-read lost 13% at 16 MiB, 50% at 20, 81% at 24, 95% at 28) is replayed at 5%,
    // 52%, 95%, 99% with it and 3%, 23%, 50%, 71% without (W = 12, with the store copy); its
    // read-only curve has no dirty chunk and does not change. Set in no bundled profile: on the
    // H100 data set it keeps output streams dirty that the GPU writes back, and the training HBM
    // bytes came out resolvably worse (2.43% -> 5.44%; docs/validation change 74).
    double l2_clean_victims = 0.0;
    // Simulator: a dirty chunk takes this many times its bytes of its L2 partition while it stays
    // dirty (change 91; >= 1, 1 = the default: its bytes). A stand-in, set from measured curves,
    // for what a stream of stores costs the L2 beyond the dirty data itself: on an H200, with the
    // L1 out of the way, the softmax kernel's second read of its rows loses 26% at 26 MB of rows in
    // flight beside its output stream where the model with weight 1 loses 12%, and the L2 reuse
    // probe's read-and-copy re-read loses 49% at 24 MiB where the model loses 22%, while the
    // read-only curve (no dirty chunk, which this cannot change) is replayed within 0.05
    // (bench/softmax_reuse_whatif, bench/l2_probe_replay --dirty-weight).
    double l2_dirty_weight = 1.0;
    // Simulator: with sampled victims (l2_ways > 0), a dirty chunk's age counts at this share of
    // its own when a newcomer picks its victim, so stored data outlives clean data up to 1/w times
    // more recent ((0, 1], 1 = the default: the least recent chunk drawn). Measured by the L2
    // reuse probe's variants on an H200 (change 78): w = 0.5 replays all five store patterns
    // (rms 0.045 against 0.159), stores made before a read still costing its re-read.
    double l2_dirty_age_weight = 1.0;
    // Simulator: the L2 request coalescer (LRC) of GH100, which merges a read request for a sector
    // with one for the same sector already on its way to the L2, in pairs (Nsight Compute's
    // lrc__request_sectors_op_read_coalescing_achieved_type_hardware: at most ~0.5 of the requested
    // sectors, 4-52% for flash2 and GEMM tiles, 0 for flash1; bench/results/h100_lrc_coalescing.jsonl).
    // In the simulator a load joins another block's request for the same region issued within one
    // loaded HBM round trip that nobody has joined yet. Its identical blocks run in exact lock-step
    // where the hardware's drift apart, so a join merges p x exp(-loss x i) of the region's bytes:
    // i = the main-loop iteration, p = lrc_in_step_one_block when each SM holds one block of the
    // launch, else lrc_in_step_several_blocks. Merged bytes leave lts__t_bytes and the L2's work;
    // the joining load is back no sooner than the one it joined. Both p at 0 (the default) = no
    // coalescer: profiles without the fields predict exactly as before. Fitted to the training
    // half's lts__t_bytes by `tilescope calibrate`.
    double lrc_in_step_one_block = 0.0;
    double lrc_in_step_several_blocks = 0.0;
    double lrc_lock_loss_per_iteration = 0.0;
    // Simulator: a join of two blocks d apart in launch order merges a further exp(-d / this)
    // (docs/validation change 49): the GPU hands out blocks in order, so neighbours start together.
    // The H100's coalescer merges 1.3-2.2 times more of a 128x64 GEMM tile's reads (its 8 KiB A
    // tile shared by neighbours in a grid row) than of a 64x128 tile's (its 8 KiB B tile shared
    // by blocks a grid row apart), bench/results/h100_lrc_coalescing.jsonl. 0 (the default) = no
    // such factor.
    double lrc_block_distance = 0.0;
    bool lrc_model() const { return lrc_in_step_one_block > 0 || lrc_in_step_several_blocks > 0; }
    // Simulator: the most one SM can pull through its L2 port, bytes per SM clock (Ampere and
    // Hopper: 64 B/clk per SM). Only binds when few SMs are busy (tail waves, small grids).
    double sm_l2_bytes_per_cycle = 64.0;
    // Simulator: in a launch with tensor work (an mma loop), the SM server shares the SM among the
    // blocks resident on it, not only among those with work in it (0 or 1; docs/validation change
    // 84). 1 = a block's work runs at most at 1/R of the SM, R the SM's slots that hold a block
    // (one waiting out its block overhead or its loads included), so a block does not take over
    // the share of a resident block that is waiting; R falls only when slots empty (the last
    // wave). Launches without tensor work (softmax) keep the default. 0 (the default) = processor
    // sharing among the blocks with work in the server, up to the warp model's per-block cap, so
    // at 4 blocks per SM the other blocks' work fills a block's waits (change 83).
    // 2 (change 95) = as 1, but a block waiting out its mma iteration's fixed wait (the power law's
    // comp_latency_ns: barrier, cp.async wait) is not counted in R until its work joins the SM,
    // so the other resident blocks' work fills that wait (the GEMM kernel's blocks timed on the
    // GPU, change 87: three 64x64 blocks per SM overlap their K-step chains); a block waiting
    // out its block overhead, its loads or its stores still keeps its share.
    double sm_share_resident = 0.0;
    // Simulator: the GEMM kernel's fixed part per block, beyond block_overhead_ns (ns >= 0;
    // docs/validation change 96). A block of a wait-then-issue launch (Launch::loads_after_wait
    // with pipeline_wait_then_issue on and 2+ stages: the GEMM kernel, so naive attention's QK^T
    // and P V too) starts this much later than its slot is given: its prologue, which issues the
    // first stages and waits for the oldest before the loop, and its accumulator epilogue. Change
    // 87 timed the kernel's blocks: a fixed 2.3-2.9 us + a time per K step, where the model's line
    // has 1.0-1.9 us. Other launches (softmax's one-row blocks, FlashAttention) do not pay it.
    // 0 (the default) = none.
    double wait_then_issue_block_ns = 0.0;
    // Simulator: the part of a wait-then-issue launch's iteration wait that the SM's resident
    // blocks pay together (0..1; docs/validation change 96). With warp_wait_shared 2 the GEMM
    // kernel's iteration wait stays a wait; this fraction of it is instead SM work shared by the
    // B resident blocks (as warp_wait_shared 1 makes all of it), and the rest stays a wait that,
    // with sm_share_resident 2, the other blocks' work can fill. Change 87's GEMM steps fit the
    // SM's shared-memory time plus 215 + 315 / B ns: a shared part and a hidden part. 0 (the
    // default) = all of it a wait, as before.
    double warp_wait_shared_part = 0.0;
    bool calibrated = false;            // true when read from a profile's "calibration" object
};

struct Hardware {
    std::string name;           // profile id, e.g. "a100-40gb" (the file stem for bundled ones)
    std::string display_name;   // e.g. "NVIDIA A100-SXM4-40GB"
    std::string origin;         // where it was loaded from (path)
    int compute_capability = 0; // e.g. 80, 90

    // Streaming multiprocessors and per-SM limits (CUDA occupancy calculator inputs).
    int sm_count = 0;
    int max_threads_per_sm = 0;
    int max_warps_per_sm = 0;
    int max_blocks_per_sm = 0;
    int max_threads_per_block = 0;
    int warp_size_threads = 32;
    int sm_subpartitions = 4;                 // processing blocks per SM; registers are split among them
    int registers_per_sm = 0;                 // 32-bit registers
    int max_registers_per_thread = 0;
    int max_registers_per_block = 0;
    int register_allocation_unit = 0;         // registers, allocated per warp in these units (256)
    std::vector<int64_t> smem_carveout_steps_bytes;  // legal shared-memory carve-outs per SM, ascending
    int64_t smem_per_sm_bytes = 0;            // largest carve-out
    int64_t smem_per_block_max_bytes = 0;     // opt-in maximum dynamic shared memory per block
    int64_t smem_reserved_per_block_bytes = 0;  // system reservation per block (1024 B on sm_80+)
    double smem_bandwidth_bytes_per_cycle_per_sm = 0;  // 32 banks x 4 B = 128
    // L1: the SM's unified L1 data cache + shared memory. What the launch's shared-memory
    // carve-out leaves is L1, which caches plain global loads (Launch::l1_cached_loads); cp.async
    // .cg tile loads bypass it. Optional in profiles: 0 = no L1 model (every load reaches L2).
    int64_t l1_smem_bytes_per_sm = 0;
    double l1_latency_ns = 0;                 // load-to-use latency of an L1 hit

    // L2
    int64_t l2_bytes = 0;
    int l2_line_bytes = 0;
    int l2_sector_bytes = 0;
    double l2_bandwidth_bytes_per_s = 0;
    double l2_latency_ns = 0;
    // L2 partitions (H100/A100: 2, joined by a fabric). Lines are address-interleaved over the
    // partitions, so a share (p-1)/p of the lines is homed in a partition that is not the
    // requesting SM's. A request the near partition cannot serve (an L2 miss, or any store, which
    // must reach the line's home) is looked up there too, and `lts__t_bytes` counts both lookups.
    // Optional in profiles; absent = 1 (one partition, no extra lookups).
    int l2_partitions = 1;
    double l2_far_share() const { return l2_partitions > 1 ? (l2_partitions - 1.0) / l2_partitions : 0.0; }

    // HBM
    int64_t hbm_bytes = 0;
    double hbm_bandwidth_bytes_per_s = 0;
    double hbm_latency_ns = 0;

    // Clocks
    double sm_clock_hz = 0;     // boost clock used for per-SM rates
    double memory_clock_hz = 0;

    // Compute rates, whole GPU, dense
    double tensor_fp16_flops_per_s = 0;
    double tensor_bf16_flops_per_s = 0;
    double tensor_tf32_flops_per_s = 0;  // used for fp32 matmul on tensor cores
    double fp32_flops_per_s = 0;         // FMA counted as 2
    double sfu_ops_per_s = 0;            // exp2 / rcp etc.

    double kernel_launch_latency_ns = 0;  // time from launch to first block, per kernel

    Calibration calibration;
    std::map<std::string, std::string> sources;  // field -> source note
    std::map<std::string, std::string> provenance;  // calibrated profiles: gpu, driver, date, commit...
};

// The range a number field of a profile must lie in, by the unit its name ends with ("_ns",
// "_per_s", "_efficiency", ...): a value outside is a wrong unit or a typo that no GPU gives.
// Optional fields may also be 0. No value for a field without such a range.
struct PlausibleRange {
    double lo, hi;
    const char* what;  // the unit, for messages: "ns (one second)", "per second", ...
};
std::optional<PlausibleRange> plausible_range(const std::string& field);

// Parse and validate a profile. Reports the first problem with its JSON path and the rule it
// breaks, e.g. "profile h100.json: $.sm_count.value must be a positive integer (got -4)".
Result<Hardware> parse_hardware(const std::string& json_text, const std::string& origin);
Result<Hardware> load_hardware_file(const std::string& path);

// `spec` is a bundled profile name ("a100-40gb", "calibrated/h100-sxm") or a path to a JSON file.
Result<Hardware> load_hardware(const std::string& spec);

// Directory holding the bundled profiles: $TILESCOPE_PROFILE_DIR if set, else the install or
// source-tree location compiled in.
std::string profile_dir();

// 64-bit FNV-1a (offset basis 14695981039346656037, prime 1099511628211): the hash of profile
// fingerprints and of validate's training / held-out split.
std::uint64_t fnv1a64(std::string_view text);

// FNV-1a-64 (hex) of the profile's JSON serialisation (hardware_to_json, which includes the
// calibration) without its origin, source notes and provenance: any change of a profile number
// or a calibrated parameter changes it, a changed note does not. Stored predictions
// (validate --predictions) and a profile's recorded validation are tied to it.
std::string profile_fingerprint(const Hardware& hw);

// One line on how far to trust a profile's predictions, for the CLI's tables: whether it is
// calibrated, and what `validate` measured for it on held-out cases when its provenance records
// that (the "validated" entry; when a "validated_fingerprint" is recorded too, only while the
// profile's fingerprint still equals it: an edited copy is said to be edited), else that it was
// never compared with measurements.
std::string profile_status(const Hardware& hw);

// Serialise a Hardware back to the profile JSON format (values with their source notes,
// calibration and provenance objects). parse_hardware(hardware_to_json(hw)) reproduces hw.
std::string hardware_to_json(const Hardware& hw);

// The Calibration field called `name` (its JSON key), or nullptr when there is none.
double* calibration_member(Calibration& c, const std::string& name);
// Names of bundled profiles (file stems, calibrated ones as "calibrated/<stem>"), sorted.
std::vector<std::string> list_bundled_profiles();

}  // namespace tilescope
