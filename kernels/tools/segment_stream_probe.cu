// tilescope-segment-stream-probe: how fast DRAM serves narrow row segments against the bytes an SM
// keeps in flight (docs/validation change 62).
//
// Naive attention's P V launch reads P (N x N fp16, rows N x 2 bytes apart) as the GEMM kernel's A
// operand: per k-tile (tile_k 32), 64 bytes of each of the block's 64 or 128 rows, by cp.async in
// the kernel's wait-then-issue loop (`cp.async.wait_group STAGES-2`, barrier, issue the tile
// STAGES-1 ahead), so at most STAGES-1 tiles are in flight per block. On the H100 it reads P at
// 1.66-1.70 TB/s with 2 blocks of 128 rows per SM at d = 64, 1.52-1.56 with 3 blocks of 64 rows,
// and 0.93-1.04 TB/s at d = 128 (1 block of 128 rows, or 2 of 64); the model streams P at 2.2-2.5
// TB/s. Change 37 read the cap as the HBM's page activations (every 64-byte segment in a page of
// its own); a loaded latency (Little's law: the rate = the bytes in flight / the round trip) reads
// the same figures differently. This probe separates the two: the same loop, without the mma,
// streams a 2 GiB matrix (far beyond the L2) in segments of W bytes per row and step, R rows per
// block, S stages, b blocks per SM (set with shared memory), either strided as P is read (the
// rows `row_bytes` apart, the next W bytes of a row one step later) or dense (each step's R x W
// bytes contiguous: the same bytes in flight, no narrow segments). Optionally each step also
// reads an L2-resident tile as P V reads V (`l2_bytes`: 32 rows of d x 2 bytes, the same buffer
// for every block).
//
// Per configuration: one warm-up and 5 timed runs (cudaEvent, median); one JSON line with the
// rate (TB/s), the bytes in flight (per SM and GPU-wide: blocks x (S-1) x the step's bytes) and
// the round trip they imply (Little's law: in flight / rate).
//
// Correctness first: the matrix holds fresh pseudo-random words (a counter-based hash of the word
// index and a seed drawn per run, printed), each thread XORs every 16-byte chunk it copied and
// stores the result; the outputs are poisoned before the checked run, and the XORs of 16 sampled
// blocks (every thread; --check: every block) must match the same XORs computed on the CPU from the hash. `--check` runs
// the checks on a 12 MiB matrix (rows 3 KiB apart) in every stage count and layout, no timing (CTest
// segment_stream_probe_check, label gpu). Any failure: exit 1. Exit 3 without a GPU.
// Usage: tilescope-segment-stream-probe [--check]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/ptx.cuh"
#include "kernels/tools/probe_device.cuh"
#include "kernels/tools/segment_stream_grid.hpp"

namespace {

constexpr const char* kTool = "tilescope-segment-stream-probe";
using tilescope::segment_probe::Config;
using tilescope::segment_probe::kThreads;

// Where a block's step puts its data. Strided (P's layout): chunk c of row r at
//   block * block_stride + r * row_stride + step * step_stride + c * 16, with row_stride = row_bytes
//   and step_stride = W. Dense: row_stride = W, step_stride = R x W (the step's R x W bytes
//   contiguous). The L2 tile: `l2_bytes` contiguous bytes of the small buffer at (step x l2_bytes)
//   modulo its size.
struct Geometry {
    int segment_bytes;  // W, a multiple of 16
    int rows;           // R
    int steps;
    int64_t row_stride, step_stride, block_stride;
    int l2_bytes;       // 0 or a multiple of 16
    int64_t l2_total;   // the L2 buffer's bytes (a multiple of l2_bytes)
    __host__ __device__ int stage_bytes() const { return rows * segment_bytes + l2_bytes; }
};

__device__ __host__ inline int64_t chunk_offset(const Geometry& g, int64_t block, int step, int chunk, bool* in_l2) {
    const int main_chunks = g.rows * g.segment_bytes / 16;
    if (chunk < main_chunks) {
        *in_l2 = false;
        const int per_row = g.segment_bytes / 16;
        const int r = chunk / per_row, c = chunk % per_row;
        return block * g.block_stride + r * g.row_stride + step * g.step_stride + c * 16;
    }
    *in_l2 = true;
    return (static_cast<int64_t>(step) * g.l2_bytes) % g.l2_total + static_cast<int64_t>(chunk - main_chunks) * 16;
}

// The GEMM kernel's loop without the mma: wait for the oldest step, barrier, issue the step S-1
// ahead, then read back this thread's chunks of the step (XOR of their words).
template <int S>
__global__ void __launch_bounds__(kThreads) segment_stream(const uint8_t* a, const uint8_t* l2buf, Geometry g,
                                                           uint32_t* out) {
    extern __shared__ __align__(16) uint8_t smem[];
    const uint32_t base = tilescope::kern::smem_u32(smem);
    const int chunks = g.stage_bytes() / 16;
    const int64_t block = blockIdx.x;
    auto issue = [&](int step) {
        const uint32_t st = base + (step % S) * g.stage_bytes();
        for (int i = threadIdx.x; i < chunks; i += kThreads) {
            bool l2 = false;
            const int64_t off = chunk_offset(g, block, step, i, &l2);
            tilescope::kern::cp_async16(st + i * 16, (l2 ? l2buf : a) + off, true);
        }
    };
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
        if (s < g.steps) issue(s);
        tilescope::kern::cp_async_commit();
    }
    uint32_t x = 0;
    for (int step = 0; step < g.steps; ++step) {
        tilescope::kern::cp_async_wait<S - 2>();
        __syncthreads();
        if (step + S - 1 < g.steps) issue(step + S - 1);
        tilescope::kern::cp_async_commit();
        const uint8_t* st = smem + (step % S) * g.stage_bytes();
        for (int i = threadIdx.x; i < chunks; i += kThreads) {
            const uint4 v = *reinterpret_cast<const uint4*>(st + i * 16);
            x ^= v.x ^ v.y ^ v.z ^ v.w;
        }
    }
    out[block * kThreads + threadIdx.x] = x;
}

// The CPU's XOR for thread t of block `block` (the kernel's chunks, from the hash).
uint32_t expected_xor(const Geometry& g, int64_t block, int t, uint64_t seed, uint64_t l2_seed) {
    uint32_t x = 0;
    const int chunks = g.stage_bytes() / 16;
    for (int step = 0; step < g.steps; ++step)
        for (int i = t; i < chunks; i += kThreads) {
            bool l2 = false;
            const int64_t off = chunk_offset(g, block, step, i, &l2);
            for (int w = 0; w < 4; ++w) x ^= probe_word(static_cast<uint64_t>(off / 4 + w), l2 ? l2_seed : seed);
        }
    return x;
}

struct Bufs {
    uint8_t* a = nullptr;
    uint8_t* l2 = nullptr;
    uint32_t* out = nullptr;
    int64_t a_bytes = 0, l2_bytes = 0, out_words = 0;
};

template <int S>
cudaError_t launch(const Bufs& b, const Geometry& g, int64_t blocks, int smem) {
    segment_stream<S><<<static_cast<unsigned>(blocks), kThreads, smem>>>(b.a, b.l2, g, b.out);
    return cudaGetLastError();
}

cudaError_t launch_s(int stages, const Bufs& b, const Geometry& g, int64_t blocks, int smem) {
    switch (stages) {
        case 2: return launch<2>(b, g, blocks, smem);
        case 3: return launch<3>(b, g, blocks, smem);
        default: return launch<4>(b, g, blocks, smem);
    }
}

const void* kernel_of(int stages) {
    switch (stages) {
        case 2: return reinterpret_cast<const void*>(&segment_stream<2>);
        case 3: return reinterpret_cast<const void*>(&segment_stream<3>);
        default: return reinterpret_cast<const void*>(&segment_stream<4>);
    }
}

Geometry geometry_of(const Config& c) {
    Geometry g{};
    g.segment_bytes = c.segment_bytes;
    g.rows = c.rows;
    g.steps = c.steps();
    g.row_stride = c.row_stride();
    g.step_stride = c.step_stride();
    g.block_stride = static_cast<int64_t>(c.rows) * c.row_bytes;
    g.l2_bytes = c.l2_bytes;
    g.l2_total = c.l2_total();
    return g;
}

// Runs one configuration (blocks = the matrix's rows / R) and checks 16 sampled blocks (every block
// of --check's small matrix).
// Returns false on a CUDA error or a wrong XOR; prints one JSON line when `timing`.
bool run(const Bufs& b, const cudaDeviceProp& p, int sms, const Config& c, int64_t matrix_bytes, bool timing,
         uint64_t seed, uint64_t l2_seed, cudaEvent_t e0, cudaEvent_t e1) {
    const Geometry g = geometry_of(c);
    const int64_t blocks = c.blocks(matrix_bytes);
    const int smem = tilescope::segment_probe::smem_for(p.sharedMemPerMultiprocessor, p.reservedSharedMemPerBlock,
                                                         p.sharedMemPerBlockOptin, c.blocks_per_sm,
                                                         c.stages * g.stage_bytes());
    if (smem == 0) return true;  // the stages do not fit this many blocks per SM: not a configuration
    if (!probe_pin_blocks_per_sm(kTool, kernel_of(c.stages), kThreads, smem, c.blocks_per_sm)) return false;
    std::vector<float> ms;
    for (int r = 0; timing && r < 6; ++r) {
        cudaEventRecord(e0);
        if (launch_s(c.stages, b, g, blocks, smem) != cudaSuccess) return probe_ok(kTool, "launch");
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        if (r > 0) ms.push_back(t);  // run 0: warm-up
    }
    // The checked run: outputs poisoned first.
    cudaMemset(b.out, 0xA5, static_cast<size_t>(blocks) * kThreads * 4);
    if (launch_s(c.stages, b, g, blocks, smem) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
        return probe_ok(kTool, "checked launch");
    std::vector<uint32_t> got(kThreads);
    const int samples = static_cast<int>(std::min<int64_t>(timing ? 16 : 64, blocks));
    for (int s = 0; s < samples; ++s) {
        const int64_t blk = samples == blocks ? s : (s * 7919 + 13) % blocks;
        cudaMemcpy(got.data(), b.out + blk * kThreads, kThreads * 4, cudaMemcpyDeviceToHost);
        for (int t = 0; t < kThreads; ++t) {
            const uint32_t want = expected_xor(g, blk, t, seed, l2_seed);
            if (got[t] != want) {
                std::fprintf(stderr, "%s: %s W %d R %d S %d b %d: block %lld thread %d XOR %08x, expected %08x\n", kTool,
                             c.layout, c.segment_bytes, c.rows, c.stages, c.blocks_per_sm, static_cast<long long>(blk), t,
                             got[t], want);
                return false;
            }
        }
    }
    if (!timing) return true;
    std::sort(ms.begin(), ms.end());
    const double med_ms = ms[ms.size() / 2];
    const double dram_bytes = static_cast<double>(matrix_bytes);
    const double rate = dram_bytes / (med_ms * 1e-3) / 1e12;  // TB/s of the matrix
    const int resident = std::min<int64_t>(blocks, static_cast<int64_t>(sms) * c.blocks_per_sm);
    const double flight_sm = static_cast<double>(c.blocks_per_sm) * (c.stages - 1) * c.rows * c.segment_bytes;
    const double flight_gpu = static_cast<double>(resident) * (c.stages - 1) * c.rows * c.segment_bytes;
    std::printf(
        "{\"probe\":\"segment_stream\",\"layout\":\"%s\",\"segment_bytes\":%d,\"rows\":%d,\"stages\":%d,"
        "\"blocks_per_sm\":%d,\"row_bytes\":%lld,\"l2_bytes_per_step\":%d,\"blocks\":%lld,\"steps\":%d,"
        "\"smem_per_block\":%d,\"matrix_bytes\":%lld,\"ms\":%.5f,\"ms_min\":%.5f,\"ms_max\":%.5f,\"tb_per_s\":%.4f,"
        "\"dram_in_flight_per_sm\":%.0f,\"dram_in_flight_gpu\":%.0f,\"round_trip_us\":%.4f,"
        "\"segments_per_s\":%.4e}\n",
        c.layout, c.segment_bytes, c.rows, c.stages, c.blocks_per_sm, static_cast<long long>(c.row_bytes), c.l2_bytes,
        static_cast<long long>(blocks), g.steps, smem, static_cast<long long>(matrix_bytes), med_ms, ms.front(), ms.back(),
        rate, flight_sm, flight_gpu, flight_gpu / (rate * 1e12) * 1e6, rate * 1e12 / c.segment_bytes);
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
    const uint64_t seed = std::random_device{}() | (static_cast<uint64_t>(std::random_device{}()) << 32);
    const uint64_t l2_seed = seed ^ 0x5A5A5A5A5A5A5A5Aull;
    std::printf("{\"probe\":\"seed\",\"seed\":%llu}\n", static_cast<unsigned long long>(seed));
    const int64_t matrix_bytes =
        check_only ? tilescope::segment_probe::kCheckMatrixBytes : tilescope::segment_probe::kMatrixBytes;
    Bufs b;
    b.a_bytes = matrix_bytes;
    b.l2_bytes = 8192 * tilescope::segment_probe::kL2Steps;
    const int64_t max_blocks = matrix_bytes / (64 * 1024);  // no configuration has smaller blocks
    b.out_words = max_blocks * kThreads;
    if (cudaMalloc(&b.a, b.a_bytes) != cudaSuccess || cudaMalloc(&b.l2, b.l2_bytes) != cudaSuccess ||
        cudaMalloc(&b.out, b.out_words * 4) != cudaSuccess) {
        std::fprintf(stderr, "%s: cannot allocate %.2f GB on the device\n", kTool, b.a_bytes / 1e9);
        return 1;
    }
    probe_fill_words<<<1024, 256>>>(reinterpret_cast<uint32_t*>(b.a), static_cast<uint64_t>(b.a_bytes / 4), seed);
    probe_fill_words<<<64, 256>>>(reinterpret_cast<uint32_t*>(b.l2), static_cast<uint64_t>(b.l2_bytes / 4), l2_seed);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        probe_ok(kTool, "fill");
        return 1;
    }
    cudaEvent_t e0, e1;
    probe_events(&e0, &e1);
    const std::vector<Config> configs =
        check_only ? tilescope::segment_probe::check_grid() : tilescope::segment_probe::timed_grid();
    for (const Config& c : configs)
        if (!run(b, p, sms, c, matrix_bytes, !check_only, seed, l2_seed, e0, e1)) return 1;
    if (check_only) std::printf("{\"probe\":\"check\",\"result\":\"pass\"}\n");
    return 0;
}
