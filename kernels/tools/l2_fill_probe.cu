// tilescope-l2-fill-probe: how fast the SMs can pull L2-resident data, by the path the tiled
// kernels use. The simulator's L2 server runs at the `l2_bandwidth` microbenchmark's rate (16-byte
// ld.global.cg into registers, 4 blocks of 512 threads per SM). The fused attention and GEMM
// kernels instead fill shared-memory tiles with cp.async (LDGSTS) in a 2- or 3-stage pipeline, and
// the flash2 tiles that request the most L2 bytes per second (2-warp blocks, 5-6 TB/s requested)
// run 10-20% slower than the model predicts (docs/validation change 32). This probe measures the
// rate of each path on the same L2-resident buffer (12.5 MiB, a quarter of the H100's L2, as
// the microbenchmark uses):
//   ldg    16-byte ld.global.cg per lane into registers, a tile per step (the microbenchmark's path)
//   async  16-byte cp.async.cg per lane into a shared-memory tile, `stages` tiles in flight, a
//          block barrier per step (the kernels' path; one value of each tile is read back)
// for blocks of 64, 128 and 256 threads, 16 and 32 KiB tiles and 1-6 resident blocks per SM
// (a persistent grid, sms x blocks, every block resident). With `pair`, blocks 2i and 2i+1 read
// the same addresses in the same order (what the L2 request coalescer can merge); otherwise each
// block starts at its own offset. One JSON object per line: path, threads, tile bytes, stages,
// blocks per SM, pair, median time of 5 and the rate of bytes the SMs requested (TB/s).
// Exit 3 without a GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "kernels/common/ptx.cuh"
#include "kernels/tools/probe_device.cuh"

namespace {

using tilescope::kern::cp_async16;
using tilescope::kern::cp_async_commit;
using tilescope::kern::cp_async_wait;
using tilescope::kern::smem_u32;

// Where block `b`'s walk starts (in 16-byte chunks): its own offset, or its pair's with `pair`.
__device__ __forceinline__ long start_chunk(long n16, int tile16, bool pair) {
    const long b = pair ? blockIdx.x / 2 : blockIdx.x;
    return (b * 4099L * tile16) % (n16 - tile16);
}

__global__ void ldg_fill(const uint4* __restrict__ src, long n16, int tile16, int steps, bool pair, unsigned* sink) {
    unsigned acc = 0;
    long pos = start_chunk(n16, tile16, pair);
    for (int s = 0; s < steps; ++s) {
        for (int i = threadIdx.x; i < tile16; i += blockDim.x) {
            const uint4 v = __ldcg(src + pos + i);
            acc ^= v.x ^ v.y ^ v.z ^ v.w;
        }
        pos += tile16;
        if (pos > n16 - tile16) pos = 0;
    }
    if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads; never true for the zeroed buffer
}

template <int STAGES>
__global__ void async_fill(const uint4* __restrict__ src, long n16, int tile16, int steps, bool pair, unsigned* sink) {
    extern __shared__ uint4 tiles[];  // STAGES x tile16
    unsigned acc = 0;
    long pos = start_chunk(n16, tile16, pair);
    auto issue = [&](int slot) {
        const uint32_t base = smem_u32(tiles + static_cast<long>(slot) * tile16);
        for (int i = threadIdx.x; i < tile16; i += blockDim.x) cp_async16(base + 16u * i, src + pos + i, true);
        cp_async_commit();
        pos += tile16;
        if (pos > n16 - tile16) pos = 0;
    };
    for (int s = 0; s < STAGES - 1; ++s) issue(s);
    for (int s = 0; s < steps; ++s) {
        issue((s + STAGES - 1) % STAGES);
        cp_async_wait<STAGES - 1>();
        __syncthreads();
        const uint4 v = tiles[static_cast<long>(s % STAGES) * tile16 + threadIdx.x % tile16];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
        __syncthreads();  // the slot is refilled next step
    }
    cp_async_wait<0>();
    if (acc == 0x9e3779b9u) *sink = acc;
}

}  // namespace

int main() {
    const int sms = probe_device("tilescope-l2-fill-probe");
    if (sms == 0) return 3;
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
    const long bytes = std::max<long>(l2 / 4, 1L << 20) / 4096 * 4096, n16 = bytes / 16;
    uint4* src = nullptr;
    unsigned* sink = nullptr;
    if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess ||
        cudaMemset(src, 0, bytes) != cudaSuccess) {
        std::fprintf(stderr, "tilescope-l2-fill-probe: cannot allocate %ld bytes\n", bytes);
        return 1;
    }
    for (auto k : {async_fill<2>, async_fill<3>})
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024);
    cudaEvent_t e0, e1;
    probe_events(&e0, &e1);
    struct Config {
        int threads, tile_kib, stages, blocks_per_sm;
    };
    std::vector<Config> configs;
    for (int threads : {64, 128, 256})
        for (int tile : {16, 32})
            for (int stages : {2, 3})
                for (int bps : {1, 2, 3, 6})
                    if (stages * tile * bps <= 224) configs.push_back({threads, tile, stages, bps});
    const long per_sm_bytes = 256L << 20;  // bytes each SM pulls per launch
    for (bool pair : {false, true}) {
        for (const char* path : {"ldg", "async"}) {
            const bool async = path[0] == 'a';
            for (const Config& c : configs) {
                if (!async && c.stages != 2) continue;  // the stage count is the async path's
                const int tile16 = c.tile_kib * 1024 / 16;
                const int grid = sms * c.blocks_per_sm;
                const int steps = static_cast<int>(per_sm_bytes / c.blocks_per_sm / (c.tile_kib * 1024L));
                const size_t smem = static_cast<size_t>(c.stages) * c.tile_kib * 1024;
                auto launch = [&] {
                    if (!async) ldg_fill<<<grid, c.threads>>>(src, n16, tile16, steps, pair, sink);
                    else if (c.stages == 2) async_fill<2><<<grid, c.threads, smem>>>(src, n16, tile16, steps, pair, sink);
                    else async_fill<3><<<grid, c.threads, smem>>>(src, n16, tile16, steps, pair, sink);
                };
                launch();  // warm-up: brings the buffer into the L2
                if (!probe_ok("tilescope-l2-fill-probe", path)) return 1;
                std::vector<float> ms;
                for (int r = 0; r < 5; ++r) {
                    cudaEventRecord(e0);
                    launch();
                    const float t = probe_elapsed_ms("tilescope-l2-fill-probe", path, e0, e1);
                    if (t < 0) return 1;
                    ms.push_back(t);
                }
                std::sort(ms.begin(), ms.end());
                const double moved = static_cast<double>(grid) * steps * c.tile_kib * 1024.0;
                std::printf("{\"probe\":\"l2_fill\",\"path\":\"%s\",\"threads\":%d,\"tile_bytes\":%d,\"stages\":%d,"
                            "\"blocks_per_sm\":%d,\"pair\":%s,\"ms\":%.5f,\"requested_tbps\":%.4f}\n",
                            path, c.threads, c.tile_kib * 1024, async ? c.stages : 0, c.blocks_per_sm,
                            pair ? "true" : "false", ms[2], moved / (ms[2] * 1e-3) / 1e12);
                std::fflush(stdout);
            }
        }
    }
    return 0;
}
