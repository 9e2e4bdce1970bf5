// Warp-level building blocks shared by the tensor-core kernels (sm_80+):
//   cp.async 16-byte global->shared copies (with zero fill for rows past the end),
//   ldmatrix (plain and transposed) to load mma fragments from shared memory,
//   mma.sync.m16n8k16 with fp16/bf16 inputs and fp32 accumulators,
//   the XOR swizzle that keeps ldmatrix free of bank conflicts without padding.
//
// Fragment layout of mma.m16n8k16 (g = lane / 4, t = lane % 4):
//   A (16x16): a0 = (row g,   k 2t..2t+1)  a1 = (row g+8, k 2t..2t+1)
//              a2 = (row g,   k 2t+8..+9)  a3 = (row g+8, k 2t+8..+9)
//   B (16x8):  b0 = (k 2t..2t+1, col g)    b1 = (k 2t+8..+9, col g)
//   C (16x8):  c0,c1 = (row g, cols 2t, 2t+1)   c2,c3 = (row g+8, cols 2t, 2t+1)
// Two adjacent C tiles of a row block, converted to 16-bit, are exactly one A fragment
// (that is how P = softmax(S) feeds O += P V without touching shared memory).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace tilescope::kern {

// ---- element types ---------------------------------------------------------------------
template <class T>
struct Pack;
template <>
struct Pack<__half> {
    static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
        __half2 h = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<uint32_t*>(&h);
    }
    static __device__ __forceinline__ float2 unpack(uint32_t v) {
        return __half22float2(*reinterpret_cast<__half2*>(&v));
    }
    static __device__ __forceinline__ __half from_float(float x) { return __float2half_rn(x); }
    static __device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
};
template <>
struct Pack<__nv_bfloat16> {
    static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
        __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<uint32_t*>(&h);
    }
    static __device__ __forceinline__ float2 unpack(uint32_t v) {
        return __bfloat1622float2(*reinterpret_cast<__nv_bfloat162*>(&v));
    }
    static __device__ __forceinline__ __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }
    static __device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
};

// ---- tensor-core mma ---------------------------------------------------------------------
template <class T>
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1);

template <>
__device__ __forceinline__ void mma16816<__half>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                                 uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void mma16816<__nv_bfloat16>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                                        uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// ---- ldmatrix -------------------------------------------------------------------------------
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// ---- cp.async ------------------------------------------------------------------------------
// Copies 16 bytes; when `valid` is false the destination is zero-filled and nothing is read.
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid) {
    const int src_bytes = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// ---- swizzle ---------------------------------------------------------------------------------
// Byte offset of 16-byte chunk `chunk` of row `row` in a tile whose rows hold `kChunks` chunks
// (row length kChunks*16 bytes, no padding). ldmatrix reads one chunk column of 8 consecutive
// rows; the XOR spreads those 8 reads over all 32 banks.
//   kChunks >= 8: chunk ^ (row % 8)          (rows of >= 128 B)
//   kChunks == 4: chunk ^ ((row / 2) % 4)    (rows of 64 B: two rows share a 128-B bank line)
template <int kChunks>
__device__ __forceinline__ uint32_t swz(int row, int chunk) {
    static_assert(kChunks == 4 || kChunks % 8 == 0, "swizzle supports rows of 64 B or a multiple of 128 B");
    int c = (kChunks == 4) ? (chunk ^ ((row >> 1) & 3)) : (chunk ^ (row & 7));
    return static_cast<uint32_t>((row * kChunks + c) * 16);
}

// Quad (4 lanes sharing a row of a C fragment) reductions.
__device__ __forceinline__ float quad_max(float v) {
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
    return v;
}
__device__ __forceinline__ float quad_sum(float v) {
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    v += __shfl_xor_sync(0xffffffffu, v, 2);
    return v;
}

}  // namespace tilescope::kern
