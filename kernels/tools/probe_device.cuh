// Shared start of the stand-alone probes in kernels/tools: finds device 0, prints its line
//   {"probe":"device","name":...,"sms":...,"cc":...,"l2_bytes":...}
// and returns its SM count, or 0 (after "<tool>: no CUDA device" on stderr) when there is none;
// the probes then exit with code 3. probe_ok(tool, what) reports a failed launch the same way.
// probe_check_arg reads the command line of a probe whose only option is --check, and
// probe_check_out_args that of one that also takes --out DIR. probe_global_ns and probe_smid read
// the GPU's clock (%globaltimer, ns) and the SM a thread runs on, for the timeline probes.
// probe_elapsed_ms ends a timed launch: records e1, waits, checks the launch, reads e0 -> e1;
// probe_flushed_ms times one launch the way `tilescope measure` does, the L2 flushed first.
// probe_seed draws a fresh seed for a probe's random inputs and prints it
// ({"probe":"seed","seed":...}) so that a failed check can be rerun; probe_events creates the
// pair of events a probe times its launches between; probe_check_rows picks the rows a check
// compares against its float64 reference.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/common/fill.hpp"

inline int probe_device(const char* tool) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        std::fprintf(stderr, "%s: no CUDA device\n", tool);
        return 0;
    }
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    std::printf("{\"probe\":\"device\",\"name\":\"%s\",\"sms\":%d,\"cc\":\"%d%d\",\"l2_bytes\":%d}\n", p.name, sms,
                p.major, p.minor, p.l2CacheSize);
    return sms;
}

// False (after "<tool>: <what>: <CUDA error>" on stderr) when the last launch failed.
inline bool probe_ok(const char* tool, const char* what) {
    const cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return true;
    std::fprintf(stderr, "%s: %s: %s\n", tool, what, cudaGetErrorString(e));
    return false;
}

// The arguments of a probe whose only option is --check: sets *check_only; false (after
// "<tool>: unknown argument ..." with the usage on stderr; the probe exits 2) on anything else.
inline bool probe_check_arg(const char* tool, int argc, char** argv, bool* check_only) {
    *check_only = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--check") == 0) {
            *check_only = true;
        } else {
            std::fprintf(stderr, "%s: unknown argument %s (usage: %s [--check])\n", tool, argv[i], tool);
            return false;
        }
    }
    return true;
}

// The arguments of a probe that takes --check and --out DIR: sets *check_only and *out_dir (left
// null without --out); false (after "<tool>: unknown argument ..." with the usage on stderr; the
// probe exits 2) on anything else.
inline bool probe_check_out_args(const char* tool, int argc, char** argv, bool* check_only, const char** out_dir) {
    *check_only = false;
    *out_dir = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--check") == 0) {
            *check_only = true;
        } else if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            *out_dir = argv[++i];
        } else {
            std::fprintf(stderr, "%s: unknown argument %s (usage: %s [--check] [--out DIR])\n", tool, argv[i], tool);
            return false;
        }
    }
    return true;
}

// A fresh seed from the host's random device, printed as the probe's "seed" line.
inline unsigned probe_seed() {
    const unsigned seed = std::random_device{}();
    std::printf("{\"probe\":\"seed\",\"seed\":%u}\n", seed);
    return seed;
}

// Word i of a probe's pseudo-random buffer (the same on the GPU and the CPU, so a check recomputes
// what a kernel read): a counter-based hash of i and the run's seed. probe_fill_words writes the
// first n of them. Used by the segment stream and L2 hit queue probes.
__host__ __device__ inline uint32_t probe_word(uint64_t i, uint64_t seed) {
    uint64_t x = i * 0x9E3779B97F4A7C15ull + seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return static_cast<uint32_t>(x ^ (x >> 32));
}

__global__ inline void probe_fill_words(uint32_t* w, uint64_t n, uint64_t seed) {
    for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<uint64_t>(gridDim.x) * blockDim.x)
        w[i] = probe_word(i, seed);
}

// Gives kernel `k` (launched with `threads` threads and `smem` bytes of dynamic shared memory, the
// carveout all shared memory) exactly `want` resident blocks per SM; false (after a line on stderr)
// when the attributes cannot be set or the occupancy calculator gives another count.
inline bool probe_pin_blocks_per_sm(const char* tool, const void* k, int threads, int smem, int want) {
    if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess ||
        cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, 100) != cudaSuccess)
        return probe_ok(tool, "set shared memory");
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, smem);
    if (per_sm != want) {
        std::fprintf(stderr, "%s: %d blocks per SM asked, the occupancy calculator gives %d (%d B of shared memory)\n",
                     tool, want, per_sm, smem);
        return false;
    }
    return true;
}

// Creates the two events a probe times its launches between (e0 before, e1 after).
inline void probe_events(cudaEvent_t* e0, cudaEvent_t* e1) {
    cudaEventCreate(e0);
    cudaEventCreate(e1);
}

// The rows a check compares: every one of `rows` when there are at most `all_up_to`, otherwise
// `sampled` of them, the last row and sampled - 1 drawn at random.
inline std::vector<long long> probe_check_rows(long long rows, long long all_up_to, int sampled, std::mt19937& rng) {
    std::vector<long long> pick;
    if (rows <= all_up_to) {
        for (long long r = 0; r < rows; ++r) pick.push_back(r);
        return pick;
    }
    std::uniform_int_distribution<long long> u(0, rows - 1);
    for (int i = 0; i + 1 < sampled; ++i) pick.push_back(u(rng));
    pick.push_back(rows - 1);
    return pick;
}

// Records e1 after the launch(es) timed from e0, waits for it, and returns the milliseconds
// between them; -1 (after "<tool>: <what>: <CUDA error>" on stderr) when a launch failed.
inline float probe_elapsed_ms(const char* tool, const char* what, cudaEvent_t e0, cudaEvent_t e1) {
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    if (!probe_ok(tool, what)) return -1.f;
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    return ms;
}

// One launch timed as `tilescope measure` times it: the L2 flushed by reading `flush_bytes` of
// `flush` (kernels/common/fill.cu; a memset would leave dirty lines the timed kernel then writes
// back), e0 recorded, `launch()` (true when it started) run, then probe_elapsed_ms. -1 (after a
// line on stderr) when the flush or the launch failed.
template <class Launch>
float probe_flushed_ms(const char* tool, const char* what, const void* flush, long long flush_bytes, cudaEvent_t e0,
                       cudaEvent_t e1, Launch&& launch) {
    if (!tilescope::kern::launch_l2_flush(flush, flush_bytes)) {
        std::fprintf(stderr, "%s: L2 flush launch failed\n", tool);
        return -1.f;
    }
    cudaEventRecord(e0);
    if (!launch()) return -1.f;
    return probe_elapsed_ms(tool, what, e0, e1);
}

__device__ __forceinline__ unsigned long long probe_global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ unsigned probe_smid() {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}
