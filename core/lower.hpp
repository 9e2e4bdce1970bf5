// lower(): workload -> launches of block programs, with legality checks against the GPU.
#pragma once

#include <vector>

#include "core/hardware.hpp"
#include "core/launch.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope {

// Errors name the limit with numbers, e.g.
// "tile 256x256 with head-dim 128 needs 196608 B of shared memory per block; a100-40gb allows 166912 B".
Result<std::vector<Launch>> lower(const Workload& workload, const Hardware& hw);

}  // namespace tilescope
