// Occupancy, computed the way the CUDA occupancy calculator (cuda_occupancy.h) does:
//  - warps: a block occupies ceil(threads / warp_size) warps; blocks <= max_warps / warps_per_block.
//  - registers: each warp is allocated round_up(regs_per_thread * warp_size, allocation_unit)
//    registers; the register file is split evenly among the SM's sub-partitions and a warp's
//    registers live in one sub-partition, so an SM holds
//    floor(registers_per_sm / subpartitions / regs_per_warp) * subpartitions warps.
//  - shared memory: each block needs its shared memory plus the system reservation; the block
//    count is limited by the largest carve-out, and the carve-out chosen is the smallest
//    legal step that holds that many blocks (what the driver picks with the default preference).
//  - blocks: max_blocks_per_sm.
// Worked example (A100: 64 warps, 64K regs, 4 sub-partitions, 164 KB, 1 KB reservation):
//   256 threads, 64 regs, 48 KB smem -> warps 64/8 = 8; regs/warp 2048 -> 16384/2048 = 8 warps
//   per sub-partition -> 32 warps -> 4 blocks; smem (49152+1024) -> floor(167936/50176) = 3;
//   blocks = 3 (shared memory), carve-out 164 KB (132 KB holds only 2).
#include "core/occupancy.hpp"

#include <algorithm>

namespace tilescope {
namespace {

std::int64_t round_up(std::int64_t v, std::int64_t unit) { return (v + unit - 1) / unit * unit; }

}  // namespace

Result<Occupancy> occupancy(int threads_per_block, int registers_per_thread, std::int64_t smem_bytes_per_block,
                            std::int64_t blocks, const Hardware& hw) {
    const std::string gpu = hw.name;
    if (threads_per_block <= 0)
        return make_error("block needs a positive thread count (got " + std::to_string(threads_per_block) + ")");
    if (threads_per_block > hw.max_threads_per_block)
        return make_error("block of " + std::to_string(threads_per_block) + " threads exceeds " + gpu + "'s limit of " +
                          std::to_string(hw.max_threads_per_block) + " threads per block");
    if (registers_per_thread < 0) return make_error("registers per thread must be >= 0");
    if (registers_per_thread > hw.max_registers_per_thread)
        return make_error("block needs ~" + std::to_string(registers_per_thread) + " registers per thread; " + gpu +
                          " allows " + std::to_string(hw.max_registers_per_thread));
    if (smem_bytes_per_block < 0) return make_error("shared memory per block must be >= 0");
    if (smem_bytes_per_block > hw.smem_per_block_max_bytes)
        return make_error("block needs " + std::to_string(smem_bytes_per_block) + " B of shared memory; " + gpu +
                          " allows " + std::to_string(hw.smem_per_block_max_bytes) + " B");
    if (blocks < 0) return make_error("grid must have >= 0 blocks");

    Occupancy o;
    const std::int64_t warps_per_block = (threads_per_block + hw.warp_size_threads - 1) / hw.warp_size_threads;
    o.by_warps = static_cast<int>(hw.max_warps_per_sm / warps_per_block);

    if (registers_per_thread == 0) {
        o.by_registers = hw.max_blocks_per_sm;
    } else {
        const std::int64_t regs_per_warp =
            round_up(std::int64_t{registers_per_thread} * hw.warp_size_threads, hw.register_allocation_unit);
        if (regs_per_warp * warps_per_block > hw.max_registers_per_block)
            return make_error("block needs " + std::to_string(regs_per_warp * warps_per_block) +
                              " registers (" + std::to_string(registers_per_thread) + " per thread x " +
                              std::to_string(threads_per_block) + " threads, allocated per warp); " + gpu + " allows " +
                              std::to_string(hw.max_registers_per_block) + " per block");
        const std::int64_t regs_per_subpartition = hw.registers_per_sm / hw.sm_subpartitions;
        const std::int64_t warps_per_sm = regs_per_subpartition / regs_per_warp * hw.sm_subpartitions;
        o.by_registers = static_cast<int>(warps_per_sm / warps_per_block);
    }

    const std::int64_t smem_need = smem_bytes_per_block + hw.smem_reserved_per_block_bytes;
    o.by_smem = smem_need > 0 ? static_cast<int>(std::min<std::int64_t>(hw.smem_per_sm_bytes / smem_need, 1 << 20))
                              : hw.max_blocks_per_sm;
    o.by_blocks = hw.max_blocks_per_sm;

    o.blocks_per_sm = o.by_warps;
    o.limiter = "warps";
    if (o.by_registers < o.blocks_per_sm) { o.blocks_per_sm = o.by_registers; o.limiter = "registers"; }
    if (o.by_smem < o.blocks_per_sm) { o.blocks_per_sm = o.by_smem; o.limiter = "shared memory"; }
    if (o.by_blocks < o.blocks_per_sm) { o.blocks_per_sm = o.by_blocks; o.limiter = "blocks"; }
    if (o.blocks_per_sm <= 0)
        return make_error("no block of this shape fits on an SM of " + gpu + " (limited by " + o.limiter + ")");

    const std::int64_t smem_used = smem_need * o.blocks_per_sm;
    o.carveout_bytes = hw.smem_per_sm_bytes;
    for (std::int64_t step : hw.smem_carveout_steps_bytes) {
        if (step >= smem_used) { o.carveout_bytes = step; break; }
    }
    o.slots = std::int64_t{hw.sm_count} * o.blocks_per_sm;
    o.waves = blocks == 0 ? 0 : (blocks + o.slots - 1) / o.slots;
    o.tail_blocks = blocks == 0 ? 0 : blocks - (o.waves - 1) * o.slots;
    o.occupancy_fraction = static_cast<double>(o.blocks_per_sm * warps_per_block) / hw.max_warps_per_sm;
    return o;
}

Result<Occupancy> occupancy(const Launch& launch, const Hardware& hw) {
    return occupancy(launch.threads_per_block, launch.registers_per_thread, launch.smem_bytes_per_block,
                     launch.blocks(), hw);
}

}  // namespace tilescope
