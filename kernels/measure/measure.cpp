// Measurement harness (see measure.hpp for the protocol and the counter mapping).
#include "kernels/measure/measure.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>
#include <limits>
#include <vector>

#include "kernels/common/fill.hpp"
#include "kernels/measure/cupti_profiler.hpp"
#include "kernels/measure/workload_runner.hpp"
#include "kernels/microbench/microbench.hpp"

#ifndef TILESCOPE_GIT_COMMIT
#define TILESCOPE_GIT_COMMIT "unknown"
#endif

namespace tilescope::kern {

namespace {

const std::vector<std::string>& counter_metrics() {
    static const std::vector<std::string> m = {
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "lts__t_bytes.sum",
        "gpu__time_duration.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum",
        "smsp__inst_executed_op_ldgsts.sum",
        "sm__inst_executed_op_ldsm.sum",
        "sm__inst_executed_pipe_tensor_op_hmma.sum",
        "sm__inst_executed_pipe_xu.sum",
    };
    return m;
}

Metrics nan_metrics() {
    Metrics m;
    m.values.fill(std::numeric_limits<double>::quiet_NaN());
    return m;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// The driver version from /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX Open Kernel
// Module for x86_64  580.159.04  Release Build ..."): the first token made of digits and dots.
std::string kernel_driver_version() {
    std::ifstream f("/proc/driver/nvidia/version");
    std::string line;
    if (!f || !std::getline(f, line)) return "unknown";
    std::istringstream is(line);
    for (std::string tok; is >> tok;) {
        const bool versionish = tok.find('.') != std::string::npos &&
                                tok.find_first_not_of("0123456789.") == std::string::npos;
        if (versionish) return tok;
    }
    return "unknown";
}

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

double median(std::vector<double> v) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct DeviceLimits {
    int sm_count = 0, regs_per_sm = 0, threads_per_sm = 0, blocks_per_sm = 0;
    std::int64_t smem_per_sm = 0;
};

// Which resource limits blocks per SM (approximate: register granularity of 256 per warp).
std::string limiter(const KernelFacts& f, const DeviceLimits& d) {
    const int warps = (f.threads_per_block + 31) / 32;
    const int regs_per_warp = ((f.registers_per_thread * 32 + 255) / 256) * 256;
    const int by_regs = regs_per_warp > 0 ? d.regs_per_sm / (regs_per_warp * warps) : 1 << 20;
    const int by_threads = d.threads_per_sm / std::max(1, f.threads_per_block);
    const std::int64_t smem = f.static_smem_bytes + f.dynamic_smem_bytes + 1024;
    const int by_smem = static_cast<int>(d.smem_per_sm / std::max<std::int64_t>(1, smem));
    const int by_blocks = d.blocks_per_sm;
    const int m = std::min({by_regs, by_threads, by_smem, by_blocks});
    if (m == by_smem) return "shared memory";
    if (m == by_regs) return "registers";
    if (m == by_threads) return "threads";
    return "blocks";
}

}  // namespace

std::string build_commit() { return TILESCOPE_GIT_COMMIT; }

GpuCheck check_gpu(bool need_counters) {
    GpuCheck c;
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        c.state = GpuState::no_gpu;
        c.message = std::string("no CUDA GPU (") + (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")";
        return c;
    }
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    c.gpu_name = p.name;
    if (!need_counters) {
        c.state = GpuState::ok;
        c.message = "ok";
        return c;
    }
    ProfilerFailure failure = ProfilerFailure::none;
    auto prof = RangeProfiler::create({"dram__bytes_read.sum"}, 4, &failure);
    Result<std::vector<RangeValues>> r = make_error("not run");
    if (prof) {
        void* buf = nullptr;
        if (cudaMalloc(&buf, 1 << 16) != cudaSuccess) {
            c.state = GpuState::error;
            c.message = "cudaMalloc failed";
            return c;
        }
        r = (*prof)->profile([&] { return launch_copy(buf, static_cast<char*>(buf) + (1 << 15), 1 << 15, nullptr); },
                             &failure);
        cudaFree(buf);
    }
    if (prof && r) {
        c.state = GpuState::ok;
        c.message = "ok";
        return c;
    }
    const std::string why = prof ? r.error().message : prof.error().message;
    c.state = failure == ProfilerFailure::no_permission ? GpuState::no_permission
              : failure == ProfilerFailure::no_gpu      ? GpuState::no_gpu
                                                        : GpuState::error;
    c.message = (c.state == GpuState::no_permission ? "no profiling permission: " : "GPU counters unavailable: ") + why;
    return c;
}

Status gpu_status() {
    const GpuCheck c = check_gpu(true);
    if (c.state == GpuState::ok) return Status::success();
    return make_error(c.message);
}

struct Measurer::Impl {
    std::unique_ptr<RangeProfiler> profiler;
    void* flush = nullptr;
    std::int64_t flush_bytes = 0;
    DeviceLimits limits;
    std::string device_name;
    cudaEvent_t ev[8] = {};
    ~Impl() {
        if (flush != nullptr) cudaFree(flush);
        for (cudaEvent_t e : ev)
            if (e != nullptr) cudaEventDestroy(e);
    }
};

Measurer::~Measurer() = default;

Result<std::unique_ptr<Measurer>> Measurer::create(const MeasureOptions& options) {
    std::unique_ptr<Measurer> m(new Measurer());
    m->options_ = options;
    m->impl_ = std::make_unique<Impl>();
    Impl& im = *m->impl_;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return make_error("no CUDA GPU");
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) return make_error("cudaGetDeviceProperties failed");
    im.device_name = p.name;
    im.limits.sm_count = p.multiProcessorCount;
    im.limits.regs_per_sm = p.regsPerMultiprocessor;
    im.limits.threads_per_sm = p.maxThreadsPerMultiProcessor;
    im.limits.blocks_per_sm = p.maxBlocksPerMultiProcessor;
    im.limits.smem_per_sm = static_cast<std::int64_t>(p.sharedMemPerMultiprocessor);
    for (cudaEvent_t& e : im.ev)
        if (cudaEventCreate(&e) != cudaSuccess) return make_error("cudaEventCreate failed");

    im.flush_bytes = std::max<std::int64_t>(2LL * p.l2CacheSize, 16LL << 20);
    im.flush_bytes = (im.flush_bytes + 15) / 16 * 16;
    if (cudaMalloc(&im.flush, static_cast<size_t>(im.flush_bytes)) != cudaSuccess)
        return make_error("cudaMalloc of the L2 flush buffer failed");
    Status st = fill_uniform(im.flush, im.flush_bytes / 2, DType::fp16, 7, -1, 1);
    if (!st) return st.error();

    int driver = 0, runtime = 0, sm_khz = 0, mem_khz = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev);
    auto& pv = m->provenance_;
    pv["gpu_name"] = p.name;
    pv["compute_capability"] = std::to_string(p.major * 10 + p.minor);
    pv["sm_count"] = std::to_string(p.multiProcessorCount);
    pv["l2_bytes"] = std::to_string(p.l2CacheSize);
    pv["driver_version"] = kernel_driver_version();
    pv["driver_cuda_version"] = version_text(driver);
    pv["runtime_cuda_version"] = version_text(runtime);
    pv["sm_clock_peak_mhz"] = std::to_string(sm_khz / 1000);
    pv["memory_clock_peak_mhz"] = std::to_string(mem_khz / 1000);
    pv["date"] = utc_now();
    pv["tilescope_commit"] = build_commit();
    pv["timing"] = "cuda events, " + std::to_string(options.warmup) + " warm-up, median of " +
                   std::to_string(options.repeats) + (options.flush_l2 ? ", L2 flushed before each" : ", no L2 flush");

    if (options.counters) {
        auto prof = RangeProfiler::create(counter_metrics(), 16);
        if (!prof) return prof.error();
        im.profiler = std::move(*prof);
        pv["cupti_chip"] = im.profiler->chip();
        pv["cupti_passes"] = std::to_string(im.profiler->passes());
        pv["counters"] = "CUPTI range profiler, auto range, kernel replay";
        std::string skipped;
        for (const std::string& s : im.profiler->skipped_metrics()) skipped += (skipped.empty() ? "" : ",") + s;
        if (!skipped.empty()) pv["cupti_skipped_metrics"] = skipped;
    } else {
        pv["counters"] = "not collected";
    }
    return m;
}

Result<Measurement> Measurer::measure(const Workload& w) {
    Impl& im = *impl_;
    auto runner_r = WorkloadRunner::create(w, options_.seed);
    if (!runner_r) return runner_r.error();
    const WorkloadRunner& runner = **runner_r;
    const auto& launches = runner.launches();
    const size_t nl = launches.size();
    if (nl + 1 > std::size(im.ev)) return make_error("too many launches per workload");

    // ---- timing -------------------------------------------------------------------------
    std::vector<std::vector<double>> per_launch(nl);
    std::vector<double> totals;
    for (int r = 0; r < options_.warmup + options_.repeats; ++r) {
        if (options_.flush_l2) {
            Status st = launch_l2_flush(im.flush, im.flush_bytes);
            if (!st) return st.error();
        }
        cudaEventRecord(im.ev[0]);
        for (size_t i = 0; i < nl; ++i) {
            Status st = launches[i].run(nullptr);
            if (!st) return make_error(launches[i].name + ": " + st.error().message);
            cudaEventRecord(im.ev[i + 1]);
        }
        const cudaError_t e = cudaEventSynchronize(im.ev[nl]);
        if (e != cudaSuccess) return make_error(std::string("kernel execution failed: ") + cudaGetErrorString(e));
        if (r < options_.warmup) continue;
        float ms_total = 0;
        cudaEventElapsedTime(&ms_total, im.ev[0], im.ev[nl]);
        totals.push_back(static_cast<double>(ms_total) * 1e6);
        for (size_t i = 0; i < nl; ++i) {
            float ms = 0;
            cudaEventElapsedTime(&ms, im.ev[i], im.ev[i + 1]);
            per_launch[i].push_back(static_cast<double>(ms) * 1e6);
        }
    }

    // ---- counters -------------------------------------------------------------------------
    std::vector<RangeValues> ranges;
    if (im.profiler) {
        if (options_.flush_l2) {
            Status st = launch_l2_flush(im.flush, im.flush_bytes);
            if (!st) return st.error();
            cudaDeviceSynchronize();
        }
        auto r = im.profiler->profile([&] { return runner.run_all(nullptr); });
        if (!r) return r.error();
        ranges = std::move(*r);
        if (ranges.size() != nl)
            return make_error("CUPTI reported " + std::to_string(ranges.size()) + " ranges for " + std::to_string(nl) +
                              " kernel launches");
    }

    // ---- assemble -------------------------------------------------------------------------
    Measurement out;
    out.model = "measured";
    out.workload = w;
    out.gpu = options_.gpu_label.empty() ? im.device_name : options_.gpu_label;
    out.provenance = provenance_;
    out.provenance["date"] = utc_now();
    out.total = nan_metrics();
    Metrics total;
    total.values.fill(0.0);
    double t_start = 0;
    for (size_t i = 0; i < nl; ++i) {
        LaunchResult lr;
        lr.name = launches[i].name;
        const KernelFacts& f = launches[i].facts;
        lr.facts.grid_x = f.grid_x;
        lr.facts.grid_y = f.grid_y;
        lr.facts.grid_z = f.grid_z;
        lr.facts.threads_per_block = f.threads_per_block;
        lr.facts.smem_bytes_per_block = f.static_smem_bytes + f.dynamic_smem_bytes;
        lr.facts.registers_per_thread = f.registers_per_thread;
        lr.facts.blocks_per_sm = f.blocks_per_sm;
        const std::int64_t slots = static_cast<std::int64_t>(f.blocks_per_sm) * im.limits.sm_count;
        const std::int64_t blocks = f.grid_x * f.grid_y * f.grid_z;
        lr.facts.waves = slots > 0 ? (blocks + slots - 1) / slots : 0;
        lr.facts.occupancy_limiter = limiter(f, im.limits);
        lr.metrics = nan_metrics();
        const double t_ns = median(per_launch[i]);
        lr.metrics[Metric::gpu_time_duration] = t_ns;
        lr.start_ns = t_start;
        t_start += t_ns;
        lr.extra["time_min_ns"] = *std::min_element(per_launch[i].begin(), per_launch[i].end());
        lr.extra["time_max_ns"] = *std::max_element(per_launch[i].begin(), per_launch[i].end());
        if (f.local_bytes_per_thread > 0) lr.extra["local_bytes_per_thread"] = static_cast<double>(f.local_bytes_per_thread);
        if (!ranges.empty()) {
            const auto& names = im.profiler->metrics();
            auto get = [&](const char* n) {
                for (size_t k = 0; k < names.size(); ++k)
                    if (names[k] == n) return ranges[i].values[k];
                return std::numeric_limits<double>::quiet_NaN();
            };
            lr.metrics[Metric::dram_bytes_read] = get("dram__bytes_read.sum");
            lr.metrics[Metric::dram_bytes_write] = get("dram__bytes_write.sum");
            lr.metrics[Metric::lts_t_bytes] = get("lts__t_bytes.sum");
            const double wf_read = get("l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum");
            const double wf_write = get("l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum");
            const double ldgsts = get("smsp__inst_executed_op_ldgsts.sum");
            lr.metrics[Metric::smem_bytes_read] = wf_read * 128.0;
            lr.metrics[Metric::smem_bytes_write] = wf_write * 128.0 + ldgsts * 512.0;
            lr.metrics[Metric::flops_tensor] = get("sm__inst_executed_pipe_tensor_op_hmma.sum") * 4096.0;
            // flops_fp32 (and so flops) stay NaN: the range profiler's sass thread-instruction
            // counters disagreed with Nsight Compute on H100 (FMUL read ~0), so they are not used.
            lr.extra["tensor_tflops"] = lr.metrics[Metric::flops_tensor] / (t_ns * 1e-9) / 1e12;
            lr.metrics[Metric::sfu_ops] = get("sm__inst_executed_pipe_xu.sum") * 32.0;
            lr.extra["cupti_gpu_time_duration_ns"] = get("gpu__time_duration.sum");
            lr.extra["smem_wavefronts_read"] = wf_read;
            lr.extra["smem_wavefronts_write"] = wf_write;
            lr.extra["ldgsts_warp_instructions"] = ldgsts;
            lr.extra["ldsm_warp_instructions"] = get("sm__inst_executed_op_ldsm.sum");
            const double hbm = lr.metrics[Metric::dram_bytes_read] + lr.metrics[Metric::dram_bytes_write];
            lr.extra["hbm_bytes_per_s"] = hbm / (t_ns * 1e-9);
            lr.extra["l2_bytes_per_s"] = lr.metrics[Metric::lts_t_bytes] / (t_ns * 1e-9);
        }
        total += lr.metrics;
        out.launches.push_back(std::move(lr));
    }
    out.total = total;
    out.total[Metric::gpu_time_duration] = median(totals);
    out.extra["time_sum_of_launch_medians_ns"] = t_start;
    out.extra["extra_device_bytes"] = static_cast<double>(runner.extra_device_bytes());
    if (!ranges.empty()) {
        out.extra["hbm_bytes_per_s"] = (out.total[Metric::dram_bytes_read] + out.total[Metric::dram_bytes_write]) /
                                       (out.total[Metric::gpu_time_duration] * 1e-9);
        out.extra["tensor_tflops"] =
            out.total[Metric::flops_tensor] / (out.total[Metric::gpu_time_duration] * 1e-9) / 1e12;
    }
    return out;
}

Result<Measurement> measure(const Workload& w, const MeasureOptions& options) {
    auto m = Measurer::create(options);
    if (!m) return m.error();
    return (*m)->measure(w);
}

}  // namespace tilescope::kern
