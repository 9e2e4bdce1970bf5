#!/usr/bin/env python3
"""HBM read, write and copy rates with PyTorch kernels (no tilescope build needed).

Why: naive attention's QK^T launch writes the N x N scores at 0.73-1.0 TB/s on the H100
(docs/validation/README.md), a third of the 2.79 TB/s streaming-read rate that the calibrated
profile uses for all HBM traffic. This checks whether plain coalesced writes are that slow too.
Each kernel runs on a 4 GiB buffer (80x the L2), 3 warm-ups, median of 10 CUDA-event timings.
Two small CUDA kernels (compiled with torch.utils.cpp_extension.load_inline when nvcc is there)
write the same fp16 matrix once as the GEMM epilogue does (kernels/gemm/gemm.cuh: each lane
stores its accumulator fragment, two fp16 = 4 bytes, at rows g and g + 8 of a 16-row band, so
one warp store fills half of eight 32-byte sectors) and once with 16-byte coalesced stores.
Prints one JSON line per kernel: bytes read, bytes written, ms, TB/s.
"""
import json
import statistics

import torch


def timed(fn, reps=10, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


CUDA_SRC = r"""
#include <cuda_fp16.h>
#include <torch/extension.h>
// C is rows x cols fp16 (rows % 16 == 0, cols % 64 == 0). One warp per 16 x 64 band piece.
__global__ void fragment_store(__half* c, long rows, long cols) {
    long warp = (blockIdx.x * (long)blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    long pieces = cols / 64;
    long r0 = (warp / pieces) * 16, c0 = (warp % pieces) * 64;
    if (r0 >= rows) return;
    __half2 v = __floats2half2_rn(1.f, 2.f);
    for (int ni = 0; ni < 8; ++ni) {
        long col = c0 + ni * 8 + 2 * t;
        *reinterpret_cast<__half2*>(c + (r0 + g) * cols + col) = v;
        *reinterpret_cast<__half2*>(c + (r0 + g + 8) * cols + col) = v;
    }
}
__global__ void coalesced_store(__half* c, long n16) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n16) reinterpret_cast<uint4*>(c)[i] = make_uint4(0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u);
}
void run_fragment(torch::Tensor c, long rows, long cols) {
    long warps = rows / 16 * (cols / 64);
    fragment_store<<<(warps * 32 + 255) / 256, 256>>>(reinterpret_cast<__half*>(c.data_ptr()), rows, cols);
}
void run_coalesced(torch::Tensor c) {
    long n16 = c.numel() * 2 / 16;
    coalesced_store<<<(n16 + 255) / 256, 256>>>(reinterpret_cast<__half*>(c.data_ptr()), n16);
}
"""
CPP_SRC = "void run_fragment(torch::Tensor c, long rows, long cols); void run_coalesced(torch::Tensor c);"


def main():
    n = (4 << 30) // 2  # 4 GiB of fp16
    x = torch.ones(n, dtype=torch.float16, device="cuda")
    y = torch.empty_like(x)
    nbytes = x.numel() * x.element_size()
    cases = [
        ("write (fill_)", lambda: y.fill_(1.0), 0, nbytes),
        ("read (sum)", lambda: x.sum(dtype=torch.float32), nbytes, 0),
        ("copy (copy_)", lambda: y.copy_(x), nbytes, nbytes),
    ]
    print(json.dumps({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "cuda": torch.version.cuda}))
    try:
        from torch.utils.cpp_extension import load_inline
        ext = load_inline("tilescope_store_bench", CPP_SRC, cuda_sources=CUDA_SRC,
                          functions=["run_fragment", "run_coalesced"], extra_cuda_cflags=["-O3"])
        rows, cols = 32768, n // 32768
        c = y.view(rows, cols)
        cases += [
            ("write, GEMM-epilogue fragments (4 B per lane, half sectors)", lambda: ext.run_fragment(c, rows, cols), 0, nbytes),
            ("write, 16 B per lane coalesced", lambda: ext.run_coalesced(c), 0, nbytes),
        ]
    except Exception as e:  # no compiler: the PyTorch kernels alone
        print(json.dumps({"skipped": "store-pattern kernels", "why": str(e)[:300]}))
    for name, fn, rd, wr in cases:
        ms = timed(fn)
        print(json.dumps({"kernel": name, "bytes_read": rd, "bytes_written": wr, "ms": round(ms, 4),
                          "tb_per_s": round((rd + wr) / ms / 1e9, 3)}))


if __name__ == "__main__":
    main()
