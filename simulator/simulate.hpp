// simulate(): the cycle-approximate engine. Pure and deterministic: same inputs, same outputs,
// bit for bit; no I/O. Knows nothing of CLI, Qt or CUDA.
#pragma once

#include <cstdint>
#include <vector>

#include "core/hardware.hpp"
#include "core/launch.hpp"
#include "core/prediction.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope::sim {

struct Options {
    bool l2 = true;             // false: every global load reaches HBM (must equal analytic())
    bool timeline = true;       // record one BlockSpan per block
    int max_samples = 1024;     // resource samples per launch (bandwidth counter tracks)
    // Speed/fidelity knob: when a launch's blocks x iterations exceeds this, runs of consecutive
    // iterations of a block are simulated as one phase (bytes unchanged; see launch_engine.cpp).
    // 0 = never coarsen. The default keeps e.g. flash2 b64 h16 n1024 Br128 Bc64 (131k) exact.
    std::int64_t phase_budget = 200000;
    // Guard against workloads that would run for many minutes: with the L2 on, simulate() refuses
    // (with the numbers) when its estimate of L2 chunk lookups exceeds this. 0 = no limit.
    double max_l2_chunk_accesses = 2e10;
    // The same guard for the blocks themselves (each costs the engine about 3 us, whatever the
    // L2): simulate() refuses a workload whose launches have more blocks than this. 0 = no limit.
    double max_blocks = 5e7;
    // Speed only: a block whose program repeats an earlier block's on other slices of the buffers
    // (Launch::repeat_of) reuses that program's phases instead of building them again. The
    // results are the same either way (tests/simulator/test_sim_program_reuse.cpp).
    bool reuse_programs = true;
};

Result<Prediction> simulate(const Workload& workload, const std::vector<Launch>& launches,
                            const Hardware& hw, const Options& options);

}  // namespace tilescope::sim
