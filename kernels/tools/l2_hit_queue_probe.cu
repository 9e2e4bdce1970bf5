// tilescope-l2-hit-queue-probe: does an L2 hit's round trip grow with the GPU's load traffic, and
// by how much per TB/s (docs/validation change 81)?
//
// The simulator's loaded latency (change 28's law, Little's law: L = L0 + c x the TB/s the loads
// in flight move) was measured on loops that stream from DRAM: change 27's softmax grid (H100,
// 150 ns per TB/s) and change 62's segment stream (H200, 126). Since change 65 only an L2 miss's
// round trip grows in the bundled profiles. Whether a hit's does too is what this probe measures:
// one wave of b blocks per SM, 256 threads each, loops over `steps` steps; each step copies T
// contiguous bytes (16 B per thread per copy, T / 4096 copies per thread) into one of S shared-
// memory stages with cp.async.cg (the L1 is bypassed, as in the tool's kernels), issue first and
// wait after: S - 1 steps' copies are in flight per block while it waits for the oldest. The
// source is either an 8 MiB buffer (every step an L2 hit after the warm-up) or a 2 GiB one (every
// step a DRAM read). Per configuration: rate X (TB/s), the bytes in flight B = blocks x (S - 1) x T,
// and the round trip L = B / X (Little's law: the loop does nothing else but wait for its copies).
// Read L against X per source: the slope is the growth in ns per TB/s.
//
// Correctness first: both buffers hold fresh pseudo-random words (a counter-based hash of the word
// index and a seed drawn per run, printed); each thread XORs every 16-byte chunk it copied, read
// back from shared memory, and stores the result; the outputs are poisoned before the checked
// run; the XORs of 2 sampled blocks (--check: 64 of them) must match the same XORs computed on
// the CPU from the hash. `--check` runs every stage count and width on small grids, no timing
// (CTest l2_hit_queue_probe_check, label gpu). Any failure: exit 1. Exit 3 without a GPU.
// Usage: tilescope-l2-hit-queue-probe [--check]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "kernels/common/ptx.cuh"
#include "kernels/tools/probe_device.cuh"
#include "kernels/tools/segment_stream_grid.hpp"

namespace {

constexpr const char* kTool = "tilescope-l2-hit-queue-probe";
constexpr int kThreads = 256;
constexpr int64_t kHitBytes = int64_t{8} << 20;    // 8 MiB: L2-resident on the H100 and the H200 (50 MB)
constexpr int64_t kMissBytes = int64_t{1} << 31;   // 2 GiB: every step from DRAM

// Where block `blk`'s step `step` starts: T-aligned, spread over the buffer so that blocks do not
// read the same bytes at the same time.
__host__ __device__ inline int64_t step_offset(int64_t blk, int step, int64_t t_bytes, int64_t buf_bytes) {
    const int64_t chunks = buf_bytes / t_bytes;
    return ((blk * 7919 + static_cast<int64_t>(step) * 131) % chunks) * t_bytes;
}

template <int S>
__global__ void __launch_bounds__(kThreads) hit_queue(const uint8_t* src, int64_t buf_bytes, int copies, int steps,
                                                      uint32_t* out) {
    extern __shared__ __align__(16) uint8_t smem[];
    const int64_t t_bytes = static_cast<int64_t>(copies) * kThreads * 16;
    const int64_t blk = blockIdx.x;
    const int t = threadIdx.x;
    auto issue = [&](int step) {
        if (step < steps) {
            const int64_t base = step_offset(blk, step, t_bytes, buf_bytes);
            uint8_t* st = smem + static_cast<int64_t>(step % S) * t_bytes;
            for (int j = 0; j < copies; ++j) {
                const int64_t off = (static_cast<int64_t>(j) * kThreads + t) * 16;
                tilescope::kern::cp_async16(static_cast<uint32_t>(__cvta_generic_to_shared(st + off)), src + base + off,
                                            true);
            }
        }
        tilescope::kern::cp_async_commit();  // an empty group past the end keeps the count right
    };
    for (int s = 0; s < S - 1; ++s) issue(s);
    uint32_t x = 0;
    for (int step = 0; step < steps; ++step) {
        tilescope::kern::cp_async_wait<S - 2>();
        __syncthreads();
        const uint8_t* st = smem + static_cast<int64_t>(step % S) * t_bytes;
        for (int j = 0; j < copies; ++j) {
            const uint4 v = *reinterpret_cast<const uint4*>(st + (static_cast<int64_t>(j) * kThreads + t) * 16);
            x ^= v.x ^ v.y ^ v.z ^ v.w;
        }
        issue(step + S - 1);  // into the stage read S - 1 steps ago (every thread passed the barrier)
    }
    out[blk * kThreads + t] = x;
}

uint32_t expected_xor(int64_t blk, int t, int copies, int steps, int64_t buf_bytes, uint64_t seed) {
    const int64_t t_bytes = static_cast<int64_t>(copies) * kThreads * 16;
    uint32_t x = 0;
    for (int step = 0; step < steps; ++step) {
        const int64_t base = step_offset(blk, step, t_bytes, buf_bytes);
        for (int j = 0; j < copies; ++j) {
            const int64_t off = base + (static_cast<int64_t>(j) * kThreads + t) * 16;
            for (int w = 0; w < 4; ++w) x ^= probe_word(static_cast<uint64_t>(off / 4 + w), seed);
        }
    }
    return x;
}

struct Config {
    const char* source;  // "l2" (8 MiB) or "dram" (2 GiB)
    int stages;          // S
    int copies;          // 16-byte copies per thread per step: T = copies x 4 KiB
    int blocks_per_sm;   // b
};

const void* kernel_of(int s) {
    switch (s) {
        case 2: return reinterpret_cast<const void*>(&hit_queue<2>);
        case 3: return reinterpret_cast<const void*>(&hit_queue<3>);
        case 4: return reinterpret_cast<const void*>(&hit_queue<4>);
        default: return reinterpret_cast<const void*>(&hit_queue<8>);
    }
}

cudaError_t launch(int s, int64_t blocks, int smem, const uint8_t* src, int64_t buf, int copies, int steps,
                   uint32_t* out) {
    const dim3 grid(static_cast<unsigned>(blocks));
    switch (s) {
        case 2: hit_queue<2><<<grid, kThreads, smem>>>(src, buf, copies, steps, out); break;
        case 3: hit_queue<3><<<grid, kThreads, smem>>>(src, buf, copies, steps, out); break;
        case 4: hit_queue<4><<<grid, kThreads, smem>>>(src, buf, copies, steps, out); break;
        default: hit_queue<8><<<grid, kThreads, smem>>>(src, buf, copies, steps, out); break;
    }
    return cudaGetLastError();
}

// Returns false on a CUDA error or a wrong XOR; prints one JSON line when `timing`.
bool run(const cudaDeviceProp& p, int sms, const Config& c, const uint8_t* src, int64_t buf, uint64_t seed,
         uint32_t* out, bool timing, int steps, cudaEvent_t e0, cudaEvent_t e1) {
    const int64_t t_bytes = static_cast<int64_t>(c.copies) * kThreads * 16;
    // Shared memory that lets exactly b blocks share an SM (the segment stream probe's rule).
    const int asked = tilescope::segment_probe::smem_for(p.sharedMemPerMultiprocessor, p.reservedSharedMemPerBlock,
                                                         p.sharedMemPerBlockOptin, c.blocks_per_sm,
                                                         static_cast<int>(c.stages * t_bytes));
    if (asked == 0) return true;  // the stages do not fit this many blocks per SM: not a configuration
    if (!probe_pin_blocks_per_sm(kTool, kernel_of(c.stages), kThreads, asked, c.blocks_per_sm)) return false;
    const int64_t blocks = static_cast<int64_t>(sms) * c.blocks_per_sm;  // one wave
    std::vector<float> ms;
    for (int r = 0; timing && r < 6; ++r) {
        cudaEventRecord(e0);
        if (launch(c.stages, blocks, asked, src, buf, c.copies, steps, out) != cudaSuccess) return probe_ok(kTool, "launch");
        const float t = probe_elapsed_ms(kTool, "timed launch", e0, e1);
        if (t < 0) return false;
        if (r > 0) ms.push_back(t);  // run 0: warm-up (it also brings the 8 MiB buffer into the L2)
    }
    cudaMemset(out, 0xA5, static_cast<size_t>(blocks) * kThreads * 4);  // poisoned before the checked run
    if (launch(c.stages, blocks, asked, src, buf, c.copies, steps, out) != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess)
        return probe_ok(kTool, "checked launch");
    std::vector<uint32_t> got(kThreads);
    const int64_t samples = std::min<int64_t>(timing ? 2 : 64, blocks);
    for (int64_t s = 0; s < samples; ++s) {
        const int64_t blk = (s * 7919 + 13) % blocks;
        cudaMemcpy(got.data(), out + blk * kThreads, kThreads * 4, cudaMemcpyDeviceToHost);
        for (int t = 0; t < kThreads; ++t) {
            const uint32_t want = expected_xor(blk, t, c.copies, steps, buf, seed);
            if (got[t] != want) {
                std::fprintf(stderr, "%s: %s S %d T %lld b %d: block %lld thread %d XOR %08x, expected %08x\n", kTool,
                             c.source, c.stages, static_cast<long long>(t_bytes), c.blocks_per_sm,
                             static_cast<long long>(blk), t, got[t], want);
                return false;
            }
        }
    }
    if (!timing) return true;
    std::sort(ms.begin(), ms.end());
    const double med_ms = ms[ms.size() / 2];
    const double bytes = static_cast<double>(blocks) * steps * static_cast<double>(t_bytes);
    const double rate = bytes / (med_ms * 1e-3) / 1e12;  // TB/s
    const double flight = static_cast<double>(blocks) * (c.stages - 1) * static_cast<double>(t_bytes);
    std::printf(
        "{\"probe\":\"l2_hit_queue\",\"source\":\"%s\",\"buffer_bytes\":%lld,\"stages\":%d,\"step_bytes\":%lld,"
        "\"blocks_per_sm\":%d,\"blocks\":%lld,\"steps\":%d,\"ms\":%.5f,\"ms_min\":%.5f,\"ms_max\":%.5f,"
        "\"tb_per_s\":%.4f,\"in_flight_gpu\":%.0f,\"round_trip_ns\":%.1f}\n",
        c.source, static_cast<long long>(buf), c.stages, static_cast<long long>(t_bytes), c.blocks_per_sm,
        static_cast<long long>(blocks), steps, med_ms, ms.front(), ms.back(), rate, flight,
        flight / (rate * 1e12) * 1e9);
    std::fflush(stdout);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    bool check_only = false;
    if (!probe_check_arg(kTool, argc, argv, &check_only)) return 2;
    const int sms = probe_device(kTool);
    if (sms == 0) return 3;
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    const uint64_t seed = probe_seed();
    uint8_t *hit = nullptr, *miss = nullptr;
    uint32_t* out = nullptr;
    const int64_t miss_bytes = check_only ? (int64_t{64} << 20) : kMissBytes;
    if (cudaMalloc(&hit, kHitBytes) != cudaSuccess || cudaMalloc(&miss, miss_bytes) != cudaSuccess ||
        cudaMalloc(&out, static_cast<size_t>(sms) * 32 * kThreads * 4) != cudaSuccess) {
        std::fprintf(stderr, "%s: cannot allocate %.2f GB on the device\n", kTool, miss_bytes / 1e9);
        return 1;
    }
    probe_fill_words<<<1024, 256>>>(reinterpret_cast<uint32_t*>(hit), static_cast<uint64_t>(kHitBytes / 4), seed);
    probe_fill_words<<<1024, 256>>>(reinterpret_cast<uint32_t*>(miss), static_cast<uint64_t>(miss_bytes / 4), seed);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        probe_ok(kTool, "fill");
        return 1;
    }
    cudaEvent_t e0, e1;
    probe_events(&e0, &e1);
    std::vector<Config> grid;
    for (const char* source : {"l2", "dram"})
        for (const int s : {2, 3, 4, 8})
            for (const int copies : {1, 2, 4})
                for (const int b : {1, 2, 4, 8}) grid.push_back({source, s, copies, b});
    for (const Config& c : grid) {
        const bool l2 = c.source[0] == 'l';
        // Timed: 2048 steps (the 8 MiB buffer is read about 130-4200 times over); a DRAM block reads
        // 8-32 MiB, far apart from the others' (the offsets wrap at 2 GiB).
        if (!run(p, sms, c, l2 ? hit : miss, l2 ? kHitBytes : miss_bytes, seed, out, !check_only,
                 check_only ? 24 : 2048, e0, e1))
            return 1;
    }
    if (check_only) std::printf("{\"probe\":\"check\",\"result\":\"pass\"}\n");
    return 0;
}
