// launch_or_facts(): one place that raises the dynamic shared-memory limit of a kernel,
// launches it and checks the launch, or (when `facts` is given) only reports its static
// facts without launching.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/result.hpp"
#include "kernels/common/facts.hpp"

namespace tilescope::kern {

inline Status cuda_status(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return Status::success();
    return make_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class Kernel, class... Args>
Status launch_or_facts(Kernel kernel, dim3 grid, dim3 block, size_t smem_bytes, void* stream,
                       KernelFacts* facts, Args... args) {
    if (smem_bytes > 48 * 1024) {
        Status st = cuda_status(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     static_cast<int>(smem_bytes)),
                                "cudaFuncSetAttribute(max dynamic shared memory)");
        if (!st) return st;
    }
    if (facts != nullptr) {
        cudaFuncAttributes attr{};
        Status st = cuda_status(cudaFuncGetAttributes(&attr, kernel), "cudaFuncGetAttributes");
        if (!st) return st;
        int blocks = 0;
        const int threads = static_cast<int>(block.x * block.y * block.z);
        Status occ = cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem_bytes),
                                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        if (!occ) return occ;
        facts->registers_per_thread = attr.numRegs;
        facts->static_smem_bytes = static_cast<std::int64_t>(attr.sharedSizeBytes);
        facts->dynamic_smem_bytes = static_cast<std::int64_t>(smem_bytes);
        facts->local_bytes_per_thread = static_cast<std::int64_t>(attr.localSizeBytes);
        facts->threads_per_block = threads;
        facts->blocks_per_sm = blocks;
        facts->grid_x = grid.x;
        facts->grid_y = grid.y;
        facts->grid_z = grid.z;
        return Status::success();
    }
    kernel<<<grid, block, smem_bytes, static_cast<cudaStream_t>(stream)>>>(args...);
    return cuda_status(cudaGetLastError(), "kernel launch");
}

}  // namespace tilescope::kern
