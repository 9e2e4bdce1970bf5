// softmax: row softmax, safe (3-pass) and online (2-pass) variants.
//
// What: each block handles tile.m consecutive rows one after another; its threads sweep a row
// in steps of warps*256 columns, one 16-byte vector (8 elements) per thread per step, so every
// global access is a coalesced 16-byte load/store. Row statistics are reduced with warp
// shuffles and a tiny static shared scratch.
// Why two variants: the safe version reads the row three times (max, then sum, then write),
// the online version fuses max and sum (rescaling the running sum when the max grows), so it
// reads the row twice: the same trick flash attention uses across K/V tiles.
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "kernels/common/launch.cuh"
#include "kernels/common/ptx.cuh"
#include "kernels/softmax/softmax.hpp"

namespace tilescope::kern {

namespace {

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

template <class T, int WARPS, bool kOnline>
__global__ void __launch_bounds__(WARPS * 32)
    softmax_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int64_t cols, int rows_per_block,
                   int64_t causal_period) {
    constexpr int kStep = WARPS * 32 * 8;
    __shared__ float scratch[2][WARPS];
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
        } else {
            for (int64_t c0 = threadIdx.x * 8; c0 < cols; c0 += kStep) {
                float f[8];
                load8(xr + c0, f, c0, last);
#pragma unroll
                for (int i = 0; i < 8; ++i) mx = fmaxf(mx, f[i]);
            }
            mx = block_reduce<WARPS>(mx, true, scratch[0]);
            for (int64_t c0 = threadIdx.x * 8; c0 < cols; c0 += kStep) {
                float f[8];
                load8(xr + c0, f, c0, last);
#pragma unroll
                for (int i = 0; i < 8; ++i) sum += (f[i] == -INFINITY) ? 0.f : __expf(f[i] - mx);
            }
            sum = block_reduce<WARPS>(sum, false, scratch[1]);
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
    }
}

template <class T, int WARPS>
Status launch_w(const SoftmaxArgs& s, KernelFacts* facts) {
    const int64_t blocks = (s.rows + s.tile.m - 1) / s.tile.m;
    const dim3 grid(static_cast<unsigned>(blocks));
    const dim3 block(WARPS * 32);
    if (s.variant == SoftmaxVariant::online)
        return launch_or_facts(softmax_kernel<T, WARPS, true>, grid, block, 0, s.stream, facts,
                               static_cast<const T*>(s.x), static_cast<T*>(s.y), s.rows, s.cols, s.tile.m, s.causal_period);
    return launch_or_facts(softmax_kernel<T, WARPS, false>, grid, block, 0, s.stream, facts,
                           static_cast<const T*>(s.x), static_cast<T*>(s.y), s.rows, s.cols, s.tile.m, s.causal_period);
}

template <class T>
Status launch_t(const SoftmaxArgs& s, KernelFacts* facts) {
    switch (s.tile.warps) {
        case 1: return launch_w<T, 1>(s, facts);
        case 2: return launch_w<T, 2>(s, facts);
        case 4: return launch_w<T, 4>(s, facts);
        case 8: return launch_w<T, 8>(s, facts);
        default: return launch_w<T, 16>(s, facts);
    }
}

Status run(const SoftmaxArgs& s, KernelFacts* facts) {
    Status st = softmax_supported(s);
    if (!st) return st;
    return s.dtype == DType::fp16 ? launch_t<__half>(s, facts) : launch_t<__nv_bfloat16>(s, facts);
}

}  // namespace

Status softmax_supported(const SoftmaxArgs& s) {
    if (s.dtype != DType::fp16 && s.dtype != DType::bf16)
        return make_error("softmax kernel supports --dtype fp16 or bf16 only");
    if (s.rows <= 0 || s.cols <= 0) return make_error("softmax kernel needs positive rows and cols");
    if (s.cols % 8 != 0)
        return make_error("softmax kernel needs --cols to be a multiple of 8 (got " + std::to_string(s.cols) + ")");
    const int w = s.tile.warps;
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
        return make_error("softmax kernel supports --warps 1, 2, 4, 8 or 16 (got " + std::to_string(w) + ")");
    if (s.tile.n != w * 256)
        return make_error("softmax kernel needs --tile-n = warps * 256 = " + std::to_string(w * 256) + " (got " +
                          std::to_string(s.tile.n) + ")");
    if (s.tile.m < 1 || s.tile.m > 64)
        return make_error("softmax kernel supports --tile-m (rows per block) in [1, 64] (got " +
                          std::to_string(s.tile.m) + ")");
    if ((s.rows + s.tile.m - 1) / s.tile.m > 0x7fffffffLL) return make_error("softmax kernel: too many blocks");
    return Status::success();
}

Status launch_softmax(const SoftmaxArgs& s) { return run(s, nullptr); }

Result<KernelFacts> softmax_facts(const SoftmaxArgs& s) {
    KernelFacts f;
    Status st = run(s, &f);
    if (!st) return st.error();
    return f;
}

}  // namespace tilescope::kern
