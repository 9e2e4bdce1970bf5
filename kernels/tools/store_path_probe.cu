// tilescope-store-path-probe: where the H100's slow path for fragment stores binds. The GEMM
// epilogue (kernels/gemm) stores each lane's accumulator fragment, two fp16 = 4 bytes, at rows
// g and g + 8 of a 16-row band, so one warp store fills half of eight 32-byte sectors; written
// this way a large matrix drains at 0.87 TB/s against 3.2 TB/s for 16-byte coalesced stores
// (bench/results/h100_hbm_write_rate.jsonl). The simulator can charge that rate in two places
// (docs/validation change 24): on the GPU-wide L2 server, shared with the loads, or on a path of
// each SM's own that the storing block waits for. Which one is right shows in how the rate
// scales with the number of SMs that store: a per-SM limit grows linearly with them, a GPU-wide
// one (L2 slices, HBM) saturates.
//
// Each run launches S blocks (S = 1 .. all SMs), one per SM (a dynamic shared-memory request
// that only one block fits keeps them apart), of W warps; the warps share `bytes` of an fp16
// matrix with 4096 columns in 16 x 64 pieces (fragment stores, as the epilogue) or in 16-byte
// vectors (coalesced), grid-stride. Two sizes: 1 GiB (HBM: 20x the L2) and 16 MiB (stays in the
// L2). Then, on every SM, whether loads share the path: each warp reads R x 2 KiB of a 16 MiB
// L2-resident input per 2 KiB fragment piece it stores (R = 1, 2, 4: a QK^T block loads about
// 1, 2 and 4 times the scores it writes at d = 64 and 128), against the same reads alone and the
// stores alone. Shared: the mixed time is about the sum; separate: about the larger.
// Median of 7 CUDA-event timings after 2 warm-ups. Output, one JSON object per line: kind,
// SMs, warps, bytes, ms, TB/s, GB/s per SM. No counters, no clock locking. Exit 3 without a GPU.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "kernels/tools/probe_device.cuh"

namespace {

constexpr long kCols = 4096;
constexpr int kSmemBytes = 160 * 1024;  // one block per SM (228 KiB per SM on sm_90)

__global__ void fragment_store(__half* c, long rows) {
    extern __shared__ unsigned char unused[];
    (void)unused;
    const long warps = static_cast<long>(gridDim.x) * (blockDim.x / 32);
    const long warp = static_cast<long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const long pieces = rows / 16 * (kCols / 64);
    const __half2 v = __floats2half2_rn(1.f, 2.f);
    for (long p = warp; p < pieces; p += warps) {
        const long r0 = p / (kCols / 64) * 16, c0 = p % (kCols / 64) * 64;
#pragma unroll
        for (int ni = 0; ni < 8; ++ni) {
            const long col = c0 + ni * 8 + 2 * t;
            *reinterpret_cast<__half2*>(c + (r0 + g) * kCols + col) = v;
            *reinterpret_cast<__half2*>(c + (r0 + g + 8) * kCols + col) = v;
        }
    }
}

__global__ void coalesced_store(__half* c, long rows) {
    extern __shared__ unsigned char unused[];
    (void)unused;
    const long n16 = rows * kCols / 8;
    const long stride = static_cast<long>(gridDim.x) * blockDim.x;
    const uint4 v = make_uint4(0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u);
    for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride)
        reinterpret_cast<uint4*>(c)[i] = v;
}

// CUDA-event times of `launch`, 9 runs less 2 warm-ups, sorted into `ms`; false on a CUDA error.
template <class F>
bool timed(std::vector<float>& ms, F launch) {
    cudaEvent_t e0, e1;
    probe_events(&e0, &e1);
    for (int r = 0; r < 9; ++r) {
        cudaEventRecord(e0);
        launch();
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float m = 0;
        cudaEventElapsedTime(&m, e0, e1);
        if (r >= 2) ms.push_back(m);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(ms.begin(), ms.end());
    return cudaGetLastError() == cudaSuccess;
}

// Per 16 x 64 piece: read `ratio` x 2 KiB of `in` (16 bytes per lane per load, the piece's place
// in a 16 MiB window), then (if `store`) write the piece as fragments with a value that depends
// on what was read, so neither half is dead code.
template <bool kStore>
__global__ void read_then_store(const uint4* __restrict__ in, __half* c, long rows, int ratio, float* sink) {
    extern __shared__ unsigned char unused[];
    (void)unused;
    const long warps = static_cast<long>(gridDim.x) * (blockDim.x / 32);
    const long warp = static_cast<long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const long pieces = rows / 16 * (kCols / 64);
    constexpr long kWindow = (16L << 20) / 16;  // uint4 in the input window
    float acc = 0.f;
    for (long p = warp; p < pieces; p += warps) {
        const long base = (p * ratio * 128) % kWindow;  // 128 uint4 = 2 KiB per unit of ratio
        unsigned x = 0;
        for (int k = 0; k < ratio * 4; ++k) {
            const uint4 u = in[(base + k * 32 + lane) % kWindow];
            x ^= u.x ^ u.y ^ u.z ^ u.w;
        }
        acc += static_cast<float>(x & 7u);
        if constexpr (kStore) {
            const long r0 = p / (kCols / 64) * 16, c0 = p % (kCols / 64) * 64;
            const __half2 v = __floats2half2_rn(acc, 2.f);
#pragma unroll
            for (int ni = 0; ni < 8; ++ni) {
                const long col = c0 + ni * 8 + 2 * t;
                *reinterpret_cast<__half2*>(c + (r0 + g) * kCols + col) = v;
                *reinterpret_cast<__half2*>(c + (r0 + g + 8) * kCols + col) = v;
            }
        }
    }
    if (acc == -1.f) sink[0] = acc;
}

bool run_mixed(const char* kind, const uint4* in, __half* c, long bytes, int sms, int warps, int ratio, float* sink) {
    const long rows = bytes / 2 / kCols;
    const bool store = std::strcmp(kind, "read_only") != 0;
    std::vector<float> ms;
    if (!timed(ms, [&] {
            if (store) read_then_store<true><<<sms, warps * 32, kSmemBytes>>>(in, c, rows, ratio, sink);
            else read_then_store<false><<<sms, warps * 32, kSmemBytes>>>(in, c, rows, ratio, sink);
        }))
        return false;
    std::printf(
        "{\"probe\":\"store_path\",\"kind\":\"%s\",\"sms\":%d,\"warps_per_sm\":%d,\"bytes_stored\":%ld,"
        "\"bytes_read\":%ld,\"read_ratio\":%d,\"ms\":%.4f,\"ms_min\":%.4f,\"ms_max\":%.4f}\n",
        kind, sms, warps, store ? bytes : 0L, bytes * ratio, ratio, ms[ms.size() / 2], ms.front(), ms.back());
    return true;
}

bool run(bool fragment, __half* c, long bytes, int sms, int warps) {
    const long rows = bytes / 2 / kCols;
    std::vector<float> ms;
    if (!timed(ms, [&] {
            if (fragment) fragment_store<<<sms, warps * 32, kSmemBytes>>>(c, rows);
            else coalesced_store<<<sms, warps * 32, kSmemBytes>>>(c, rows);
        }))
        return false;
    const double t = ms[ms.size() / 2] * 1e-3;
    std::printf(
        "{\"probe\":\"store_path\",\"kind\":\"%s\",\"sms\":%d,\"warps_per_sm\":%d,\"bytes\":%ld,\"ms\":%.4f,"
        "\"tb_per_s\":%.4f,\"gb_per_s_per_sm\":%.3f,\"ms_min\":%.4f,\"ms_max\":%.4f}\n",
        fragment ? "fragment" : "coalesced", sms, warps, bytes, ms[ms.size() / 2], bytes / t * 1e-12,
        bytes / t * 1e-9 / sms, ms.front(), ms.back());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const bool mixed_only = argc > 1 && std::strcmp(argv[1], "--mixed-only") == 0;
    const int sms = probe_device("tilescope-store-path-probe");
    if (sms == 0) return 3;
    if (cudaFuncSetAttribute(fragment_store, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) != cudaSuccess ||
        cudaFuncSetAttribute(coalesced_store, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) != cudaSuccess ||
        cudaFuncSetAttribute(read_then_store<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) !=
            cudaSuccess ||
        cudaFuncSetAttribute(read_then_store<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) !=
            cudaSuccess) {
        std::fprintf(stderr, "tilescope-store-path-probe: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    const long big = 1L << 30, small = 16L << 20;
    __half* c = nullptr;
    uint4* in = nullptr;
    float* sink = nullptr;
    if (cudaMalloc(&c, big) != cudaSuccess || cudaMalloc(&in, small) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess ||
        cudaMemset(in, 1, small) != cudaSuccess) {
        std::fprintf(stderr, "tilescope-store-path-probe: cannot allocate 1 GiB + 16 MiB\n");
        return 1;
    }
    bool ok = true;
    std::vector<int> counts = {1, 2, 4, 8, 16, 33, 66, sms};
    for (long bytes : {big, small}) {
        if (mixed_only) break;
        for (int w : {8, 32}) {
            for (int s : counts) {
                if (s > sms) continue;
                ok = ok && run(true, c, bytes, s, w) && run(false, c, bytes, s, w);
            }
        }
    }
    for (int w : {8, 32}) {
        ok = ok && run(true, c, big, sms, w);
        for (int ratio : {1, 2, 4}) {
            ok = ok && run_mixed("read_only", in, c, big, sms, w, ratio, sink) &&
                 run_mixed("read_then_fragment_store", in, c, big, sms, w, ratio, sink);
        }
    }
    cudaFree(c);
    cudaFree(in);
    cudaFree(sink);
    if (!ok) {
        std::fprintf(stderr, "tilescope-store-path-probe: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    return 0;
}
