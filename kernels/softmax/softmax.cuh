// softmax: row softmax, safe (3-pass) and online (2-pass) variants.
//
// What: each block handles rows_per_block consecutive rows one after another; its threads sweep
// a row in steps of warps*256 columns, one 16-byte vector (8 elements) per thread per step, so
// every global access is a coalesced 16-byte load/store. Row statistics are reduced with warp
// shuffles and a tiny static shared scratch.
// Why two variants: the safe version reads the row three times (max, then sum, then write),
// the online version fuses max and sum (rescaling the running sum when the max grows), so it
// reads the row twice: the same trick flash attention uses across K/V tiles.
// Hooks (kernels/common/hooks.cuh): every thread calls Hooks::at(0) on entry and, for each row,
// at(p) when pass p is done: online at(1) after its max-and-sum pass and its two reductions,
// at(2) after its write pass; safe at(1) after the max pass and its reduction, at(2) after the
// sum pass and its reduction, at(3) after the write pass. NoHooks (every kernel the tool runs)
// compiles to nothing; tilescope-softmax-timeline-probe (docs/validation change 72) records
// per-block clocks with them.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/common/hooks.cuh"
#include "kernels/common/ptx.cuh"

namespace tilescope::kern {

template <int WARPS>
__device__ float block_reduce(float v, bool is_max, float* scratch) {
    for (int off = 16; off > 0; off /= 2) {
        const float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = is_max ? fmaxf(v, o) : v + o;
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    float r = scratch[0];
#pragma unroll
    for (int w = 1; w < WARPS; ++w) r = is_max ? fmaxf(r, scratch[w]) : r + scratch[w];
    __syncthreads();
    return r;
}

template <class T>
__device__ __forceinline__ void load8(const T* p, float (&f)[8], int64_t c0, int64_t last) {
    const uint4 u = *reinterpret_cast<const uint4*>(p);
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 v = Pack<T>::unpack(w[i]);
        f[2 * i] = v.x;
        f[2 * i + 1] = v.y;
    }
#pragma unroll
    for (int i = 0; i < 8; ++i)
        if (c0 + i > last) f[i] = -INFINITY;  // causal mask (last = cols - 1 when not causal)
}

template <class T, int WARPS, bool kOnline, class Hooks = NoHooks>
__global__ void __launch_bounds__(WARPS * 32)
    softmax_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int64_t cols, int rows_per_block,
                   int64_t causal_period) {
    constexpr int kStep = WARPS * 32 * 8;
    __shared__ float scratch[2][WARPS];
    Hooks::at(0);
    for (int rr = 0; rr < rows_per_block; ++rr) {
        const int64_t row = static_cast<int64_t>(blockIdx.x) * rows_per_block + rr;
        if (row >= rows) return;
        const T* xr = x + row * cols;
        T* yr = y + row * cols;
        const int64_t last = causal_period > 0 ? row % causal_period : cols - 1;
        float mx = -INFINITY, sum = 0.f;
        if constexpr (kOnline) {
            for (int64_t c0 = threadIdx.x * 8; c0 < cols; c0 += kStep) {
                float f[8];
                load8(xr + c0, f, c0, last);
                float lm = f[0];
#pragma unroll
                for (int i = 1; i < 8; ++i) lm = fmaxf(lm, f[i]);
                const float nm = fmaxf(mx, lm);
                float s = 0.f;
#pragma unroll
                for (int i = 0; i < 8; ++i) s += (f[i] == -INFINITY) ? 0.f : __expf(f[i] - nm);
                sum = (nm == -INFINITY ? 0.f : sum * __expf(mx - nm)) + s;
                mx = nm;
            }
            const float gmx = block_reduce<WARPS>(mx, true, scratch[0]);
            sum = (mx == -INFINITY) ? 0.f : sum * __expf(mx - gmx);
            mx = gmx;
            sum = block_reduce<WARPS>(sum, false, scratch[1]);
            Hooks::at(1);
        } else {
            for (int64_t c0 = threadIdx.x * 8; c0 < cols; c0 += kStep) {
                float f[8];
                load8(xr + c0, f, c0, last);
#pragma unroll
                for (int i = 0; i < 8; ++i) mx = fmaxf(mx, f[i]);
            }
            mx = block_reduce<WARPS>(mx, true, scratch[0]);
            Hooks::at(1);
            for (int64_t c0 = threadIdx.x * 8; c0 < cols; c0 += kStep) {
                float f[8];
                load8(xr + c0, f, c0, last);
#pragma unroll
                for (int i = 0; i < 8; ++i) sum += (f[i] == -INFINITY) ? 0.f : __expf(f[i] - mx);
            }
            sum = block_reduce<WARPS>(sum, false, scratch[1]);
            Hooks::at(2);
        }
        const float inv = 1.f / sum;
        for (int64_t c0 = threadIdx.x * 8; c0 < cols; c0 += kStep) {
            float f[8];
            load8(xr + c0, f, c0, last);
            uint4 u;
            u.x = Pack<T>::pack(__expf(f[0] - mx) * inv, __expf(f[1] - mx) * inv);
            u.y = Pack<T>::pack(__expf(f[2] - mx) * inv, __expf(f[3] - mx) * inv);
            u.z = Pack<T>::pack(__expf(f[4] - mx) * inv, __expf(f[5] - mx) * inv);
            u.w = Pack<T>::pack(__expf(f[6] - mx) * inv, __expf(f[7] - mx) * inv);
            *reinterpret_cast<uint4*>(yr + c0) = u;
        }
        Hooks::at(kOnline ? 2 : 3);
    }
}

}  // namespace tilescope::kern
