// KernelFacts: static facts of one compiled kernel configuration, read from the CUDA runtime
// (cudaFuncGetAttributes + cudaOccupancyMaxActiveBlocksPerMultiprocessor). CUDA-free header.
#pragma once

#include <cstdint>

namespace tilescope::kern {

struct KernelFacts {
    int registers_per_thread = 0;
    std::int64_t static_smem_bytes = 0;
    std::int64_t dynamic_smem_bytes = 0;
    std::int64_t local_bytes_per_thread = 0;  // spills / stack frame
    int threads_per_block = 0;
    int blocks_per_sm = 0;
    std::int64_t grid_x = 1, grid_y = 1, grid_z = 1;
};

}  // namespace tilescope::kern
