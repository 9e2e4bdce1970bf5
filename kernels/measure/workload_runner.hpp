// WorkloadRunner: turns a core Workload into device buffers (random inputs) and the exact
// sequence of kernel launches the kernels/ library runs for it, with each launch's static
// facts. Used by the measurement harness, the correctness tests and the benchmarks.
// CUDA-free interface.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/workload.hpp"
#include "kernels/attention/attention.hpp"
#include "kernels/common/facts.hpp"

namespace tilescope::kern {

// Can the kernels run this workload? No GPU needed. The message names the flag and the menu.
Status workload_supported(const Workload& w);

// Attention arguments of a workload (pointers unset); Br = tile.m, Bc = tile.n.
AttentionArgs attention_args(const Workload& w);

struct PlannedLaunch {
    std::string name;                        // the core/lower launch name, e.g. "attention-naive:qk"
    std::function<Status(void* stream)> run; // enqueues the kernel
    KernelFacts facts;
};

class WorkloadRunner {
public:
    // Allocates inputs (uniform random in [-1, 1) from `seed`), outputs and workspaces.
    static Result<std::unique_ptr<WorkloadRunner>> create(const Workload& w, std::uint64_t seed);
    ~WorkloadRunner();
    WorkloadRunner(const WorkloadRunner&) = delete;
    WorkloadRunner& operator=(const WorkloadRunner&) = delete;

    const std::vector<PlannedLaunch>& launches() const { return launches_; }
    Status run_all(void* stream) const;

    struct Buffer {
        void* data = nullptr;
        std::int64_t elements = 0;
        std::int64_t bytes = 0;
        DType dtype = DType::fp16;
        bool output = false;     // written by the kernels (poisoned before a checked run)
        bool workspace = false;  // intermediate: S, P, l/m statistics, lse
    };
    const std::map<std::string, Buffer>& buffers() const { return buffers_; }
    // Bytes of device memory beyond the inputs and the final output (S, P, workspaces, lse).
    std::int64_t extra_device_bytes() const;
    // NaN-fills every output and workspace buffer.
    Status poison_outputs(void* stream) const;

private:
    WorkloadRunner() = default;
    Status alloc(const std::string& name, std::int64_t elements, DType dtype, bool output, bool workspace);
    std::map<std::string, Buffer> buffers_;
    std::vector<PlannedLaunch> launches_;
};

}  // namespace tilescope::kern
