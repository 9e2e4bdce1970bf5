// RangeProfiler: a small RAII wrapper over the CUPTI range profiler (CUDA 13 API:
// cupti_range_profiler.h + cupti_profiler_host.h) in auto-range, kernel-replay mode: every
// kernel launched between start and stop becomes one range, replayed by CUPTI as many times as
// the requested metrics need passes. CUDA-free interface.
//
// Use:
//   auto prof = RangeProfiler::create({"dram__bytes_read.sum", ...}, max_ranges);
//   prof->profile([&] { return launch_my_kernels(); });   // -> one RangeValues per kernel
// Metrics the chip does not know are dropped at create() and listed in skipped_metrics().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace tilescope::kern {

struct RangeValues {
    std::string name;            // CUPTI's range name (the kernel's name in auto-range mode)
    std::vector<double> values;  // in the order of RangeProfiler::metrics()
};

enum class ProfilerFailure { none, no_gpu, no_permission, other };

class RangeProfiler {
public:
    // Initialises CUPTI for the current device. On failure, `failure` (if given) says why.
    static Result<std::unique_ptr<RangeProfiler>> create(const std::vector<std::string>& metrics, int max_ranges,
                                                         ProfilerFailure* failure = nullptr);
    ~RangeProfiler();
    RangeProfiler(const RangeProfiler&) = delete;
    RangeProfiler& operator=(const RangeProfiler&) = delete;

    const std::vector<std::string>& metrics() const { return metrics_; }
    const std::vector<std::string>& skipped_metrics() const { return skipped_; }
    std::size_t passes() const { return passes_; }
    const std::string& chip() const { return chip_; }

    // Runs `launch` (which enqueues the kernels and returns their launch status) under the
    // profiler and returns one RangeValues per kernel launch, in launch order.
    Result<std::vector<RangeValues>> profile(const std::function<Status()>& launch,
                                             ProfilerFailure* failure = nullptr);

private:
    RangeProfiler() = default;
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::vector<std::string> metrics_;
    std::vector<std::string> skipped_;
    std::size_t passes_ = 0;
    std::string chip_;
    int max_ranges_ = 0;
};

}  // namespace tilescope::kern
