// simulate(): the cycle-approximate engine. Pure and deterministic: same inputs, same outputs,
// bit for bit; no I/O. Knows nothing of CLI, Qt or CUDA.
#pragma once

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
};

Result<Prediction> simulate(const Workload& workload, const std::vector<Launch>& launches,
                            const Hardware& hw, const Options& options);

}  // namespace tilescope::sim
