// tilescope-l2-reuse-probe: how much of a re-read the H100's L2 keeps, as a function of how
// many bytes were brought in between the two reads (the reuse distance). The simulator's L2 is
// a fully associative LRU per partition (simulator/l2_cache.hpp): it keeps every re-read whose
// reuse distance fits the capacity and none beyond. The softmax kernel's passes re-read rows a
// pass later, and the measured softmax launches take more of those re-reads from HBM than the
// model predicts (docs/validation change 29), so this probe measures the curve itself.
//
// For each size D: the L2 is first filled with a 256 MiB buffer nobody reads again (clean lines);
// then one launch, `first_read` (D bytes of X, 16-byte ld.global.nc per lane, every SM, in
// address order) or `first_copy` (the same reads, each 16 bytes also stored to Y: the dirty lines
// of a pass that writes, as the softmax's last pass does), then `second_read` reads the same D
// bytes of X again in the same order. Under Nsight Compute (`--cache-control none`, so the L2 is
// not flushed between launches; `--clock-control none`) the `second_read` launches' DRAM read
// bytes give the share of X the L2 kept: 1 - dram__bytes_read / D. Without a profiler the probe
// prints each launch's CUDA-event time. One JSON object per line, in launch order: pattern,
// MiB, ms of each launch. With `store` as the argument, a third pattern instead: `first_store`
// writes D bytes of Y (16-byte stores, nothing read) and `second_read` then reads D bytes of X
// that nobody has read: the DRAM write bytes of each launch say how much dirty data the L2 keeps
// while it fills (`first_store`) and whether new reads evict it (`second_read`). With `variants`
// (docs/validation changes 78-79), seven patterns ask what makes the read-and-copy re-read lose
// more than the read-only one: `read` and `copy` again, `store_read` (`first_store` writes D bytes
// of Y, then `first_read` reads D bytes of X: the same bytes as `copy`, the stores all older than
// the reads), `read_store` (the reads first, the stores after: all younger), `copy_half`
// (`first_copy_half`: the reads of `copy`, but only every other 4 KiB segment of them stored),
// and `copy_frag` and `fstore_read` (`copy` and `store_read` with Y stored in 16-byte half
// sectors, as the GEMM kernel's epilogue stores its fragments), each followed by `second_read`
// of X. Exit 3 without a GPU.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "kernels/tools/probe_device.cuh"

namespace {

// Reads n16 16-byte vectors of x, grid-stride in address order, and keeps the loads alive. The
// three read kernels below differ only in name, so that Nsight Compute can profile one of them.
__device__ __forceinline__ void read_all(const uint4* __restrict__ x, long n16, unsigned* sink) {
    unsigned acc = 0;
    const long stride = static_cast<long>(gridDim.x) * blockDim.x;
    for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride) {
        const uint4 v = __ldg(x + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads; never true for the zeroed buffers
}

__global__ void flush_read(const uint4* __restrict__ f, long n16, unsigned* sink) { read_all(f, n16, sink); }

__global__ void first_read(const uint4* __restrict__ x, long n16, unsigned* sink) { read_all(x, n16, sink); }

__global__ void first_copy(const uint4* __restrict__ x, uint4* __restrict__ y, long n16) {
    const long stride = static_cast<long>(gridDim.x) * blockDim.x;
    for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride) y[i] = __ldg(x + i);
}

// first_copy with only the even 4 KiB segments of Y stored (256 vectors a segment): the same
// reads, half the stored bytes, over the same address range.
__global__ void first_copy_half(const uint4* __restrict__ x, uint4* __restrict__ y, long n16) {
    const long stride = static_cast<long>(gridDim.x) * blockDim.x;
    for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride) {
        const uint4 v = __ldg(x + i);
        if (((i >> 8) & 1) == 0) y[i] = v;
    }
}

// Stores a warp's 512 bytes the way the GEMM kernel's epilogue stores its accumulator fragments
// (change 12): four store instructions of 4 bytes per lane, each covering one 16-byte half of
// 8 sectors, so that no instruction writes a whole sector. v is this lane's 16 bytes of the
// chunk (lane l holds bytes 16 l .. 16 l + 15); every lane of the warp must call it.
__device__ __forceinline__ void store_half_sectors(uint4* __restrict__ chunk, uint4 v) {
    const unsigned lane = threadIdx.x & 31u;
    unsigned* out = reinterpret_cast<unsigned*>(chunk);
    for (unsigned j = 0; j < 4; ++j) {
        const unsigned o = ((lane >> 2) + 8u * (j >> 1)) * 32u + (j & 1u) * 16u + (lane & 3u) * 4u;  // byte offset
        const unsigned src = o >> 4, c = (o >> 2) & 3u;
        const unsigned a = __shfl_sync(0xffffffffu, v.x, src), b = __shfl_sync(0xffffffffu, v.y, src);
        const unsigned d = __shfl_sync(0xffffffffu, v.z, src), e = __shfl_sync(0xffffffffu, v.w, src);
        out[o >> 2] = c == 0 ? a : c == 1 ? b : c == 2 ? d : e;
    }
}

// first_copy with Y stored in half sectors (store_half_sectors): the same reads and bytes. The
// grid-stride loop runs whole warps (n16 is a multiple of 32 vectors and the stride of the
// block size), so lane l of warp w still reads vector 32 w + l.
__global__ void first_copy_frag(const uint4* __restrict__ x, uint4* __restrict__ y, long n16) {
    const long stride = static_cast<long>(gridDim.x) * blockDim.x;
    for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride)
        store_half_sectors(y + (i & ~31L), __ldg(x + i));
}

// first_store in half sectors.
__global__ void first_store_frag(uint4* __restrict__ y, long n16) {
    const long stride = static_cast<long>(gridDim.x) * blockDim.x;
    const uint4 v = make_uint4(1u, 2u, 3u, 4u);
    for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride)
        store_half_sectors(y + (i & ~31L), v);
}

__global__ void first_store(uint4* __restrict__ y, long n16) {
    const long stride = static_cast<long>(gridDim.x) * blockDim.x;
    const uint4 v = make_uint4(1u, 2u, 3u, 4u);
    for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride) y[i] = v;
}

__global__ void second_read(const uint4* __restrict__ x, long n16, unsigned* sink) { read_all(x, n16, sink); }

}  // namespace

int main(int argc, char** argv) {
    const bool store_pattern = argc > 1 && std::strcmp(argv[1], "store") == 0;
    const bool variants = argc > 1 && std::strcmp(argv[1], "variants") == 0;
    if (argc > 2 || (argc == 2 && !store_pattern && !variants)) {
        std::fprintf(stderr, "usage: tilescope-l2-reuse-probe [store | variants]\n");
        return 2;
    }
    const int sms = probe_device("tilescope-l2-reuse-probe");
    if (sms == 0) return 3;
    const long flush = 256L << 20, most = 160L << 20;
    uint4 *f = nullptr, *x = nullptr, *y = nullptr;
    unsigned* sink = nullptr;
    if (cudaMalloc(&f, flush) != cudaSuccess || cudaMalloc(&x, most) != cudaSuccess ||
        cudaMalloc(&y, most) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess || cudaMemset(f, 0, flush) != cudaSuccess ||
        cudaMemset(x, 0, most) != cudaSuccess || cudaMemset(y, 0, most) != cudaSuccess) {
        std::fprintf(stderr, "tilescope-l2-reuse-probe: cannot allocate 576 MiB\n");
        return 1;
    }
    const dim3 grid(static_cast<unsigned>(sms * 8)), block(256);
    cudaEvent_t e[4];
    for (auto& ev : e) cudaEventCreate(&ev);
    std::vector<long> mib = {2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 56, 64, 80, 96, 128, 160};
    std::vector<const char*> patterns = {"read", "copy"};
    if (store_pattern) patterns = {"store"};
    if (variants) {
        patterns = {"read", "copy", "store_read", "read_store", "copy_half", "copy_frag", "fstore_read"};
        mib = {8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 56, 64, 96, 128, 160};
    }
    for (const char* pattern : patterns) {
        const auto is = [&](const char* p) { return std::strcmp(pattern, p) == 0; };
        for (long m : mib) {
            const long n16 = (m << 20) / 16;
            cudaEventRecord(e[0]);
            flush_read<<<grid, block>>>(f, flush / 16, sink);
            cudaEventRecord(e[1]);
            if (is("copy")) first_copy<<<grid, block>>>(x, y, n16);
            else if (is("copy_half")) first_copy_half<<<grid, block>>>(x, y, n16);
            else if (is("copy_frag")) first_copy_frag<<<grid, block>>>(x, y, n16);
            else if (is("fstore_read")) {
                first_store_frag<<<grid, block>>>(y, n16);
                first_read<<<grid, block>>>(x, n16, sink);
            } else if (is("store")) first_store<<<grid, block>>>(y, n16);
            else if (is("store_read")) {
                first_store<<<grid, block>>>(y, n16);
                first_read<<<grid, block>>>(x, n16, sink);
            } else if (is("read_store")) {
                first_read<<<grid, block>>>(x, n16, sink);
                first_store<<<grid, block>>>(y, n16);
            } else first_read<<<grid, block>>>(x, n16, sink);
            cudaEventRecord(e[2]);
            second_read<<<grid, block>>>(x, n16, sink);
            cudaEventRecord(e[3]);
            cudaEventSynchronize(e[3]);
            if (!probe_ok("tilescope-l2-reuse-probe", pattern)) return 1;
            float t1 = 0, t2 = 0;
            cudaEventElapsedTime(&t1, e[1], e[2]);
            cudaEventElapsedTime(&t2, e[2], e[3]);
            std::printf("{\"probe\":\"l2_reuse\",\"pattern\":\"%s\",\"mib\":%ld,\"first_ms\":%.5f,\"second_ms\":%.5f,"
                        "\"second_tbps\":%.4f}\n",
                        pattern, m, t1, t2, static_cast<double>(m << 20) / (t2 * 1e-3) / 1e12);
        }
    }
    return 0;
}
