// tilescope-qk-timeline-probe: how naive attention's QK^T blocks share an SM over time
// (docs/validation change 60).
//
// The QK^T launch (the GEMM kernel, B stored N x K, 2 stages, 8 warps, tile_k 32) writes the N x N
// score matrix as mma fragments. Measured on the H100, its time per wave of blocks behaves as a
// per-SM sum, a + S / r (S the scores an SM stores per wave, r about 8.3 B/ns per SM), with a
// near 0.2-0.5 us at d = 64 and 2.0-2.1 us at d = 128 whatever the tile; the model's forms either
// overlap the stores with the next blocks' loads and compute (a = 0) or expose the whole
// pre-store part of a block (far more than a). This probe records, per block, when it starts,
// when its K loop's copies are done (before the epilogue) and when its last warp has issued its
// stores (gemm_kernel's Hooks; the kernels the tool runs are unchanged), on the SM's own clock
// (clock64) and on the GPU's (%globaltimer), so that what happens between a block's last store
// and the next block on its SM, and how the blocks on one SM line up, is measured, not assumed.
//
// Change 61: each grid runs three ways, by where the scores go (`stores` in the JSON): "dram" (the
// tool's launch), "l2" (every slice's scores into one N x N matrix the L2 holds) and "none" (the
// same loads and arithmetic, no stores), so that how much the stores lengthen the blocks' loads
// (the pre-store part), and whether through the L2 or through DRAM, is measured directly.
// Grids: the naive training sweeps' QK^T, N = 2048, batch x heads 256 at d = 64 and 128 at
// d = 128, every tile {64,128} x {64,128}. Per grid and way: one warm-up, the median of 5 timed runs of
// the plain kernel (cudaEvent), then one run of the recording kernel (timed too, to show what the
// recording costs). Prints one JSON object per grid with what it derives per block and per SM
// (cycles converted with the SM clock the run itself shows), and writes the records of the blocks
// that ran on SMs 0-7 to DIR/<grid>.csv when --out DIR is given.
//
// Correctness first: Q and K are fresh uniform random values in [-1, 1] (the seed is printed);
// the scores are poisoned (NaN) before each checked run, the plain and the recording kernel must
// give the same scores bit for bit, and 512 sampled scores must match a float64 CPU reference
// within fp16 tolerance; the no-store kernels (plain and recording) must leave the poisoned
// matrix untouched. ("l2" is timed only: its slices race for one matrix by design.) Any
// failure: exit 1.
// Change 87: the same records for the GEMM family's own launches (the kernel as the tool runs the
// gemm family: B stored K x N, 3 stages, 8 warps, tile_k 32, row raster), "dram" and "none" ways,
// every tile of three training shapes: the short-K m8192 n2048 k512 and m16384 n1024 k1024, where
// change 86 found `sm_share_resident` slowing the 64x64 tile, and m2048 n2048 k2048 for contrast.
// Their JSON lines say "probe":"gemm_timeline" and carry m, n, k instead of head_dim; checked the
// same way (A B against float64 on 512 sampled entries; the no-store kernels leave C poisoned).
// Usage: tilescope-qk-timeline-probe [--check] [--out DIR]   (--check: the correctness checks on
// a small grid of each configuration only, no timing; the CTest test qk_timeline_probe_check,
// label gpu). Exit 3 without a GPU.
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

#include "kernels/gemm/gemm.cuh"
#include "kernels/tools/probe_device.cuh"

namespace {

constexpr const char* kTool = "tilescope-qk-timeline-probe";
constexpr int kTK = 32, kWM = 2, kWN = 4, kThreads = kWM * kWN * 32;

// One grid's problem. QK^T (the kernel's kBN true): batch slices of S = Q K^T, Q and K N x d
// (m = n = N, k = d), the scores N x N per slice, 2 stages. GEMM (kBN false): C = A B, A m x k,
// B k x n row-major, batch 1, 3 stages.
struct Shape {
    int m, n, k, batch;
};
constexpr const char* kind_name(bool bn) { return bn ? "QK^T" : "GEMM"; }
constexpr int kFields = 6;  // smid, start clock, loop-done clock, end clock, start ns, end ns
constexpr unsigned kCsvSms = 8;  // --out: the records of SMs 0-7 only (the summary uses every SM)

__device__ unsigned long long* g_record;

// Lane 0 of each warp: the block's start is warp 0's entry; its loop-done and end points are the
// latest warp's (atomicMax), so a block's end is when its last warp has issued its last store.
struct Recorder {
    static constexpr bool kStores = true;
    __device__ static void at(int point) {
        if (threadIdx.x % 32 != 0) return;
        unsigned long long* r = g_record + kFields * (static_cast<size_t>(blockIdx.y) * gridDim.x + blockIdx.x);
        const auto clk = static_cast<unsigned long long>(clock64());
        if (point == 0) {
            if (threadIdx.x == 0) {
                r[0] = probe_smid();
                r[1] = clk;
                r[4] = probe_global_ns();
            }
        } else if (point == 1) {
            atomicMax(&r[2], clk);
        } else {
            atomicMax(&r[3], clk);
            atomicMax(&r[5], probe_global_ns());
        }
    }
};

struct Bufs {  // QK^T: q, k, scores s; GEMM: A in q, B in k, C in s
    __half *q = nullptr, *k = nullptr, *s = nullptr, *s2 = nullptr;
    unsigned long long* rec = nullptr;
    std::vector<__half> hq, hk;
};

// Where the scores go (docs/validation change 61): kDram, the N x N score matrix of every (batch,
// head) slice, as the tool's QK^T launch (the stores reach the L2 and are written back to DRAM);
// kL2, every slice's scores into the same N x N matrix (batch stride 0: 8 MiB at N = 2048, held
// by the L2, so the stores reach it but almost nothing goes back to DRAM); kNone, no stores
// (gemm_kernel's Hooks::kStores false: the same loads and arithmetic, no store traffic).
enum class Stores { kDram, kL2, kNone };
const char* stores_name(Stores m) { return m == Stores::kDram ? "dram" : m == Stores::kL2 ? "l2" : "none"; }

struct NoStores {
    static constexpr bool kStores = false;
    __device__ static void at(int) {}
};
struct RecorderNoStores : Recorder {
    static constexpr bool kStores = false;
};

template <int TM, int TN, int kStages, bool kBN, bool kRecord, Stores kMode>
bool launch(const Bufs& b, __half* s, const Shape& g) {
    using Plain = std::conditional_t<kMode == Stores::kNone, NoStores, tilescope::kern::NoHooks>;
    using Rec = std::conditional_t<kMode == Stores::kNone, RecorderNoStores, Recorder>;
    using Hooks = std::conditional_t<kRecord, Rec, Plain>;
    auto kern = tilescope::kern::gemm_kernel<__half, TM, TN, kTK, kStages, kWM, kWN, kBN, false, Hooks>;
    const int smem = kStages * (TM * kTK + kTK * TN) * 2;
    static const bool smem_set =
        cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) == cudaSuccess;
    if (!smem_set) {
        std::fprintf(stderr, "%s: cannot give the %dx%d kernel %d bytes of shared memory\n", kTool, TM, TN, smem);
        return false;
    }
    const int tiles = ((g.m + TM - 1) / TM) * ((g.n + TN - 1) / TN);
    const int64_t sa = static_cast<int64_t>(g.m) * g.k, sb = static_cast<int64_t>(g.n) * g.k;
    const int64_t sc = kMode == Stores::kL2 ? 0 : static_cast<int64_t>(g.m) * g.n;
    kern<<<dim3(tiles, g.batch), kThreads, smem>>>(b.q, b.k, s, g.m, g.n, g.k, g.k, kBN ? g.k : g.n, g.n, sa, sb, sc,
                                                   1.0f, 0);
    return probe_ok(kTool, "gemm_kernel");
}

template <int TM, int TN, int kStages, bool kBN, bool kRecord, Stores kMode>
float timed(const Bufs& b, __half* s, const Shape& g, cudaEvent_t e0, cudaEvent_t e1) {
    cudaEventRecord(e0);
    if (!launch<TM, TN, kStages, kBN, kRecord, kMode>(b, s, g)) return -1.f;
    return probe_elapsed_ms(kTool, "gemm_kernel", e0, e1);
}

// The plain and the recording kernel on one grid: bit-equal scores, 512 sampled ones against float64.
template <int TM, int TN, int kStages, bool kBN>
bool check(const Bufs& b, const Shape& g, std::mt19937& rng) {
    const int n = g.n, d = g.k;
    const size_t count = static_cast<size_t>(g.batch) * g.m * g.n;
    cudaMemset(b.s, 0xff, count * 2);  // fp16 0xffff: NaN
    cudaMemset(b.s2, 0xff, count * 2);
    cudaMemset(b.rec, 0, static_cast<size_t>(kFields) * 8 * g.batch * ((g.m + TM - 1) / TM) * ((n + TN - 1) / TN));
    if (!launch<TM, TN, kStages, kBN, false, Stores::kDram>(b, b.s, g) ||
        !launch<TM, TN, kStages, kBN, true, Stores::kDram>(b, b.s2, g))
        return false;
    std::vector<__half> s1(count), s2(count);
    cudaMemcpy(s1.data(), b.s, count * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(s2.data(), b.s2, count * 2, cudaMemcpyDeviceToHost);
    if (!probe_ok(kTool, "copy S")) return false;
    // The no-store kernels, plain and recording, must leave a poisoned matrix as it was.
    std::vector<__half> quiet(count);
    for (const bool rec : {false, true}) {
        cudaMemset(b.s2, 0xff, count * 2);
        if (!(rec ? launch<TM, TN, kStages, kBN, true, Stores::kNone>(b, b.s2, g)
                  : launch<TM, TN, kStages, kBN, false, Stores::kNone>(b, b.s2, g)))
            return false;
        cudaMemcpy(quiet.data(), b.s2, count * 2, cudaMemcpyDeviceToHost);
        if (!probe_ok(kTool, "copy S")) return false;
        for (size_t i = 0; i < count; ++i) {
            uint16_t bits;
            std::memcpy(&bits, &quiet[i], 2);
            if (bits != 0xffff) {
                std::fprintf(stderr, "%s: %s %dx%d k=%d: the %s no-store kernel wrote C[%zu]\n", kTool,
                             kind_name(kBN), TM, TN, d, rec ? "recording" : "plain", i);
                return false;
            }
        }
    }
    if (std::memcmp(s1.data(), s2.data(), count * 2) != 0) {
        std::fprintf(stderr, "%s: %s %dx%d k=%d: the recording kernel's output differs from the plain kernel's\n",
                     kTool, kind_name(kBN), TM, TN, d);
        return false;
    }
    std::uniform_int_distribution<size_t> pick(0, count - 1);
    for (int i = 0; i < 512; ++i) {
        const size_t at = pick(rng);
        const size_t bh = at / (static_cast<size_t>(g.m) * n), row = at / n % g.m, col = at % n;
        double ref = 0, mag = 0;
        for (int x = 0; x < d; ++x) {
            // QK^T: K row col; GEMM: B (k x n row-major) column col.
            const size_t bi = kBN ? (bh * n + col) * d + x : (bh * d + x) * n + col;
            const double p = static_cast<double>(__half2float(b.hq[(bh * g.m + row) * d + x])) *
                             static_cast<double>(__half2float(b.hk[bi]));
            ref += p;
            mag += std::fabs(p);
        }
        const double got = static_cast<double>(__half2float(s1[at]));
        // fp16 output: half an ulp of the result (2^-11 relative) plus fp32 accumulation of d terms.
        const double tol = std::fabs(ref) * 1.0 / 1024 + mag * d * 1.2e-7 + 1e-3;
        if (!std::isfinite(got) || std::fabs(got - ref) > tol) {
            std::fprintf(stderr, "%s: %s %dx%d k=%d: C[%zu] = %.6g, float64 reference %.6g (tolerance %.3g)\n",
                         kTool, kind_name(kBN), TM, TN, d, at, got, ref, tol);
            return false;
        }
    }
    return true;
}

struct Block {
    unsigned sm;
    unsigned long long start, loop, end, start_ns, end_ns;
};

// What the records say, printed as one JSON object: per block the pre-store part (start to the
// loop's last copy) and the epilogue (to the last warp's last store); for every block that starts
// once the SM has ended one, the time since the latest end on its SM before its start (a slot
// frees when the block that held it has drained its stores and retired: the drain and the block
// launch); how many blocks of the SM are running when a block starts; and how close together the
// blocks of one SM start (the share of starts within 5% of the median block length of another
// start on the same SM).
double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
}

void summarize(const std::vector<Block>& blocks, int sms, int per_sm, const std::string& name, Stores mode,
               float ms_plain, float ms_record, int tm, int tn, bool qk, const Shape& g, const char* out_dir) {
    // SM clock from the run itself: cycles per ns over every block's span.
    double cyc = 0, ns = 0;
    for (const Block& b : blocks) {
        cyc += static_cast<double>(b.end - b.start);
        ns += static_cast<double>(b.end_ns - b.start_ns);
    }
    const double ghz = ns > 0 ? cyc / ns : 1.0;
    std::vector<std::vector<Block>> by_sm(static_cast<size_t>(sms));
    for (const Block& b : blocks)
        if (b.sm < static_cast<unsigned>(sms)) by_sm[b.sm].push_back(b);
    std::vector<double> pre, epi, len, gap, resident;
    for (auto& v : by_sm) {
        std::sort(v.begin(), v.end(), [](const Block& x, const Block& y) { return x.start < y.start; });
        for (const Block& b : v) {
            pre.push_back(static_cast<double>(b.loop - b.start) / ghz);
            epi.push_back(static_cast<double>(b.end - b.loop) / ghz);
            len.push_back(static_cast<double>(b.end - b.start) / ghz);
        }
    }
    const double len_med = percentile(len, 0.5);
    size_t together = 0, starts = 0;
    for (auto& v : by_sm) {
        std::vector<unsigned long long> ends;
        for (const Block& b : v) ends.push_back(b.end);
        std::sort(ends.begin(), ends.end());
        for (size_t i = 0; i < v.size(); ++i) {
            ++starts;
            const auto after = std::upper_bound(ends.begin(), ends.end(), v[i].start);
            if (after != ends.begin()) gap.push_back(static_cast<double>(v[i].start - *(after - 1)) / ghz);
            int running = 1;
            bool close = false;
            for (size_t j = 0; j < v.size(); ++j) {
                if (j == i) continue;
                if (v[j].start <= v[i].start && v[j].end > v[i].start) ++running;
                const double dt = std::fabs(static_cast<double>(v[j].start) - static_cast<double>(v[i].start)) / ghz;
                if (dt < 0.05 * len_med) close = true;
            }
            resident.push_back(running);
            together += close ? 1 : 0;
        }
    }
    double res_mean = 0;
    for (double r : resident) res_mean += r;
    res_mean /= static_cast<double>(std::max<size_t>(1, resident.size()));
    if (qk)
        std::printf("{\"probe\":\"qk_timeline\",\"grid\":\"%s\",\"stores\":\"%s\",\"tile_m\":%d,\"tile_n\":%d,\"head_dim\":%d,",
                    name.c_str(), stores_name(mode), tm, tn, g.k);
    else
        std::printf("{\"probe\":\"gemm_timeline\",\"grid\":\"%s\",\"stores\":\"%s\",\"tile_m\":%d,\"tile_n\":%d,\"m\":%d,"
                    "\"n\":%d,\"k\":%d,",
                    name.c_str(), stores_name(mode), tm, tn, g.m, g.n, g.k);
    std::printf("\"blocks\":%zu,\"blocks_per_sm\":%d,\"ms_plain\":%.4f,\"ms_recording\":%.4f,\"sm_ghz\":%.4f,"
                "\"pre_us_median\":%.4f,\"epilogue_us_median\":%.4f,\"block_us_median\":%.4f,"
                "\"slot_gap_us_p10\":%.4f,\"slot_gap_us_median\":%.4f,\"slot_gap_us_p90\":%.4f,"
                "\"running_at_start_mean\":%.3f,\"starts_together_share\":%.4f}\n",
                blocks.size(), per_sm, ms_plain, ms_record, ghz, percentile(pre, 0.5) / 1000,
                percentile(epi, 0.5) / 1000, len_med / 1000, percentile(gap, 0.1) / 1000, percentile(gap, 0.5) / 1000,
                percentile(gap, 0.9) / 1000, res_mean,
                static_cast<double>(together) / static_cast<double>(std::max<size_t>(1, starts)));
    if (out_dir) {
        const std::string path = std::string(out_dir) + "/" + name + ".csv";
        if (FILE* f = std::fopen(path.c_str(), "w")) {
            std::fprintf(f, "sm,start_clk,loop_clk,end_clk,start_ns,end_ns\n");
            for (const Block& b : blocks)
                if (b.sm < kCsvSms)
                    std::fprintf(f, "%u,%llu,%llu,%llu,%llu,%llu\n", b.sm, b.start, b.loop, b.end, b.start_ns, b.end_ns);
            std::fclose(f);
        } else {
            std::fprintf(stderr, "%s: cannot write %s\n", kTool, path.c_str());
        }
    }
}

template <int TM, int TN, int kStages, bool kBN, Stores kMode>
bool run_grid(const Bufs& b, const Shape& g, int sms, const char* out_dir, cudaEvent_t e0, cudaEvent_t e1) {
    const int tiles = ((g.m + TM - 1) / TM) * ((g.n + TN - 1) / TN);
    const size_t nblocks = static_cast<size_t>(tiles) * g.batch;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, tilescope::kern::gemm_kernel<__half, TM, TN, kTK, kStages, kWM, kWN, kBN, false>, kThreads,
        kStages * (TM * kTK + kTK * TN) * 2);
    if (timed<TM, TN, kStages, kBN, false, kMode>(b, b.s, g, e0, e1) < 0) return false;  // warm-up
    std::vector<float> ms;
    for (int r = 0; r < 5; ++r) {
        const float t = timed<TM, TN, kStages, kBN, false, kMode>(b, b.s, g, e0, e1);
        if (t < 0) return false;
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    cudaMemset(b.rec, 0, nblocks * kFields * 8);
    const float rec_ms = timed<TM, TN, kStages, kBN, true, kMode>(b, b.s2, g, e0, e1);
    if (rec_ms < 0) return false;
    std::vector<unsigned long long> raw(nblocks * kFields);
    cudaMemcpy(raw.data(), b.rec, raw.size() * 8, cudaMemcpyDeviceToHost);
    if (!probe_ok(kTool, "copy records")) return false;
    std::vector<Block> blocks(nblocks);
    for (size_t i = 0; i < nblocks; ++i) {
        const unsigned long long* r = &raw[i * kFields];
        blocks[i] = Block{static_cast<unsigned>(r[0]), r[1], r[2], r[3], r[4], r[5]};
        if (r[3] < r[2] || r[2] < r[1] || r[5] < r[4]) {
            std::fprintf(stderr, "%s: block %zu's record is out of order (a block did not record)\n", kTool, i);
            return false;
        }
    }
    const std::string tile = std::to_string(TM) + "x" + std::to_string(TN);
    const std::string way = kMode == Stores::kDram ? "" : std::string("_stores-") + stores_name(kMode);
    const std::string name = kBN ? "qk_n" + std::to_string(g.n) + "_d" + std::to_string(g.k) + "_bh" +
                                        std::to_string(g.batch) + "_" + tile + way
                                  : "gemm_m" + std::to_string(g.m) + "_n" + std::to_string(g.n) + "_k" +
                                        std::to_string(g.k) + "_" + tile + way;
    summarize(blocks, sms, per_sm, name, kMode, ms[2], rec_ms, TM, TN, kBN, g, out_dir);
    return true;
}

// QK^T at one tile: N = 2048, d = 64 and 128, three ways.
template <int TM, int TN>
bool config(const Bufs& b, bool check_only, int sms, const char* out_dir, std::mt19937& rng, cudaEvent_t e0,
            cudaEvent_t e1) {
    for (const int d : {64, 128}) {
        if (check_only) {
            // A ragged, small problem: N not a multiple of the tile, two (batch, head) slices.
            if (!check<TM, TN, 2, true>(b, Shape{200, 200, d, 2}, rng)) return false;
            continue;
        }
        const int batch = d == 64 ? 256 : 128;  // b8 h32 and b8 h16, N = 2048: the training sweeps
        if (!check<TM, TN, 2, true>(b, Shape{256, 256, d, 2}, rng)) return false;
        const Shape g{2048, 2048, d, batch};
        if (!run_grid<TM, TN, 2, true, Stores::kDram>(b, g, sms, out_dir, e0, e1) ||
            !run_grid<TM, TN, 2, true, Stores::kL2>(b, g, sms, out_dir, e0, e1) ||
            !run_grid<TM, TN, 2, true, Stores::kNone>(b, g, sms, out_dir, e0, e1))
            return false;
    }
    return true;
}

// The GEMM family's kernel at one tile (3 stages, B k x n): three training shapes, two ways.
template <int TM, int TN>
bool gemm_config(const Bufs& b, bool check_only, int sms, const char* out_dir, std::mt19937& rng, cudaEvent_t e0,
                 cudaEvent_t e1) {
    // Ragged and small: M, N not multiples of the tile, K not of tile_k (K and N multiples of 8).
    if (!check<TM, TN, 3, false>(b, Shape{200, 136, 104, 1}, rng)) return false;
    if (check_only) return true;
    for (const Shape g : {Shape{8192, 2048, 512, 1}, Shape{16384, 1024, 1024, 1},
                          Shape{2048, 2048, 2048, 1}}) {
        if (!run_grid<TM, TN, 3, false, Stores::kDram>(b, g, sms, out_dir, e0, e1) ||
            !run_grid<TM, TN, 3, false, Stores::kNone>(b, g, sms, out_dir, e0, e1))
            return false;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    bool check_only = false;
    const char* out_dir = nullptr;
    if (!probe_check_out_args(kTool, argc, argv, &check_only, &out_dir)) return 2;
    const int sms = probe_device(kTool);
    if (sms == 0) return 3;
    const unsigned seed = probe_seed();
    std::mt19937 rng(seed);
    // Sized for the largest grid: 256 (batch, head) slices of N = 2048 at d = 64 (d = 128 has 128).
    const size_t qk = static_cast<size_t>(256) * 2048 * 64, scores = static_cast<size_t>(256) * 2048 * 2048;
    const size_t max_blocks = static_cast<size_t>(256) * 32 * 32;
    Bufs b;
    b.hq.resize(qk);
    b.hk.resize(qk);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (size_t i = 0; i < qk; ++i) {
        b.hq[i] = __float2half(u(rng));
        b.hk[i] = __float2half(u(rng));
    }
    if (cudaMalloc(&b.q, qk * 2) != cudaSuccess || cudaMalloc(&b.k, qk * 2) != cudaSuccess ||
        cudaMalloc(&b.s, scores * 2) != cudaSuccess || cudaMalloc(&b.s2, scores * 2) != cudaSuccess ||
        cudaMalloc(&b.rec, max_blocks * kFields * 8) != cudaSuccess) {
        std::fprintf(stderr, "%s: cannot allocate %.1f GB on the device\n", kTool, (2.0 * qk + 2.0 * scores) * 2 / 1e9);
        return 1;
    }
    cudaMemcpy(b.q, b.hq.data(), qk * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(b.k, b.hk.data(), qk * 2, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(g_record, &b.rec, sizeof(b.rec));
    if (!probe_ok(kTool, "copy inputs")) return 1;
    cudaEvent_t e0, e1;
    probe_events(&e0, &e1);
    const bool ok = config<64, 64>(b, check_only, sms, out_dir, rng, e0, e1) &&
                    config<64, 128>(b, check_only, sms, out_dir, rng, e0, e1) &&
                    config<128, 64>(b, check_only, sms, out_dir, rng, e0, e1) &&
                    config<128, 128>(b, check_only, sms, out_dir, rng, e0, e1) &&
                    gemm_config<64, 64>(b, check_only, sms, out_dir, rng, e0, e1) &&
                    gemm_config<64, 128>(b, check_only, sms, out_dir, rng, e0, e1) &&
                    gemm_config<128, 64>(b, check_only, sms, out_dir, rng, e0, e1) &&
                    gemm_config<128, 128>(b, check_only, sms, out_dir, rng, e0, e1);
    if (check_only && ok) std::printf("{\"probe\":\"check\",\"result\":\"pass\"}\n");
    return ok ? 0 : 1;
}
