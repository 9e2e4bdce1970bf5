// microbench: kernels that each stress one level of the hierarchy, so the simulator's
// bandwidth and latency parameters can be measured instead of taken from datasheets.
//   copy_kernel:   16-byte loads and stores, grid-stride; the bytes moved are exact.
//   l2_read:       every block sweeps the same small buffer many times (hits in L2).
//   smem_read:     each thread reads 16 B per iteration from shared memory, conflict-free.
//   chase:         one thread follows a random cyclic permutation (no prefetch possible).
//   tensor_peak:   independent mma chains per warp, enough warps per SM to fill the pipes.
#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/common/fill.hpp"
#include "kernels/common/launch.cuh"
#include "kernels/common/ptx.cuh"
#include "kernels/microbench/microbench.hpp"

namespace tilescope::kern {

namespace {

__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, int64_t n) {
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
        dst[i] = src[i];
}

__global__ void l2_read_kernel(const uint4* __restrict__ src, int64_t n, int sweeps, uint4* sink) {
    uint4 acc = make_uint4(0, 0, 0, 0);
    for (int s = 0; s < sweeps; ++s) {
        // each block starts at a different offset so blocks do not march in lockstep
        const int64_t start = (static_cast<int64_t>(blockIdx.x) * 4096 + s * 131) % n;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            const uint4 v = __ldcg(src + (start + i) % n);
            acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
        }
    }
    if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x9e3779b9u) sink[0] = acc;  // keeps the loads alive
}

__global__ void smem_read_kernel(int iters, uint4* sink) {
    __shared__ uint4 buf[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) buf[i] = make_uint4(i, i * 3, i * 5, i * 7);
    __syncthreads();
    uint4 acc = make_uint4(0, 0, 0, 0);
    int idx = threadIdx.x;
    for (int it = 0; it < iters; ++it) {
        const uint4 v = buf[idx];
        acc.x += v.x; acc.y ^= v.y; acc.z += v.z; acc.w ^= v.w;
        idx = (idx + 32) & 1023;
    }
    if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x9e3779b9u) sink[0] = acc;
}

__global__ void chase_kernel(const uint32_t* __restrict__ next, int steps, uint32_t* out, long long* cycles) {
    uint32_t p = 0;
    for (int i = 0; i < 64; ++i) p = __ldcg(next + p);  // warm the TLB / first lines
    const long long t0 = clock64();
    for (int i = 0; i < steps; ++i) p = __ldcg(next + p);
    const long long t1 = clock64();
    out[0] = p;
    cycles[0] = t1 - t0;
}

__global__ void empty_kernel() {}

// Keeps one SM busy for about `cycles` SM clocks (the host queues the timed launch meanwhile).
__global__ void busy_kernel(long long cycles, long long* sink) {
    const long long start = clock64();
    long long now = start;
    while (now - start < cycles) now = clock64();
    if (now == 0) *sink = now;  // never true; keeps the loop
}

__global__ void tensor_peak_kernel(int iters, float* sink) {
    uint32_t a[4] = {0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
    const uint32_t b0 = 0x3c003c00u ^ threadIdx.x, b1 = 0x3c003c00u;
    float c[4][4] = {};
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < 4; ++j) mma16816<__half>(c[j], a, b0, b1);
    }
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < 4; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
    if (s == 1.2345f) sink[0] = s;
}

struct DeviceBuffer {
    void* p = nullptr;
    ~DeviceBuffer() {
        if (p != nullptr) cudaFree(p);
    }
};

// Times `fn` (which enqueues work on the default stream): 2 warm-ups, then the median.
// `pre` runs before each (untimed), e.g. an L2 flush.
template <class Pre, class F>
Result<double> time_median_ns(Pre pre, F fn, int repeats) {
    cudaEvent_t e0, e1;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
        return make_error("cudaEventCreate failed");
    std::vector<double> t;
    for (int r = 0; r < repeats + 2; ++r) {
        pre();
        cudaEventRecord(e0);
        fn();
        cudaEventRecord(e1);
        const cudaError_t err = cudaEventSynchronize(e1);
        if (err != cudaSuccess) {
            cudaEventDestroy(e0);
            cudaEventDestroy(e1);
            return make_error(std::string("microbenchmark: ") + cudaGetErrorString(err));
        }
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 2) t.push_back(static_cast<double>(ms) * 1e6);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return make_error(std::string("microbenchmark launch: ") + cudaGetErrorString(err));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int sm_count() {
    int dev = 0, n = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
    return n;
}

}  // namespace

Status launch_copy(const void* src, void* dst, std::int64_t bytes, void* stream) {
    if (bytes <= 0 || bytes % 16 != 0) return make_error("copy: bytes must be a positive multiple of 16");
    const int64_t n = bytes / 16;
    const int blocks = std::max(1, std::min<int>(sm_count() * 8, static_cast<int>((n + 255) / 256)));
    copy_kernel<<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const uint4*>(src),
                                                                       static_cast<uint4*>(dst), n);
    return cuda_status(cudaGetLastError(), "copy kernel launch");
}

Result<MicrobenchResult> bench_hbm_copy(std::int64_t bytes, int repeats) {
    DeviceBuffer a, b;
    if (cudaMalloc(&a.p, bytes) != cudaSuccess || cudaMalloc(&b.p, bytes) != cudaSuccess)
        return make_error("hbm_copy: cudaMalloc of " + std::to_string(bytes) + " B failed");
    cudaMemset(a.p, 1, bytes);
    bool launched = true;
    auto t = time_median_ns([] {}, [&] { launched = launch_copy(a.p, b.p, bytes, nullptr).ok() && launched; }, repeats);
    if (!t) return t.error();
    if (!launched) return make_error("hbm_copy: copy kernel launch failed");
    MicrobenchResult r{"hbm_copy", 2.0 * bytes / (*t * 1e-9), "bytes_per_s", 2.0 * bytes, *t};
    return r;
}

Result<MicrobenchResult> bench_l2_read(std::int64_t bytes, int repeats) {
    DeviceBuffer a, sink;
    if (cudaMalloc(&a.p, bytes) != cudaSuccess || cudaMalloc(&sink.p, 64) != cudaSuccess)
        return make_error("l2_read: cudaMalloc failed");
    cudaMemset(a.p, 1, bytes);
    const int blocks = sm_count() * 4, sweeps = 8;
    const int64_t n = bytes / 16;
    auto t = time_median_ns(
        [] {}, [&] { l2_read_kernel<<<blocks, 512>>>(static_cast<const uint4*>(a.p), n, sweeps, static_cast<uint4*>(sink.p)); },
        repeats);
    if (!t) return t.error();
    const double work = static_cast<double>(blocks) * sweeps * n * 16.0;
    MicrobenchResult r{"l2_read", work / (*t * 1e-9), "bytes_per_s", work, *t};
    return r;
}

Result<MicrobenchResult> bench_smem_read(int repeats) {
    DeviceBuffer sink;
    if (cudaMalloc(&sink.p, 64) != cudaSuccess) return make_error("smem_read: cudaMalloc failed");
    const int blocks = sm_count() * 4, threads = 512, iters = 4096;
    auto t = time_median_ns([] {}, [&] { smem_read_kernel<<<blocks, threads>>>(iters, static_cast<uint4*>(sink.p)); },
                            repeats);
    if (!t) return t.error();
    const double work = static_cast<double>(blocks) * threads * iters * 16.0;
    MicrobenchResult r{"smem_read", work / (*t * 1e-9), "bytes_per_s", work, *t};
    return r;
}

Result<MicrobenchResult> bench_latency(std::int64_t bytes, int steps) {
    const int64_t stride = 128 / 4;  // one 128-B line per element visited
    const int64_t n = bytes / 4;
    const int64_t nodes = n / stride;
    if (nodes < 2) return make_error("latency: buffer too small");
    std::vector<uint32_t> order(static_cast<size_t>(nodes));
    std::iota(order.begin(), order.end(), 0u);
    std::mt19937 rng(12345);
    std::shuffle(order.begin() + 1, order.end(), rng);
    std::vector<uint32_t> next(static_cast<size_t>(n), 0u);
    for (int64_t i = 0; i < nodes; ++i)
        next[static_cast<size_t>(order[static_cast<size_t>(i)] * stride)] =
            static_cast<uint32_t>(order[static_cast<size_t>((i + 1) % nodes)] * stride);
    DeviceBuffer d, out, cyc, flush;
    int dev = 0, l2 = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    const int64_t flush_bytes = (2LL * l2 + 15) / 16 * 16;
    if (cudaMalloc(&d.p, bytes) != cudaSuccess || cudaMalloc(&out.p, 64) != cudaSuccess ||
        cudaMalloc(&cyc.p, 64) != cudaSuccess || cudaMalloc(&flush.p, flush_bytes) != cudaSuccess)
        return make_error("latency: cudaMalloc failed");
    cudaMemset(flush.p, 0, flush_bytes);
    cudaMemcpy(d.p, next.data(), static_cast<size_t>(n) * 4, cudaMemcpyHostToDevice);
    // Every run walks the same prefix of the cycle, so for a buffer larger than L2 the L2 is
    // flushed before each run (else later runs would hit the lines the first one brought in).
    const bool cold = bytes > l2;
    auto t = time_median_ns(
        [&] {
            if (cold) (void)launch_l2_flush(flush.p, flush_bytes, nullptr);
        },
        [&] {
            chase_kernel<<<1, 1>>>(static_cast<const uint32_t*>(d.p), steps, static_cast<uint32_t*>(out.p),
                                   static_cast<long long*>(cyc.p));
        },
        3);
    if (!t) return t.error();
    MicrobenchResult r{cold ? "hbm_latency" : "l2_latency", *t / steps, "ns",
                       static_cast<double>(steps), *t};
    return r;
}

Result<MicrobenchResult> bench_tensor_peak(int repeats) {
    DeviceBuffer sink;
    if (cudaMalloc(&sink.p, 64) != cudaSuccess) return make_error("tensor_peak: cudaMalloc failed");
    const int blocks = sm_count() * 4, threads = 256, iters = 8192;
    auto t = time_median_ns([] {}, [&] { tensor_peak_kernel<<<blocks, threads>>>(iters, static_cast<float*>(sink.p)); },
                            repeats);
    if (!t) return t.error();
    const double work = static_cast<double>(blocks) * (threads / 32) * iters * 4 * 4096.0;
    MicrobenchResult r{"tensor_peak", work / (*t * 1e-9), "flops_per_s", work, *t};
    return r;
}

Result<MicrobenchResult> bench_launch_overhead(int repeats) {
    DeviceBuffer sink;
    if (cudaMalloc(&sink.p, 64) != cudaSuccess) return make_error("launch_overhead: cudaMalloc failed");
    // ~50 us at 2 GHz: longer than the host needs to queue an event, a launch and an event.
    auto t = time_median_ns([&] { busy_kernel<<<1, 1>>>(100000, static_cast<long long*>(sink.p)); },
                            [] { empty_kernel<<<1, 32>>>(); }, repeats);
    if (!t) return t.error();
    MicrobenchResult r{"launch_overhead", *t, "ns", 0, *t};
    return r;
}

}  // namespace tilescope::kern
