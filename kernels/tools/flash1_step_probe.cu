// tilescope-flash1-step-probe: where a FlashAttention-1 warp's inner step spends its time, per
// warp, against the warps that share its SM sub-partition (docs/validation, fifty-sixth session).
//
// The H100 and H200 data sets time the flash1 tiles of two and four warps 6-11% slower than the
// simulator predicts, the eight-warp tiles within 3% (both GPUs, both halves). flash1's inner loop
// is warp-local: each warp loads its own 16 rows of Q_i and O_i (and l_i, m_i) from HBM, waits for
// them, computes S, the softmax and P V, updates O_i and stores it, with no block barrier. Read off
// the data set's times per warp-step, a step looks like max(L + C, k C) (k warps per sub-partition,
// L a round trip, C the warp's own issue time, C growing with the GPU's load), where the simulator
// stretches one warp's work by k^(1 - g) after an exposed round trip. This probe measures the
// pieces: per warp, the clock cycles between the kernel's Hooks points (kernels/attention/flash1:
// the wait for a step's loads, the compute up to the O_i update, the update and the stores, and
// the outer step's K_j/V_j load between its barriers), so that L and C are measured, not inferred,
// and times the kernel without its global stores of O_i, l_i, m_i (Hooks::kStores false), so that
// what the stores cost the loop is measured too.
//
// Grids: fp16, Bc = 64, Br = 32, 64, 128 (2, 4, 8 warps), 16384 tokens per batch: batch 1, 2, 4,
// 8 (N = 16384 / batch), at d = 64 with 32 heads and at d = 128 with 16 heads: the data set's
// flash1 shapes (d = 128 added in the fifty-seventh session, docs/validation change 76, to see
// how the stores' cost grows with the bytes a warp stores). Per grid: one
// warm-up, the median of 5 timed runs of the plain kernel (cudaEvent, the L2 flushed before each
// as `tilescope measure` does), the same for the kernel without stores, then one run of the
// recording kernel (flushed and timed too, to show what the recording costs). Prints one JSON object per grid: per warp the medians of each
// segment per step (ns, with the SM clock the run itself shows) and the warps per sub-partition.
//
// Correctness first: Q, K, V are fresh uniform random values in [-1, 1] (the seed is printed); O
// is poisoned (NaN) before each checked run; the plain and the recording kernel must give the same
// O bit for bit, sampled rows must match a float64 CPU reference within fp16 tolerance, and the
// kernel without stores must leave the poisoned O untouched. Any failure: exit 1.
// Usage: tilescope-flash1-step-probe [--check]   (--check: the correctness checks on a small
// ragged grid of every tile at both head dims only, no timing; the CTest test
// flash1_step_probe_check, label gpu).
// Exit 3 without a GPU.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/attention/flash1/flash1.cuh"
#include "kernels/common/fill.hpp"
#include "kernels/tools/probe_device.cuh"

namespace {

constexpr const char* kTool = "tilescope-flash1-step-probe";
constexpr int kBc = 64;
// Per warp: smid, inner steps, cycles in {gap, outer, wait, compute, store}, start clock, end
// clock, start ns, end ns.
enum Seg { kGap = 0, kOuter = 1, kWait = 2, kCompute = 3, kStore = 4, kSegs = 5 };
constexpr int kFields = 2 + kSegs + 4;
constexpr size_t kFlushBytes = size_t{256} << 20;  // larger than the L2 of an H100 (50 MB) or H200 (60 MB)

__device__ unsigned long long* g_record;

// Lane 0 of each warp adds the cycles since its previous point to the segment that ends at this
// point (1: gap, 2: outer step's barrier + K/V load, 3: gap, 4: wait for the step's loads,
// 5: compute, 6: O_i update and stores, 7: gap) in shared memory, and writes its record at 7.
struct Recorder {
    static constexpr bool kStores = true;
    __device__ static void at(int point) {
        __shared__ unsigned long long last[32], acc[32][kSegs], start_clk[32], start_ns[32];
        __shared__ unsigned steps[32];
        if (threadIdx.x % 32 != 0) return;
        const unsigned w = threadIdx.x / 32;
        const auto c = static_cast<unsigned long long>(clock64());
        if (point == 0) {
            for (int s = 0; s < kSegs; ++s) acc[w][s] = 0;
            steps[w] = 0;
            start_clk[w] = last[w] = c;
            start_ns[w] = probe_global_ns();
            return;
        }
        const int seg = point == 2 ? kOuter : point == 4 ? kWait : point == 5 ? kCompute : point == 6 ? kStore : kGap;
        acc[w][seg] += c - last[w];
        last[w] = c;
        if (point == 4) ++steps[w];
        if (point == 7) {
            unsigned long long* r = g_record + kFields * (static_cast<size_t>(blockIdx.x) * (blockDim.x / 32) + w);
            r[0] = probe_smid();
            r[1] = steps[w];
            for (int s = 0; s < kSegs; ++s) r[2 + s] = acc[w][s];
            r[2 + kSegs] = start_clk[w];
            r[3 + kSegs] = c;
            r[4 + kSegs] = start_ns[w];
            r[5 + kSegs] = probe_global_ns();
        }
    }
};

// The plain kernel without its global stores of O_i, l_i, m_i (Hooks::kStores false).
struct NoStores {
    static constexpr bool kStores = false;
    __device__ static void at(int) {}
};

// Which kernel: the tool's, the recording one, or the one without stores.
enum class Way { plain, record, no_stores };

struct Bufs {
    __half *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *o2 = nullptr;
    float* ws = nullptr;  // l and m
    unsigned long long* rec = nullptr;
    uint4* flush = nullptr;  // kFlushBytes, zeroed once: read before each timed run (L2 flush)
    std::vector<__half> hq, hk, hv;
};

template <int D, int BR>
size_t smem_bytes() {
    return static_cast<size_t>(2 * BR * D + 2 * kBc * D) * sizeof(__half) + 2 * BR * sizeof(float);
}

template <int D, int BR, Way kWay>
auto kernel() {
    using Hooks = std::conditional_t<kWay == Way::record, Recorder,
                                     std::conditional_t<kWay == Way::no_stores, NoStores, tilescope::kern::NoHooks>>;
    return tilescope::kern::flash1_fwd_kernel<__half, BR, kBc, D, Hooks>;
}

template <int D, int BR, Way kWay>
bool launch(const Bufs& b, __half* o, int bh, int n) {
    const auto kern = kernel<D, BR, kWay>();
    const size_t smem = smem_bytes<D, BR>();
    if (smem > 48 * 1024 &&
        cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)) != cudaSuccess)
        return probe_ok(kTool, "cudaFuncSetAttribute");
    const float scale_log2 = 1.0f / std::sqrt(static_cast<float>(D)) * 1.4426950408889634f;
    kern<<<static_cast<unsigned>(bh), BR * 2, smem>>>(b.q, b.k, b.v, o, b.ws, b.ws + static_cast<size_t>(bh) * n, n, n,
                                                      scale_log2, 0);
    return probe_ok(kTool, "flash1_fwd_kernel");
}

template <int D, int BR, Way kWay>
float timed(const Bufs& b, __half* o, int bh, int n, cudaEvent_t e0, cudaEvent_t e1) {
    return probe_flushed_ms(kTool, "flash1_fwd_kernel", b.flush, static_cast<long long>(kFlushBytes), e0, e1,
                            [&] { return launch<D, BR, kWay>(b, o, bh, n); });
}

// The plain and the recording kernel on one grid: bit-equal O, sampled rows against float64.
template <int D, int BR>
bool check(const Bufs& b, int bh, int n, std::mt19937& rng) {
    const size_t count = static_cast<size_t>(bh) * n * D;
    cudaMemset(b.o, 0xff, count * 2);  // fp16 0xffff: NaN
    cudaMemset(b.o2, 0xff, count * 2);
    cudaMemset(b.rec, 0, static_cast<size_t>(bh) * (BR / 16) * kFields * 8);
    if (!launch<D, BR, Way::plain>(b, b.o, bh, n) || !launch<D, BR, Way::record>(b, b.o2, bh, n)) return false;
    std::vector<__half> o1(count), o2(count);
    cudaMemcpy(o1.data(), b.o, count * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(o2.data(), b.o2, count * 2, cudaMemcpyDeviceToHost);
    if (!probe_ok(kTool, "copy O")) return false;
    if (std::memcmp(o1.data(), o2.data(), count * 2) != 0) {
        std::fprintf(stderr, "%s: %dx%d bh %d N %d: the recording kernel's O differs from the plain kernel's\n", kTool, BR,
                     kBc, bh, n);
        return false;
    }
    // The kernel without stores must leave the poisoned O untouched.
    cudaMemset(b.o2, 0xff, count * 2);
    if (!launch<D, BR, Way::no_stores>(b, b.o2, bh, n)) return false;
    cudaMemcpy(o2.data(), b.o2, count * 2, cudaMemcpyDeviceToHost);
    if (!probe_ok(kTool, "copy O")) return false;
    for (size_t i = 0; i < count; ++i) {
        if (__half_as_ushort(o2[i]) != 0xffff) {
            std::fprintf(stderr, "%s: %dx%d bh %d N %d: the kernel without stores wrote O[%zu]\n", kTool, BR, kBc, bh, n, i);
            return false;
        }
    }
    // Every row of a small grid; of a large one the last row of the last head and 11 random rows.
    const std::vector<long long> pick = probe_check_rows(static_cast<long long>(bh) * n, 1024, 12, rng);
    const double scale = 1.0 / std::sqrt(static_cast<double>(D));
    std::vector<double> p(static_cast<size_t>(n));
    for (const int64_t r : pick) {
        const int64_t head = r / n;
        const __half* qr = &b.hq[static_cast<size_t>(r) * D];
        double mx = -INFINITY;
        for (int j = 0; j < n; ++j) {
            const __half* kr = &b.hk[(static_cast<size_t>(head) * n + j) * D];
            double s = 0;
            for (int c = 0; c < D; ++c) s += static_cast<double>(__half2float(qr[c])) * __half2float(kr[c]);
            p[static_cast<size_t>(j)] = s * scale;
            mx = std::max(mx, p[static_cast<size_t>(j)]);
        }
        double sum = 0;
        for (int j = 0; j < n; ++j) sum += p[static_cast<size_t>(j)] = std::exp(p[static_cast<size_t>(j)] - mx);
        // Per row ||O - ref|| / ||ref|| <= 1e-2, the bound the kernel tests use for attention
        // (tests/kernels/test_attention.cpp): fp16 P and an O rounded to fp16 after every outer step.
        double err2 = 0, ref2 = 0;
        bool finite = true;
        for (int c = 0; c < D; ++c) {
            double ref = 0;
            for (int j = 0; j < n; ++j)
                ref += p[static_cast<size_t>(j)] * __half2float(b.hv[(static_cast<size_t>(head) * n + j) * D + c]);
            ref /= sum;
            const double got = static_cast<double>(__half2float(o1[static_cast<size_t>(r) * D + c]));
            finite = finite && std::isfinite(got);
            err2 += (got - ref) * (got - ref);
            ref2 += ref * ref;
        }
        const double rel = std::sqrt(err2 / std::max(ref2, 1e-300));
        if (!finite || rel > 1e-2) {
            std::fprintf(stderr, "%s: %dx%d bh %d N %d: row %lld of O is %.3g from the float64 reference (relative norm; limit 1e-2)%s\n",
                         kTool, BR, kBc, bh, n, static_cast<long long>(r), rel, finite ? "" : ", not finite");
            return false;
        }
    }
    return true;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <int D, int BR>
bool run_grid(const Bufs& b, int batch, int sms, std::mt19937& rng, cudaEvent_t e0, cudaEvent_t e1) {
    constexpr int kWarps = BR / 16;
    // The data set's heads: 32 at d = 64, 16 at d = 128 (batch x heads x N x d = 2^25 either way).
    const int heads = D == 64 ? 32 : 16, n = 16384 / batch, bh = batch * heads;
    if (!check<D, BR>(b, bh, n, rng)) return false;
    int per_sm = 0, per_sm_rec = 0;
    int per_sm_ns = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel<D, BR, Way::plain>(), BR * 2, smem_bytes<D, BR>());
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_rec, kernel<D, BR, Way::record>(), BR * 2, smem_bytes<D, BR>());
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_ns, kernel<D, BR, Way::no_stores>(), BR * 2, smem_bytes<D, BR>());
    if (timed<D, BR, Way::plain>(b, b.o, bh, n, e0, e1) < 0) return false;  // warm-up
    std::vector<double> ms, ms_ns;
    for (int r = 0; r < 5; ++r) {
        const float t = timed<D, BR, Way::plain>(b, b.o, bh, n, e0, e1);
        if (t < 0) return false;
        ms.push_back(t);
    }
    if (timed<D, BR, Way::no_stores>(b, b.o2, bh, n, e0, e1) < 0) return false;  // warm-up
    for (int r = 0; r < 5; ++r) {
        const float t = timed<D, BR, Way::no_stores>(b, b.o2, bh, n, e0, e1);
        if (t < 0) return false;
        ms_ns.push_back(t);
    }
    const size_t nwarps = static_cast<size_t>(bh) * kWarps;
    cudaMemset(b.rec, 0, nwarps * kFields * 8);
    const float rec_ms = timed<D, BR, Way::record>(b, b.o2, bh, n, e0, e1);
    if (rec_ms < 0) return false;
    std::vector<unsigned long long> raw(nwarps * kFields);
    cudaMemcpy(raw.data(), b.rec, raw.size() * 8, cudaMemcpyDeviceToHost);
    if (!probe_ok(kTool, "copy records")) return false;
    // Per warp: each segment per step (per outer step for the outer one), in ns.
    double cyc = 0, ns = 0;
    for (size_t i = 0; i < nwarps; ++i) {
        const unsigned long long* r = &raw[i * kFields];
        if (r[1] == 0 || r[3 + kSegs] < r[2 + kSegs] || r[5 + kSegs] < r[4 + kSegs]) {
            std::fprintf(stderr, "%s: warp %zu's record is empty or out of order (a warp did not record)\n", kTool, i);
            return false;
        }
        cyc += static_cast<double>(r[3 + kSegs] - r[2 + kSegs]);
        ns += static_cast<double>(r[5 + kSegs] - r[4 + kSegs]);
    }
    const double ghz = ns > 0 ? cyc / ns : 1.0;
    const double outer_steps = static_cast<double>((n + kBc - 1) / kBc);
    std::vector<double> seg[kSegs], warp_us, steps;
    std::vector<int> sm_warps(static_cast<size_t>(sms), 0);
    for (size_t i = 0; i < nwarps; ++i) {
        const unsigned long long* r = &raw[i * kFields];
        const double st = static_cast<double>(r[1]);
        for (int s = 0; s < kSegs; ++s)
            seg[s].push_back(static_cast<double>(r[2 + s]) / ghz / (s == kOuter ? outer_steps : st));
        warp_us.push_back(static_cast<double>(r[3 + kSegs] - r[2 + kSegs]) / ghz / 1000);
        steps.push_back(st);
        if (r[0] < static_cast<unsigned long long>(sms)) ++sm_warps[r[0]];
    }
    // Warps per sub-partition while the first (and, here, only) wave runs: the resident blocks of
    // an SM (the occupancy limit, or fewer when the grid is small) times the block's warps, over 4.
    const int resident = std::min(per_sm, (bh + sms - 1) / sms);
    const double k = static_cast<double>(resident * kWarps) / 4.0;
    const double waves = static_cast<double>(bh) / (static_cast<double>(sms) * per_sm);
    std::sort(ms.begin(), ms.end());
    std::sort(ms_ns.begin(), ms_ns.end());
    std::printf("{\"probe\":\"flash1_step\",\"grid\":\"flash1_b%d_h%d_n%d_d%d_%dx%d\",\"batch\":%d,\"heads\":%d,\"seq\":%d,"
                "\"head_dim\":%d,\"tile_m\":%d,\"tile_n\":%d,\"warps\":%d,\"blocks\":%d,\"blocks_per_sm\":%d,\"blocks_per_sm_recording\":%d,"
                "\"blocks_per_sm_no_stores\":%d,\"waves\":%.3f,\"warps_per_subpartition\":%.2f,\"ms_plain\":%.4f,"
                "\"ms_no_stores\":%.4f,\"ms_recording\":%.4f,\"sm_ghz\":%.4f,"
                "\"steps_per_warp\":%.0f,\"warp_us_median\":%.3f,\"step_ns_median\":%.1f,\"wait_ns_per_step\":%.1f,"
                "\"compute_ns_per_step\":%.1f,\"store_ns_per_step\":%.1f,\"gap_ns_per_step\":%.1f,"
                "\"outer_ns_per_outer_step\":%.1f}\n",
                batch, heads, n, D, BR, kBc, batch, heads, n, D, BR, kBc, kWarps, bh, per_sm, per_sm_rec, per_sm_ns, waves, k,
                ms[2], ms_ns[2], rec_ms, ghz, median(steps), median(warp_us), median(warp_us) * 1000 / median(steps), median(seg[kWait]),
                median(seg[kCompute]), median(seg[kStore]), median(seg[kGap]), median(seg[kOuter]));
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    bool check_only = false;
    if (!probe_check_arg(kTool, argc, argv, &check_only)) return 2;
    const int sms = probe_device(kTool);
    if (sms == 0) return 3;
    const unsigned seed = probe_seed();
    std::mt19937 rng(seed);
    const size_t elems = size_t{32} * 16384 * 64;  // every grid: batch x heads x N x d = 2^25
    Bufs b;
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto* h : {&b.hq, &b.hk, &b.hv}) {
        h->resize(elems);
        for (size_t i = 0; i < elems; ++i) (*h)[i] = __float2half(u(rng));
    }
    if (cudaMalloc(&b.q, elems * 2) != cudaSuccess || cudaMalloc(&b.k, elems * 2) != cudaSuccess ||
        cudaMalloc(&b.v, elems * 2) != cudaSuccess || cudaMalloc(&b.o, elems * 2) != cudaSuccess ||
        cudaMalloc(&b.o2, elems * 2) != cudaSuccess || cudaMalloc(&b.ws, size_t{2} * 32 * 16384 * 4) != cudaSuccess ||
        cudaMalloc(&b.rec, size_t{256} * 8 * kFields * 8) != cudaSuccess || cudaMalloc(&b.flush, kFlushBytes) != cudaSuccess) {
        std::fprintf(stderr, "%s: cannot allocate %.2f GB on the device\n", kTool,
                     (10.0 * static_cast<double>(elems) + static_cast<double>(kFlushBytes)) / 1e9);
        return 1;
    }
    cudaMemcpy(b.q, b.hq.data(), elems * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(b.k, b.hk.data(), elems * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(b.v, b.hv.data(), elems * 2, cudaMemcpyHostToDevice);
    cudaMemset(b.flush, 0, kFlushBytes);
    cudaMemcpyToSymbol(g_record, &b.rec, sizeof(b.rec));
    if (!probe_ok(kTool, "copy inputs")) return 1;
    cudaEvent_t e0, e1;
    probe_events(&e0, &e1);
    bool ok = true;
    if (check_only) {
        // Ragged and small: N not a multiple of any tile, two heads.
        ok = check<64, 32>(b, 2, 300, rng) && check<64, 64>(b, 2, 300, rng) && check<64, 128>(b, 2, 300, rng) &&
             check<128, 32>(b, 2, 300, rng) && check<128, 64>(b, 2, 300, rng) && check<128, 128>(b, 2, 300, rng);
        if (ok) std::printf("{\"probe\":\"check\",\"result\":\"pass\"}\n");
        return ok ? 0 : 1;
    }
    for (const int batch : {1, 2, 4, 8}) {
        ok = ok && run_grid<64, 32>(b, batch, sms, rng, e0, e1) && run_grid<64, 64>(b, batch, sms, rng, e0, e1) &&
             run_grid<64, 128>(b, batch, sms, rng, e0, e1);
    }
    for (const int batch : {1, 2, 4, 8}) {
        ok = ok && run_grid<128, 32>(b, batch, sms, rng, e0, e1) && run_grid<128, 64>(b, batch, sms, rng, e0, e1) &&
             run_grid<128, 128>(b, batch, sms, rng, e0, e1);
    }
    return ok ? 0 : 1;
}
