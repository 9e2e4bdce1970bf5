// tilescope-loop-overlap-probe: how much of the GEMM kernel's K-loop compute hides under the
// loads it has in flight (docs/validation change 63).
//
// Change 62's probe timed naive attention's P V loop without its mma and found the loads alone
// take as long as the whole launch; the simulator's warp model, given those loads, charged its
// per-iteration wait and work on top (P V 11-16% too slow). This probe runs the GEMM kernel
// itself (kernels/gemm/gemm.cuh, the tool's instantiations' code) three ways on the same grids:
//   "full"     the kernel as the tool launches it;
//   "loads"    Hooks::kMma false: the same loads, waits and barriers, no ldmatrix and no mma;
//   "compute"  Hooks::kLoads false: the prologue fills every stage buffer once, the K loop issues
//              no load and computes on buffer kt % stages (the same waits, barriers, ldmatrix, mma).
// Per grid and way: one warm-up, then the median of 5 timed runs (cudaEvent), and
// overlap = (t_loads + t_compute - t_full) / min(t_loads, t_compute): 1 when the shorter part
// hides entirely under the longer, 0 when they add up.
// Grids: naive attention's P V (A = P, N x N per (batch, head) slice; B = V, N x d; tile_n =
// min(tile, d); 2 stages, 8 warps) at the H100 data set's N = 2048 (b8 h32 at d = 64, b8 h16 at
// d = 128) and N = 8192 (b2 h32, b2 h16), every tile; and the GEMM family's square shapes
// m = n = k in {1024, 2048, 4096} (3 stages, 8 warps), every tile.
//
// Correctness first: the inputs are fresh pseudo-random fp16 values in [-1, 1] (a counter-based
// hash of the element's index and a seed drawn per run, the same function on the CPU); C is
// poisoned (NaN) before each checked run; "full" must match a float64 reference of A B, and
// "compute" one of its own sum (the product of step (kt % stages)'s tiles summed over kt), on 512
// sampled entries within fp16 tolerance; "loads" must store exact zeros everywhere. Any failure:
// exit 1. Usage: tilescope-loop-overlap-probe [--check]   (--check: the checks on small ragged
// problems of every instantiation, no timing; the CTest test loop_overlap_probe_check, label
// gpu). Exit 3 without a GPU.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/attention/flash2/flash2.cuh"
#include "kernels/gemm/gemm.cuh"
#include "kernels/tools/probe_device.cuh"

namespace {

constexpr const char* kTool = "tilescope-loop-overlap-probe";
constexpr int kTK = 32, kWM = 2, kWN = 4, kThreads = kWM * kWN * 32;

enum class Way { kFull, kLoads, kCompute };
const char* way_name(Way w) { return w == Way::kFull ? "full" : w == Way::kLoads ? "loads" : "compute"; }

struct LoadsOnly {
    static constexpr bool kStores = true;
    static constexpr bool kMma = false;
    __device__ static void at(int) {}
};
struct ComputeOnly {
    static constexpr bool kStores = true;
    static constexpr bool kLoads = false;
    __device__ static void at(int) {}
};

// Element i of a buffer (the same on both sides): fp16 of a value in [-1, 1] from a
// counter-based hash of i and the seed (splitmix64's finalizer).
__host__ __device__ inline float value_of(uint64_t i, uint64_t seed) {
    uint64_t z = i + seed * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<float>(static_cast<double>(z >> 40) / static_cast<double>(1ULL << 23) - 1.0);
}

__global__ void fill(__half* x, uint64_t n, uint64_t seed) {
    for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<uint64_t>(gridDim.x) * blockDim.x)
        x[i] = __float2half(value_of(i, seed));
}

double host_value(uint64_t i, uint64_t seed) { return static_cast<double>(__half2float(__float2half(value_of(i, seed)))); }

// The loads way's output: every element must be an exact (signed) zero; else one line naming the
// first that is not.
bool all_zero(const std::vector<__half>& x, const char* name, const std::string& what) {
    for (size_t i = 0; i < x.size(); ++i) {
        uint16_t bits;
        std::memcpy(&bits, &x[i], 2);
        if (bits != 0 && bits != 0x8000) {
            std::fprintf(stderr, "%s: %s: %s[%zu] = %g, expected 0\n", kTool, what.c_str(), name, i,
                         static_cast<double>(__half2float(x[i])));
            return false;
        }
    }
    return true;
}

// One problem: C[s] (m x n) = A[s] (m x k, row-major) B[s] (k x n, row-major) for `batch` slices.
struct Problem {
    std::string family;  // "pv" or "gemm"
    int m, n, k, batch, d;
    int64_t a_elems() const { return static_cast<int64_t>(batch) * m * k; }
    int64_t b_elems() const { return static_cast<int64_t>(batch) * k * n; }
    int64_t c_elems() const { return static_cast<int64_t>(batch) * m * n; }
};

struct Bufs {
    __half *a = nullptr, *b = nullptr, *c = nullptr;
    uint64_t seed_a = 0, seed_b = 0;
};

template <int TM, int TN, int S, Way W>
auto kernel_of() {
    using Hooks = std::conditional_t<W == Way::kFull, tilescope::kern::NoHooks,
                                     std::conditional_t<W == Way::kLoads, LoadsOnly, ComputeOnly>>;
    return tilescope::kern::gemm_kernel<__half, TM, TN, kTK, S, kWM, kWN, false, false, Hooks>;
}

template <int TM, int TN, int S, Way W>
bool launch(const Bufs& b, const Problem& p) {
    auto kern = kernel_of<TM, TN, S, W>();
    const int smem = S * (TM * kTK + kTK * TN) * 2;
    static const bool smem_set =
        cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) == cudaSuccess;
    if (!smem_set) {
        std::fprintf(stderr, "%s: cannot give the %dx%d kernel %d bytes of shared memory\n", kTool, TM, TN, smem);
        return false;
    }
    const int tiles = ((p.m + TM - 1) / TM) * ((p.n + TN - 1) / TN);
    kern<<<dim3(tiles, p.batch), kThreads, smem>>>(b.a, b.b, b.c, p.m, p.n, p.k, p.k, p.n, p.n,
                                                  static_cast<int64_t>(p.m) * p.k, static_cast<int64_t>(p.k) * p.n,
                                                  static_cast<int64_t>(p.m) * p.n, 1.0f, 0);
    return probe_ok(kTool, "gemm_kernel");
}

template <int TM, int TN, int S, Way W>
float timed(const Bufs& b, const Problem& p, cudaEvent_t e0, cudaEvent_t e1) {
    cudaEventRecord(e0);
    if (!launch<TM, TN, S, W>(b, p)) return -1.f;
    return probe_elapsed_ms(kTool, "gemm_kernel", e0, e1);
}

// One way on one problem: C poisoned, one run, then "loads" must store zeros everywhere and the
// others must match their float64 reference on 512 sampled entries.
template <int TM, int TN, int S, Way W>
bool check(const Bufs& b, const Problem& p, std::mt19937& rng) {
    const size_t count = static_cast<size_t>(p.c_elems());
    cudaMemset(b.c, 0xff, count * 2);  // fp16 0xffff: NaN
    if (!launch<TM, TN, S, W>(b, p)) return false;
    std::vector<__half> c(count);
    cudaMemcpy(c.data(), b.c, count * 2, cudaMemcpyDeviceToHost);
    if (!probe_ok(kTool, "copy C")) return false;
    const std::string what = p.family + " " + std::to_string(TM) + "x" + std::to_string(TN) + " s" +
                             std::to_string(S) + " " + way_name(W) + " (m " + std::to_string(p.m) + ", n " +
                             std::to_string(p.n) + ", k " + std::to_string(p.k) + ")";
    if constexpr (W == Way::kLoads) return all_zero(c, "C", what);
    const int k_tiles = (p.k + kTK - 1) / kTK;
    std::uniform_int_distribution<size_t> pick(0, count - 1);
    for (int t = 0; t < 512; ++t) {
        const size_t at = pick(rng);
        const uint64_t s = at / (static_cast<uint64_t>(p.m) * p.n), row = at / p.n % p.m, col = at % p.n;
        double ref = 0, mag = 0;
        auto term = [&](int64_t kk) {
            const double x = host_value((s * p.m + row) * p.k + static_cast<uint64_t>(kk), b.seed_a) *
                             host_value((s * p.k + static_cast<uint64_t>(kk)) * p.n + col, b.seed_b);
            ref += x;
            mag += std::fabs(x);
        };
        int terms = 0;
        if constexpr (W == Way::kFull) {
            for (int64_t kk = 0; kk < p.k; ++kk) term(kk);
            terms = p.k;
        } else {
            for (int kt = 0; kt < k_tiles; ++kt) {
                const int step = kt % S;  // the buffer the prologue filled with step `step`
                for (int64_t kk = static_cast<int64_t>(step) * kTK; kk < std::min<int64_t>(p.k, (step + 1) * kTK); ++kk)
                    term(kk);
                terms += kTK;
            }
        }
        const double got = static_cast<double>(__half2float(c[at]));
        // fp16 output: half an ulp of the result (2^-11 relative) plus fp32 accumulation of the terms.
        const double tol = std::fabs(ref) / 1024 + mag * terms * 1.2e-7 + 1e-3;
        if (!std::isfinite(got) || std::fabs(got - ref) > tol) {
            std::fprintf(stderr, "%s: %s: C[%zu] = %.6g, float64 reference %.6g (tolerance %.3g)\n", kTool,
                         what.c_str(), at, got, ref, tol);
            return false;
        }
    }
    return true;
}

template <int TM, int TN, int S, Way W>
float median_ms(const Bufs& b, const Problem& p, cudaEvent_t e0, cudaEvent_t e1) {
    if (timed<TM, TN, S, W>(b, p, e0, e1) < 0) return -1.f;  // warm-up
    std::vector<float> ms;
    for (int r = 0; r < 5; ++r) {
        const float t = timed<TM, TN, S, W>(b, p, e0, e1);
        if (t < 0) return -1.f;
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[2];
}

bool fill_inputs(Bufs& b, const Problem& p, std::mt19937_64& rng) {
    b.seed_a = rng();
    b.seed_b = rng();
    fill<<<2048, 256>>>(b.a, static_cast<uint64_t>(p.a_elems()), b.seed_a);
    fill<<<256, 256>>>(b.b, static_cast<uint64_t>(p.b_elems()), b.seed_b);
    cudaDeviceSynchronize();
    return probe_ok(kTool, "fill");
}

// The three ways on one problem: checked on the check grid, timed (after a check of "full") on
// the timed grid, one JSON line.
template <int TM, int TN, int S>
bool run(Bufs& b, const Problem& p, bool check_only, std::mt19937& rng, std::mt19937_64& seeds, cudaEvent_t e0,
         cudaEvent_t e1) {
    if (!fill_inputs(b, p, seeds)) return false;
    if (check_only)
        return check<TM, TN, S, Way::kFull>(b, p, rng) && check<TM, TN, S, Way::kLoads>(b, p, rng) &&
               check<TM, TN, S, Way::kCompute>(b, p, rng);
    if (!check<TM, TN, S, Way::kFull>(b, p, rng)) return false;
    const float full = median_ms<TM, TN, S, Way::kFull>(b, p, e0, e1);
    const float loads = median_ms<TM, TN, S, Way::kLoads>(b, p, e0, e1);
    const float compute = median_ms<TM, TN, S, Way::kCompute>(b, p, e0, e1);
    if (full < 0 || loads < 0 || compute < 0) return false;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_of<TM, TN, S, Way::kFull>(), kThreads,
                                                  S * (TM * kTK + kTK * TN) * 2);
    const int64_t blocks = static_cast<int64_t>((p.m + TM - 1) / TM) * ((p.n + TN - 1) / TN) * p.batch;
    const double overlap = (static_cast<double>(loads) + compute - full) / std::min(loads, compute);
    std::printf("{\"probe\":\"loop_overlap\",\"family\":\"%s\",\"m\":%d,\"n\":%d,\"k\":%d,\"batch\":%d,\"head_dim\":%d,"
                "\"tile_m\":%d,\"tile_n\":%d,\"tile_k\":%d,\"stages\":%d,\"warps\":%d,\"blocks\":%lld,"
                "\"blocks_per_sm\":%d,\"k_tiles\":%d,\"ms_full\":%.5f,\"ms_loads\":%.5f,\"ms_compute\":%.5f,"
                "\"overlap\":%.4f,\"a_tbps_full\":%.4f,\"a_tbps_loads\":%.4f}\n",
                p.family.c_str(), p.m, p.n, p.k, p.batch, p.d, TM, TN, kTK, S, kWM * kWN,
                static_cast<long long>(blocks), per_sm, (p.k + kTK - 1) / kTK, full, loads, compute, overlap,
                static_cast<double>(p.a_elems()) * 2 / (full * 1e9), static_cast<double>(p.a_elems()) * 2 / (loads * 1e9));
    std::fflush(stdout);
    return true;
}

// P V: m = N rows of P, n = min(tile, d), k = N; 2 stages. The tile's n is what the naive
// lowering gives P V (naive_pv_tile: min(tile_n, d)).
template <int TM, int TN>
bool pv(Bufs& b, bool check_only, std::mt19937& rng, std::mt19937_64& seeds, cudaEvent_t e0, cudaEvent_t e1) {
    if (check_only) {
        const Problem p{"pv", 200, TN, 200, 2, TN};  // ragged M and K (200 = 6.25 tiles of 32)
        return run<TM, TN, 2>(b, p, true, rng, seeds, e0, e1);
    }
    for (const int n : {2048, 8192})
        for (const int d : {64, 128}) {
            if (TN > d) continue;
            const int batch = n == 2048 ? (d == 64 ? 256 : 128) : (d == 64 ? 64 : 32);
            if (!run<TM, TN, 2>(b, Problem{"pv", n, d, n, batch, d}, false, rng, seeds, e0, e1)) return false;
        }
    return true;
}

// The GEMM family's kernel: 3 stages, square shapes.
template <int TM, int TN>
bool gemm(Bufs& b, bool check_only, std::mt19937& rng, std::mt19937_64& seeds, cudaEvent_t e0, cudaEvent_t e1) {
    if (check_only) return run<TM, TN, 3>(b, Problem{"gemm", 136, 200, 232, 1, 0}, true, rng, seeds, e0, e1);
    for (const int s : {1024, 2048, 4096})
        if (!run<TM, TN, 3>(b, Problem{"gemm", s, s, s, 1, 0}, false, rng, seeds, e0, e1)) return false;
    return true;
}

// ---- FlashAttention-2 (kernels/attention/flash2/flash2.cuh): the loop issues tile j+1's K/V
// loads before it waits for tile j's (2 stages), then S = Q K^T, the online softmax, O += P V.
// Same three ways: "loads" (Hooks::kMma false: O stored as zeros), "compute" (Hooks::kLoads false:
// both stages filled once, iteration j on K/V tile j % 2).
struct Fa2Bufs {
    __half *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;
    float* lse = nullptr;
    uint64_t seed_q = 0, seed_k = 0, seed_v = 0;
};

template <int BR, int BC, int D, Way W>
auto fa2_kernel_of() {
    using Hooks = std::conditional_t<W == Way::kFull, tilescope::kern::NoHooks,
                                     std::conditional_t<W == Way::kLoads, LoadsOnly, ComputeOnly>>;
    return tilescope::kern::flash2_fwd_kernel<__half, BR, BC, D, Hooks>;
}

template <int BR, int BC, int D>
constexpr int fa2_smem() { return (BR * D + 2 * 2 * BC * D) * 2; }

template <int BR, int BC, int D, Way W>
bool fa2_launch(const Fa2Bufs& b, int n, int bh) {
    auto kern = fa2_kernel_of<BR, BC, D, W>();
    static const bool smem_set =
        cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, fa2_smem<BR, BC, D>()) == cudaSuccess;
    if (!smem_set) {
        std::fprintf(stderr, "%s: cannot give the flash2 %dx%d d=%d kernel %d bytes of shared memory\n", kTool, BR, BC,
                     D, fa2_smem<BR, BC, D>());
        return false;
    }
    const float scale_log2 = 1.0f / std::sqrt(static_cast<float>(D)) * 1.4426950408889634f;
    kern<<<dim3((n + BR - 1) / BR, bh), BR * 2, fa2_smem<BR, BC, D>()>>>(b.q, b.k, b.v, b.o, b.lse, n, n, scale_log2, 0);
    return probe_ok(kTool, "flash2_fwd_kernel");
}

template <int BR, int BC, int D, Way W>
float fa2_median_ms(const Fa2Bufs& b, int n, int bh, cudaEvent_t e0, cudaEvent_t e1) {
    std::vector<float> ms;
    for (int r = 0; r < 6; ++r) {  // the first is the warm-up
        cudaEventRecord(e0);
        if (!fa2_launch<BR, BC, D, W>(b, n, bh)) return -1.f;
        const float t = probe_elapsed_ms(kTool, "flash2_fwd_kernel", e0, e1);
        if (t < 0) return -1.f;
        if (r > 0) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[2];
}

// One way, O poisoned first: "loads" must store exact zeros; the others must match a float64
// softmax(Q K'^T / sqrt(d)) V' on 256 sampled outputs, K' = K and V' = V for the whole kernel, and
// for "compute" the keys and values of tile (c / BC) % 2 in place of column c's.
template <int BR, int BC, int D, Way W>
bool fa2_check(const Fa2Bufs& b, int n, int bh, std::mt19937& rng) {
    const size_t count = static_cast<size_t>(bh) * n * D;
    cudaMemset(b.o, 0xff, count * 2);
    if (!fa2_launch<BR, BC, D, W>(b, n, bh)) return false;
    std::vector<__half> o(count);
    cudaMemcpy(o.data(), b.o, count * 2, cudaMemcpyDeviceToHost);
    if (!probe_ok(kTool, "copy O")) return false;
    const std::string what = "flash2 " + std::to_string(BR) + "x" + std::to_string(BC) + " d=" + std::to_string(D) +
                             " " + way_name(W) + " (N " + std::to_string(n) + ")";
    if constexpr (W == Way::kLoads) return all_zero(o, "O", what);
    std::uniform_int_distribution<size_t> pick(0, count - 1);
    std::vector<double> p(static_cast<size_t>(n));
    for (int t = 0; t < 256; ++t) {
        const size_t at = pick(rng);
        const uint64_t h = at / (static_cast<uint64_t>(n) * D), row = at / D % n, col = at % D;
        const auto key = [&](int c) -> uint64_t {
            return W == Way::kFull ? static_cast<uint64_t>(c) : static_cast<uint64_t>((c / BC) % 2 * BC + c % BC);
        };
        double mx = -1e300;
        for (int c = 0; c < n; ++c) {
            double dot = 0;
            for (int x = 0; x < D; ++x)
                dot += host_value((h * n + row) * D + x, b.seed_q) * host_value((h * n + key(c)) * D + x, b.seed_k);
            p[static_cast<size_t>(c)] = dot / std::sqrt(static_cast<double>(D));
            mx = std::max(mx, p[static_cast<size_t>(c)]);
        }
        double sum = 0, ref = 0;
        for (int c = 0; c < n; ++c) {
            const double e = std::exp(p[static_cast<size_t>(c)] - mx);
            sum += e;
            ref += e * host_value((h * n + key(c)) * D + col, b.seed_v);
        }
        ref /= sum;
        const double got = static_cast<double>(__half2float(o[at]));
        // fp16 P and O: a few ulps of a value in [-1, 1].
        const double tol = 4e-3 + std::fabs(ref) / 256;
        if (!std::isfinite(got) || std::fabs(got - ref) > tol) {
            std::fprintf(stderr, "%s: %s: O[%zu] = %.6g, float64 reference %.6g (tolerance %.3g)\n", kTool, what.c_str(),
                         at, got, ref, tol);
            return false;
        }
    }
    return true;
}

template <int BR, int BC, int D>
bool fa2(Fa2Bufs& b, bool check_only, std::mt19937& rng, std::mt19937_64& seeds, cudaEvent_t e0, cudaEvent_t e1,
         int sms) {
    const auto fill_all = [&](int n, int bh) {
        b.seed_q = seeds();
        b.seed_k = seeds();
        b.seed_v = seeds();
        const uint64_t e = static_cast<uint64_t>(bh) * n * D;
        fill<<<2048, 256>>>(b.q, e, b.seed_q);
        fill<<<2048, 256>>>(b.k, e, b.seed_k);
        fill<<<2048, 256>>>(b.v, e, b.seed_v);
        cudaDeviceSynchronize();
        return probe_ok(kTool, "fill");
    };
    if (check_only) {  // 4 tiles of keys (the compute way's cyclic pair twice), 2 slices
        const int n = 4 * std::max(BR, BC);
        return fill_all(n, 2) && fa2_check<BR, BC, D, Way::kFull>(b, n, 2, rng) &&
               fa2_check<BR, BC, D, Way::kLoads>(b, n, 2, rng) && fa2_check<BR, BC, D, Way::kCompute>(b, n, 2, rng);
    }
    for (const int n : {512, 2048}) {
        const int bh = (n == 512 ? 512 : 128) * (D == 64 ? 2 : 1);  // the data set's b x h at N = 512 and 2048
        if (!fill_all(n, bh) || !fa2_check<BR, BC, D, Way::kFull>(b, n, bh, rng)) return false;
        const float full = fa2_median_ms<BR, BC, D, Way::kFull>(b, n, bh, e0, e1);
        const float loads = fa2_median_ms<BR, BC, D, Way::kLoads>(b, n, bh, e0, e1);
        const float compute = fa2_median_ms<BR, BC, D, Way::kCompute>(b, n, bh, e0, e1);
        if (full < 0 || loads < 0 || compute < 0) return false;
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fa2_kernel_of<BR, BC, D, Way::kFull>(), BR * 2,
                                                      fa2_smem<BR, BC, D>());
        const int64_t blocks = static_cast<int64_t>((n + BR - 1) / BR) * bh;
        const double overlap = (static_cast<double>(loads) + compute - full) / std::min(loads, compute);
        std::printf("{\"probe\":\"loop_overlap\",\"family\":\"flash2\",\"m\":%d,\"n\":%d,\"k\":%d,\"batch\":%d,\"head_dim\":%d,"
                    "\"tile_m\":%d,\"tile_n\":%d,\"tile_k\":0,\"stages\":2,\"warps\":%d,\"blocks\":%lld,"
                    "\"blocks_per_sm\":%d,\"k_tiles\":%d,\"ms_full\":%.5f,\"ms_loads\":%.5f,\"ms_compute\":%.5f,"
                    "\"overlap\":%.4f,\"sms\":%d}\n",
                    n, D, n, bh, D, BR, BC, BR / 16, static_cast<long long>(blocks), per_sm, (n + BC - 1) / BC, full,
                    loads, compute, overlap, sms);
        std::fflush(stdout);
    }
    return true;
}

template <int D>
bool fa2_all(bool check_only, std::mt19937& rng, std::mt19937_64& seeds, cudaEvent_t e0, cudaEvent_t e1, int sms) {
    // Sized for the largest problem: 256 slices of N = 2048 at d = 64, 128 at d = 128 (and 1024 /
    // 512 slices of N = 512): 32 Mi elements per tensor.
    const size_t e = check_only ? size_t{1} << 20 : static_cast<size_t>(1) << 25;
    Fa2Bufs b;
    if (cudaMalloc(&b.q, e * 2) != cudaSuccess || cudaMalloc(&b.k, e * 2) != cudaSuccess ||
        cudaMalloc(&b.v, e * 2) != cudaSuccess || cudaMalloc(&b.o, e * 2) != cudaSuccess ||
        cudaMalloc(&b.lse, e / D * 4 + 4096) != cudaSuccess) {
        std::fprintf(stderr, "%s: cannot allocate the flash2 tensors\n", kTool);
        return false;
    }
    const bool ok = fa2<32, 32, D>(b, check_only, rng, seeds, e0, e1, sms) &&
                    fa2<64, 64, D>(b, check_only, rng, seeds, e0, e1, sms) &&
                    fa2<128, 32, D>(b, check_only, rng, seeds, e0, e1, sms) &&
                    fa2<64, 128, D>(b, check_only, rng, seeds, e0, e1, sms) &&
                    fa2<128, 128, D>(b, check_only, rng, seeds, e0, e1, sms);
    cudaFree(b.q);
    cudaFree(b.k);
    cudaFree(b.v);
    cudaFree(b.o);
    cudaFree(b.lse);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    bool check_only = false;
    if (!probe_check_arg(kTool, argc, argv, &check_only)) return 2;
    const int sms = probe_device(kTool);
    if (sms == 0) return 3;
    const unsigned seed = probe_seed();
    std::mt19937 rng(seed);
    std::mt19937_64 seeds(seed);
    // Sized for the largest problem: P of 64 slices of N = 8192 (8 GiB); V and O of every P V grid
    // (batch x N x d: 32 Mi elements in each), which also hold the GEMM's 4096 x 4096 B and C.
    const size_t a_max = check_only ? size_t{1} << 20 : static_cast<size_t>(64) * 8192 * 8192;
    const size_t b_max = check_only ? size_t{1} << 20 : static_cast<size_t>(256) * 2048 * 64;
    const size_t c_max = b_max;
    Bufs b;
    if (cudaMalloc(&b.a, a_max * 2) != cudaSuccess || cudaMalloc(&b.b, b_max * 2) != cudaSuccess ||
        cudaMalloc(&b.c, c_max * 2) != cudaSuccess) {
        std::fprintf(stderr, "%s: cannot allocate %.1f GB on the device\n", kTool,
                     (static_cast<double>(a_max) + b_max + c_max) * 2 / 1e9);
        return 1;
    }
    cudaEvent_t e0, e1;
    probe_events(&e0, &e1);
    const bool ok = pv<64, 64>(b, check_only, rng, seeds, e0, e1) && pv<128, 64>(b, check_only, rng, seeds, e0, e1) &&
                    pv<64, 128>(b, check_only, rng, seeds, e0, e1) && pv<128, 128>(b, check_only, rng, seeds, e0, e1) &&
                    gemm<64, 64>(b, check_only, rng, seeds, e0, e1) && gemm<64, 128>(b, check_only, rng, seeds, e0, e1) &&
                    gemm<128, 64>(b, check_only, rng, seeds, e0, e1) &&
                    gemm<128, 128>(b, check_only, rng, seeds, e0, e1);
    cudaFree(b.a);
    cudaFree(b.b);
    cudaFree(b.c);
    const bool ok2 = ok && fa2_all<64>(check_only, rng, seeds, e0, e1, sms) && fa2_all<128>(check_only, rng, seeds, e0, e1, sms);
    if (check_only && ok2) std::printf("{\"probe\":\"check\",\"result\":\"pass\"}\n");
    return ok2 ? 0 : 1;
}
