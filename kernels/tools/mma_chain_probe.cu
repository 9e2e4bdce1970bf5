// tilescope-mma-chain-probe: how long one warp's mma.sync m16n8k16 (fp16 in, fp32 accumulate)
// takes as a function of how many independent accumulators it keeps in flight (N) and how many
// warps share an SM sub-partition (k). It answers the question change 23 of docs/validation left
// open: the warp model's mma chain is tensor FLOP / a per-warp rate, one number for every
// kernel, but a GEMM warp reuses its accumulators every k-step while a flash2 warp's QK^T
// columns are independent; if a dependent mma costs far more than an independent one, the chain
// a warp pays depends on its N, and one per-warp rate cannot rank both families.
//
// Each warp runs `iters` iterations of N mma.sync, the j-th into accumulator j (a chain of depth
// `iters` per accumulator, N chains side by side), timed with clock64 from its first to its last
// mma (the accumulators are summed into a sink, so nothing is dead code). One block of W warps
// per SM on every SM (W = 1, 2, 4, 8, 16, 32: k = W / 4 per sub-partition once W >= 4), N = 1, 2,
// 4, 8, 16. Output, one JSON object per line: warps, chains, cycles per iteration of a warp
// (median over warps), cycles per mma per warp, FLOP per cycle per warp (median warp) and per SM
// (every warp's mma over the slowest warp's cycles), the SM's FLOP rate from CUDA-event time. No counters, no clock locking (the card's settings are left as
// they are). Exit 3 without a GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/common/ptx.cuh"

namespace {

template <int N>
__global__ void chain_kernel(int iters, long long* cycles, float* sink) {
    uint32_t a[4] = {0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
    const uint32_t b0 = 0x00003c00u ^ (threadIdx.x & 1u), b1 = 0x3c000000u;
    float c[N][4] = {};
    __syncwarp();
    const long long t0 = clock64();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < N; ++j) tilescope::kern::mma16816<__half>(c[j], a, b0, b1);
    }
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < N; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
    // The last mma's result is read before the clock: the chain's tail latency is in the time.
    const long long t1 = clock64() + (s == 1.2345f ? 1 : 0);
    if ((threadIdx.x & 31) == 0) cycles[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = t1 - t0;
    if (s == 1.2345f) sink[0] = s;
}

template <int N>
bool run(int sms, int warps, int iters, double clock_hz) {
    long long* cycles = nullptr;
    float* sink = nullptr;
    const int total = sms * warps;
    if (cudaMalloc(&cycles, sizeof(long long) * total) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess) return false;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> ms;
    for (int r = 0; r < 7; ++r) {
        cudaEventRecord(e0);
        chain_kernel<N><<<sms, warps * 32>>>(iters, cycles, sink);
        if (const cudaError_t launch = cudaGetLastError(); launch != cudaSuccess) {
            // E.g. 32 warps x 16 accumulators: more registers than an SM has. Said, then skipped.
            std::printf("{\"probe\":\"mma_chain\",\"warps_per_sm\":%d,\"chains\":%d,\"skipped\":\"%s\"}\n", warps, N,
                        cudaGetErrorString(launch));
            cudaEventDestroy(e0);
            cudaEventDestroy(e1);
            cudaFree(cycles);
            cudaFree(sink);
            return true;
        }
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float m = 0;
        cudaEventElapsedTime(&m, e0, e1);
        if (r >= 2) ms.push_back(m);
    }
    std::vector<long long> c(total);
    const bool ok = cudaGetLastError() == cudaSuccess &&
                    cudaMemcpy(c.data(), cycles, sizeof(long long) * total, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(cycles);
    cudaFree(sink);
    if (!ok) return false;
    std::sort(c.begin(), c.end());
    std::sort(ms.begin(), ms.end());
    // Per warp: the median warp. Per SM: all its warps' mma over the slowest warp's time (with
    // many warps the scheduler lets some finish early; the SM is busy until the last).
    const double med = static_cast<double>(c[c.size() / 2]);
    const double per_iter = med / iters, per_mma = per_iter / N;
    const double sm_cycles_per_mma = static_cast<double>(c.back()) / iters / N / warps;
    const double flop_mma = 2.0 * 16 * 8 * 16;
    const double t_s = ms[ms.size() / 2] * 1e-3;
    const double flops_total = flop_mma * N * static_cast<double>(iters) * total;
    std::printf(
        "{\"probe\":\"mma_chain\",\"mma\":\"m16n8k16.f32.f16\",\"warps_per_sm\":%d,\"warps_per_subpartition\":%.2f,"
        "\"chains\":%d,\"iters\":%d,\"cycles_per_iteration\":%.2f,\"cycles_per_mma_per_warp\":%.3f,"
        "\"flop_per_cycle_per_warp\":%.1f,\"flop_per_cycle_per_sm\":%.1f,\"min_cycles\":%lld,\"max_cycles\":%lld,"
        "\"event_time_ms\":%.4f,\"sm_flop_per_s\":%.4e,\"clock_hz_attribute\":%.4e}\n",
        warps, warps / std::min(4.0, static_cast<double>(warps)), N, iters, per_iter, per_mma, flop_mma / per_mma,
        flop_mma / sm_cycles_per_mma, c.front(), c.back(), ms[ms.size() / 2], flops_total / t_s / sms, clock_hz);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        std::fprintf(stderr, "tilescope-mma-chain-probe: no CUDA device\n");
        return 3;
    }
    int iters = 4096;
    if (argc > 1) {
        iters = std::atoi(argv[1]);
        if (iters < 16 || iters > (1 << 24)) {
            std::fprintf(stderr, "tilescope-mma-chain-probe: iters must be in [16, 16777216] (got %s)\n", argv[1]);
            return 2;
        }
    }
    int sms = 0, khz = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    std::printf("{\"probe\":\"device\",\"name\":\"%s\",\"sms\":%d,\"cc\":\"%d%d\"}\n", p.name, sms, p.major, p.minor);
    bool ok = true;
    for (int w : {1, 2, 4, 8, 16, 32}) {
        ok = ok && run<1>(sms, w, iters, khz * 1e3) && run<2>(sms, w, iters, khz * 1e3) &&
             run<4>(sms, w, iters, khz * 1e3) && run<8>(sms, w, iters, khz * 1e3) &&
             run<16>(sms, w, iters, khz * 1e3);
    }
    if (!ok) {
        std::fprintf(stderr, "tilescope-mma-chain-probe: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    return 0;
}
