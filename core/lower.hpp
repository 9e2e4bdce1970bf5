// lower(): workload -> launches of block programs, with legality checks against the GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "core/launch.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope {

// Errors name the limit with numbers, e.g.
// "tile 256x256 with head-dim 128 needs 196608 B of shared memory per block; a100-40gb allows 166912 B".
// A workload whose buffers (each distinct buffer name once) exceed the GPU's device memory is an
// error too: "attention-naive ... needs 35184372088832 B of device memory (Q, K, V, S, P, O); ...".
Result<std::vector<Launch>> lower(const Workload& workload, const Hardware& hw);

// Bytes of device memory the launches' buffers occupy, a buffer shared by name counted once;
// `names` (optional) receives the buffer names, comma-separated.
std::int64_t device_footprint_bytes(const std::vector<Launch>& launches, std::string* names = nullptr);

}  // namespace tilescope
