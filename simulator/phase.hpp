// Phase: one iteration of a block program as the launch engine runs it (its loads, its compute at
// full SM rates, its stores), and coarsening of runs of phases (Options::phase_budget).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tilescope::sim {

// The per-SM pipes a phase's compute uses.
enum Unit4 : std::size_t { kUSmem, kUTensor, kUFp32, kUSfu, kUnits };

struct Phase {
    std::uint32_t load_begin = 0, load_end = 0;    // range in Slot::loads
    std::uint32_t store_begin = 0, store_end = 0;  // range in Slot::stores
    bool has_load = false, has_store = false;
    double comp_ns = 0;                 // at full SM rates
    std::array<double, kUnits> frac{};  // each pipe's share of comp_ns
    double smem_bytes = 0;
    double latency_scale = 1;           // coarsened phases: latencies paid in sequence
    double comp_latency_ns = 0;         // warp model: the block's fixed wait per mma iteration
                                        // (barriers, cp.async wait), before its work joins the SM
    bool streamed = false;              // coarsened + pipelined: its compute overlaps its own loads
    std::uint32_t first_iteration = 0;  // index of its first phase before coarsening
    std::uint32_t iterations = 1;       // phases it stands for (coarsening)
    double warp_ld_ns = 0;              // warp model, serial load issue: the part of comp_ns that is
                                        // the sub-partition's k warps issuing their loads in turn
                                        // (scaled by k_s / k, not (k_s / k)^(1-g), under
                                        // Calibration::warp_smsp_pacing)
};

// Coarsening (Options::phase_budget): when blocks x phases would exceed the budget, runs of G
// consecutive phases become one, with the loads, compute time (sum of the phases' times, so a
// block's compute time is unchanged) and stores of all of them. Bytes are unchanged; what is
// lost is overlap resolution inside a run (with stages >= 2 the first load of each run is not
// overlapped) and L2 timing inside a run. With stages = 1 each iteration pays its load latency
// in sequence, so a run's latency is G latencies. With stages >= 2 the real loop streams: the
// loads of iteration i + 1 overlap the compute of i, so inside a run loads and compute proceed
// side by side. A coarsened pipelined phase is therefore "streamed": its compute may start as
// soon as its loads are issued, and it counts as done when both have finished. Without this a
// run's loads were exposed once per block (+7% at G = 6, +67% at G = 16 on flash2 32x32); with
// it the error is a few per cent (see the report in sim_bench). A streamed run's loads take what
// its iterations of the s-stage pipeline take when they wait for their loads (launch_engine.cpp,
// Engine::streamed_window), not one latency for the whole run.
// With `period` > 0 (Launch::reread_period) runs never cross a multiple of `period`: each pass is
// coarsened on its own, so a pass's re-reads come a pass after its first reads, as on the GPU.
// Returns the number of phases merged into one (1 = unchanged).
std::int64_t coarsen_phases(std::vector<Phase>& phases, std::int64_t budget, std::int64_t blocks, bool serial,
                            std::int64_t period = 0);

}  // namespace tilescope::sim
