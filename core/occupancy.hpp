// Occupancy exactly as the CUDA occupancy calculator computes it.
#pragma once

#include <cstdint>
#include <string>

#include "core/hardware.hpp"
#include "core/launch.hpp"
#include "core/result.hpp"

namespace tilescope {

struct Occupancy {
    int blocks_per_sm = 0;
    std::string limiter;              // "threads", "warps", "registers", "shared memory", "blocks"
    int by_warps = 0, by_registers = 0, by_smem = 0, by_blocks = 0;  // each limit's blocks/SM
    std::int64_t carveout_bytes = 0;  // shared-memory carve-out chosen per SM
    std::int64_t slots = 0;           // sm_count * blocks_per_sm
    std::int64_t waves = 0;           // ceil(blocks / slots)
    std::int64_t tail_blocks = 0;     // blocks in the last wave (== slots when the grid divides)
    double occupancy_fraction = 0;    // active warps / max warps per SM
};

// Errors name the limit broken, e.g. "block needs 196608 B of shared memory; a100-40gb allows 166912 B".
Result<Occupancy> occupancy(int threads_per_block, int registers_per_thread,
                            std::int64_t smem_bytes_per_block, std::int64_t blocks,
                            const Hardware& hw);
Result<Occupancy> occupancy(const Launch& launch, const Hardware& hw);

}  // namespace tilescope
