// tilescope-softmax-reuse-probe: how much of the softmax kernel's re-read of its rows the L2 keeps,
// as a function of the rows in flight (docs/validation change 90).
//
// On the H100 the online kernel's one- and two-warp tiles of 2048 columns (4224 rows of 4 KiB in
// flight, 17.3 MB) read 21-23% of their second pass from DRAM where the model reads 1-5%, and
// every tile at 34.6 MB in flight reads 85-88% where the model reads 57-62% (docs/validation
// changes 77 and 89). The L2 reuse probe's copy curve (kernels/tools/l2_reuse_probe.cu) misses
// the same way, but its reads and stores come in separate launches in address order; the softmax
// kernel re-reads each row one pass later, beside the other blocks' output stream. This probe
// measures the kernel itself at pinned residencies, so the rows in flight are known:
//   - "pinned" grids: the kernel (kernels/softmax/softmax.cuh, unchanged) launched with dynamic
//     shared memory that it does not use, so that exactly B blocks fit an SM (the carve-out is all
//     shared memory, which leaves the L1 28 KiB: nearly every re-read reaches the L2, and the L2's
//     share kept is what is measured);
//   - "native" grids: no dynamic shared memory, the driver's carve-out, as the data set runs them.
// Each grid is one row per block, fp16, x uniform in [-8, 8). Per grid: a warm-up and the median of
// 5 timed runs (the L2 flushed before each, as `tilescope measure` does), and a checked run (y
// poisoned with NaN, sampled rows against a float64 reference within fp16 tolerance; any failure
// exits 1). Prints one JSON object per grid, in launch order. With --profile, each grid gets one
// launch only (no warm-up, timing or check), for Nsight Compute (`ncu --cache-control all -k
// regex:softmax_kernel`): its rows are the grids' lines in the same order
// (bench/scripts/softmax_reuse_summary.py joins them).
// Usage: tilescope-softmax-reuse-probe [--check | --profile]   (--check: small ragged grids of
// every configuration, checked only; the CTest test softmax_reuse_probe_check, label gpu).
// Exit 3 without a GPU, 2 on a bad argument.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/fill.hpp"
#include "kernels/softmax/softmax.cuh"
#include "kernels/tools/probe_device.cuh"

namespace {

constexpr const char* kTool = "tilescope-softmax-reuse-probe";
constexpr size_t kFlushBytes = size_t{256} << 20;  // larger than an H100's (50 MB) or H200's (60 MB) L2

struct Grid {
    bool online;
    int warps;
    long long rows, cols;
    int blocks_per_sm;  // 0: native (no dynamic shared memory, the driver's carve-out)
};

// The grids: 4, 8 and 16 KiB rows (2048, 4096 and 8192 columns) at the residencies each tile's
// threads and registers allow, 256 MiB of input each (2-64 waves): 4.3-69 MB of rows in flight on
// 132 SMs, across the H100's (50 MB) and the H200's (60 MB) L2.
std::vector<Grid> grids() {
    std::vector<Grid> g;
    for (int w : {1, 2, 4}) g.push_back({true, w, 65536, 2048, 0});
    for (int w : {1, 4}) g.push_back({true, w, 32768, 4096, 0});
    g.push_back({false, 1, 65536, 2048, 0});
    for (int b : {8, 12, 16, 20, 24, 28, 32}) g.push_back({true, 1, 65536, 2048, b});
    for (int b : {8, 16, 24, 32}) g.push_back({true, 2, 65536, 2048, b});
    for (int b : {8, 12, 16}) g.push_back({true, 4, 65536, 2048, b});
    for (int b : {4, 8, 12, 16, 24, 32}) g.push_back({true, 1, 32768, 4096, b});
    for (int b : {4, 8, 12, 16}) g.push_back({true, 4, 32768, 4096, b});
    for (int b : {8, 16, 24, 32}) g.push_back({false, 1, 65536, 2048, b});
    for (int w : {1, 4}) g.push_back({true, w, 16384, 8192, 0});
    for (int b : {4, 8, 16, 24, 32}) g.push_back({true, 1, 16384, 8192, b});
    return g;
}

struct Bufs {
    __half *x = nullptr, *y = nullptr;
    uint4* flush = nullptr;
    std::vector<__half> hx;
};

template <int W, bool kOnline>
const void* kernel_ptr() {
    return reinterpret_cast<const void*>(tilescope::kern::softmax_kernel<__half, W, kOnline>);
}

template <int W, bool kOnline>
bool launch_t(const Bufs& b, const Grid& g, int smem) {
    tilescope::kern::softmax_kernel<__half, W, kOnline>
        <<<static_cast<unsigned>(g.rows), W * 32, smem>>>(b.x, b.y, g.rows, g.cols, 1, 0);
    return probe_ok(kTool, "softmax_kernel");
}

template <bool kOnline>
bool launch_v(const Bufs& b, const Grid& g, int smem) {
    switch (g.warps) {
        case 1: return launch_t<1, kOnline>(b, g, smem);
        case 2: return launch_t<2, kOnline>(b, g, smem);
        default: return launch_t<4, kOnline>(b, g, smem);
    }
}

bool launch(const Bufs& b, const Grid& g, int smem) {
    return g.online ? launch_v<true>(b, g, smem) : launch_v<false>(b, g, smem);
}

const void* kernel_of(const Grid& g) {
    if (g.online) return g.warps == 1 ? kernel_ptr<1, true>() : g.warps == 2 ? kernel_ptr<2, true>() : kernel_ptr<4, true>();
    return g.warps == 1 ? kernel_ptr<1, false>() : g.warps == 2 ? kernel_ptr<2, false>() : kernel_ptr<4, false>();
}

// Sets the kernel's attributes for grid g and returns the dynamic shared memory of its launch
// (bytes), with *per_sm the resident blocks per SM the occupancy calculator then gives; -1 (after
// a line on stderr) when no amount gives a pinned grid's count.
int configure(const Grid& g, int* per_sm) {
    const void* k = kernel_of(g);
    const int threads = g.warps * 32;
    if (g.blocks_per_sm == 0) {
        if (cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, -1) != cudaSuccess ||
            cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 0) != cudaSuccess) {
            probe_ok(kTool, "reset shared memory attributes");
            return -1;
        }
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, k, threads, 0);
        return 0;
    }
    int max_optin = 0, per_sm_smem = 0;
    cudaDeviceGetAttribute(&max_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
    cudaDeviceGetAttribute(&per_sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
    cudaFuncAttributes fa{};
    cudaFuncGetAttributes(&fa, k);
    max_optin -= static_cast<int>(fa.sharedSizeBytes);  // the opt-in limit counts static shared memory too
    if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, max_optin) != cudaSuccess ||
        cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, 100) != cudaSuccess) {
        probe_ok(kTool, "set shared memory attributes");
        return -1;
    }
    // The largest amount (in 256-byte steps) at which B blocks still fit; the calculator then gives
    // B unless the threads or registers allow fewer.
    for (int smem = std::min(max_optin, per_sm_smem / g.blocks_per_sm) / 256 * 256; smem >= 256; smem -= 256) {
        int n = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, threads, smem);
        if (n >= g.blocks_per_sm) {
            *per_sm = n;
            if (n == g.blocks_per_sm) return smem;
            break;
        }
    }
    std::fprintf(stderr, "%s: %s w%d: no dynamic shared memory gives %d blocks per SM\n", kTool,
                 g.online ? "online" : "safe", g.warps, g.blocks_per_sm);
    return -1;
}

float timed(const Bufs& b, const Grid& g, int smem, cudaEvent_t e0, cudaEvent_t e1) {
    return probe_flushed_ms(kTool, "softmax_kernel", b.flush, static_cast<long long>(kFlushBytes), e0, e1,
                            [&] { return launch(b, g, smem); });
}

// y poisoned, one launch, sampled rows (every row of a small grid) against float64.
bool check(const Bufs& b, const Grid& g, int smem, std::mt19937& rng) {
    const size_t count = static_cast<size_t>(g.rows * g.cols);
    cudaMemset(b.y, 0xff, count * 2);  // fp16 0xffff: NaN
    if (!launch(b, g, smem)) return false;
    const std::vector<long long> pick = probe_check_rows(g.rows, 256, 16, rng);
    std::vector<__half> yr(static_cast<size_t>(g.cols));
    std::vector<double> e(static_cast<size_t>(g.cols));
    for (const long long r : pick) {
        cudaMemcpy(yr.data(), b.y + r * g.cols, static_cast<size_t>(g.cols) * 2, cudaMemcpyDeviceToHost);
        if (!probe_ok(kTool, "copy y")) return false;
        const __half* xr = &b.hx[static_cast<size_t>(r * g.cols)];
        double mx = -INFINITY, sum = 0;
        for (long long c = 0; c < g.cols; ++c) mx = std::max(mx, static_cast<double>(__half2float(xr[c])));
        for (long long c = 0; c < g.cols; ++c)
            sum += e[static_cast<size_t>(c)] = std::exp(static_cast<double>(__half2float(xr[c])) - mx);
        for (long long c = 0; c < g.cols; ++c) {
            const double ref = e[static_cast<size_t>(c)] / sum;
            const double got = static_cast<double>(__half2float(yr[static_cast<size_t>(c)]));
            // fp16 output: half an ulp (2^-11 relative), __expf's and the fp32 sum's error (a few fp32
            // ulps per term, relative), and fp16's smallest subnormal step.
            const double tol = ref * (1.0 / 2048 + 2e-4) + 6e-8;
            if (!std::isfinite(got) || std::fabs(got - ref) > tol) {
                std::fprintf(stderr, "%s: %s w%d %lldx%lld, %d B dynamic shared memory: y[%lld, %lld] = %.6g, float64 reference %.6g (tolerance %.3g)\n",
                             kTool, g.online ? "online" : "safe", g.warps, g.rows, g.cols, smem, r, c, got, ref, tol);
                return false;
            }
        }
    }
    return true;
}

std::string name_of(const Grid& g) {
    return std::string("softmax_") + (g.online ? "online" : "safe") + "_r" + std::to_string(g.rows) + "_c" +
           std::to_string(g.cols) + "_w" + std::to_string(g.warps) +
           (g.blocks_per_sm ? "_b" + std::to_string(g.blocks_per_sm) : std::string("_native"));
}

}  // namespace

int main(int argc, char** argv) {
    bool check_only = false, profile = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--check") == 0) check_only = true;
        else if (std::strcmp(argv[i], "--profile") == 0) profile = true;
        else {
            std::fprintf(stderr, "%s: unknown argument %s (usage: %s [--check | --profile])\n", kTool, argv[i], kTool);
            return 2;
        }
    }
    if (check_only && profile) {
        std::fprintf(stderr, "%s: --check and --profile exclude each other\n", kTool);
        return 2;
    }
    const int sms = probe_device(kTool);
    if (sms == 0) return 3;
    std::mt19937 rng(probe_seed());
    std::vector<Grid> list = grids();
    if (check_only) {  // every configuration on a small ragged grid: rows not a multiple of the SMs
        for (Grid& g : list) {
            g.rows = 1000 + 37 * g.warps;
            g.cols += 8;  // a partial last step
        }
    }
    long long most = 0;
    for (const Grid& g : list) most = std::max(most, g.rows * g.cols);
    Bufs b;
    const auto elems = static_cast<size_t>(most);
    b.hx.resize(elems);
    std::uniform_real_distribution<float> u(-8.f, 8.f);
    for (size_t i = 0; i < elems; ++i) b.hx[i] = __float2half(u(rng));
    if (cudaMalloc(&b.x, elems * 2) != cudaSuccess || cudaMalloc(&b.y, elems * 2) != cudaSuccess ||
        cudaMalloc(&b.flush, kFlushBytes) != cudaSuccess) {
        std::fprintf(stderr, "%s: cannot allocate %.2f GB on the device\n", kTool,
                     (4.0 * static_cast<double>(elems) + static_cast<double>(kFlushBytes)) / 1e9);
        return 1;
    }
    cudaMemcpy(b.x, b.hx.data(), elems * 2, cudaMemcpyHostToDevice);
    cudaMemset(b.flush, 0, kFlushBytes);
    if (!probe_ok(kTool, "copy inputs")) return 1;
    cudaEvent_t e0, e1;
    probe_events(&e0, &e1);
    for (const Grid& g : list) {
        int per_sm = 0;
        const int smem = configure(g, &per_sm);
        if (smem < 0) return 1;
        float ms = 0;
        if (check_only) {
            if (!check(b, g, smem, rng)) return 1;
        } else if (profile) {
            if (!launch(b, g, smem)) return 1;
            cudaDeviceSynchronize();
            if (!probe_ok(kTool, "softmax_kernel")) return 1;
        } else {
            if (timed(b, g, smem, e0, e1) < 0) return 1;  // warm-up
            std::vector<float> t;
            for (int r = 0; r < 5; ++r) {
                const float x = timed(b, g, smem, e0, e1);
                if (x < 0) return 1;
                t.push_back(x);
            }
            std::sort(t.begin(), t.end());
            ms = t[2];
            if (!check(b, g, smem, rng)) return 1;
        }
        const double row_bytes = 2.0 * static_cast<double>(g.cols);
        std::printf("{\"probe\":\"softmax_reuse\",\"grid\":\"%s\",\"variant\":\"%s\",\"rows\":%lld,\"cols\":%lld,"
                    "\"warps\":%d,\"pinned\":%s,\"blocks_per_sm\":%d,\"dynamic_smem\":%d,\"rows_in_flight_mb\":%.3f,"
                    "\"ms\":%.4f}\n",
                    name_of(g).c_str(), g.online ? "online" : "safe", g.rows, g.cols, g.warps,
                    g.blocks_per_sm ? "true" : "false", per_sm, smem,
                    static_cast<double>(per_sm) * sms * row_bytes / 1e6, ms);
        std::fflush(stdout);
    }
    if (check_only) std::printf("{\"probe\":\"check\",\"result\":\"pass\"}\n");
    return 0;
}
