// tilescope-softmax-timeline-probe: how the softmax kernel's one-, two- and four-warp blocks
// spend their time on the hardware (docs/validation change 72).
//
// The softmax sweeps that the model ranks wrong have the one-warp tile measured 3-31% slower
// than the two-warp tile where the model ties them, both held by its HBM server. Change 68 found
// the model's first wave cycling in lock-step (its processor-sharing servers finish equal jobs
// together), and changes 28, 31, 69 and 71 tried a loaded round trip that would bind the
// one-warp tile's 16 KB per SM in flight. Neither was measured. This probe records, per block
// (one row each, as in the data set), when it starts, when each pass over its row is done (the
// kernel's Hooks, kernels/softmax/softmax.cuh; the kernels the tool runs are unchanged) and when
// it ends, on the SM's own clock (clock64) and the GPU's (%globaltimer), so that a pass's time
// per step (one 16-byte load per thread and its arithmetic: the loaded round trip the model
// needs), the slot turnover between blocks, and whether the blocks of one SM run in step are
// measured, not assumed.
//
// Grids: fp16, online and safe, the training shapes of both data sets whose sweeps the model
// misses (32768 x 2048, 8192 x 8192 and 65536 x 1024), one row per block, 1, 2 and 4 warps.
// Per grid: one warm-up, the median of 5 timed runs of the plain kernel (cudaEvent, the L2
// flushed before each by `tilescope measure`'s own L2 flush), then one run of the recording kernel
// (flushed and timed too, to show what the recording costs). Prints one JSON object per grid
// (cycles converted with the SM clock the run itself shows); with --out DIR it also writes the
// records of the blocks that ran on SMs 0-7 to DIR/<grid>.csv.
//
// Correctness first: x is fresh uniform random values in [-8, 8] (the seed is printed); y is
// poisoned (NaN) before each checked run; the plain and the recording kernel must give the same
// y bit for bit, and sampled rows must match a float64 CPU reference within fp16 tolerance. Any
// failure: exit 1.
// Usage: tilescope-softmax-timeline-probe [--check] [--out DIR]   (--check: the correctness
// checks on small ragged grids of every configuration only, no timing; the CTest test
// softmax_timeline_probe_check, label gpu). Exit 3 without a GPU.
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

#include "kernels/common/fill.hpp"
#include "kernels/softmax/softmax.cuh"
#include "kernels/tools/probe_device.cuh"

namespace {

constexpr const char* kTool = "tilescope-softmax-timeline-probe";
// smid, start clock, pass 1 / 2 / 3 done clocks (the last pass's is the block's end), start ns, end ns
constexpr int kFields = 7;
constexpr unsigned kCsvSms = 8;  // --out: the records of SMs 0-7 only (the summary uses every SM)
constexpr size_t kFlushBytes = size_t{256} << 20;  // larger than the L2 of an H100 (50 MB) or H200 (60 MB)

__device__ unsigned long long* g_record;

// Lane 0 of each warp: the block's start is warp 0's entry; a pass is done when its latest warp
// is (atomicMax); the last pass's point is the block's end (its last warp's last store issued).
// One row per block, so each point is reached once per block.
template <int kLast>
struct Recorder {
    __device__ static void at(int point) {
        if (threadIdx.x % 32 != 0) return;
        unsigned long long* r = g_record + kFields * static_cast<size_t>(blockIdx.x);
        const auto clk = static_cast<unsigned long long>(clock64());
        if (point == 0) {
            if (threadIdx.x == 0) {
                r[0] = probe_smid();
                r[1] = clk;
                r[5] = probe_global_ns();
            }
            return;
        }
        atomicMax(&r[1 + point], clk);
        if (point == kLast) atomicMax(&r[6], probe_global_ns());
    }
};

struct Bufs {
    __half *x = nullptr, *y = nullptr, *y2 = nullptr;
    unsigned long long* rec = nullptr;
    uint4* flush = nullptr;  // kFlushBytes, zeroed once: read before each timed run (L2 flush)
    std::vector<__half> hx;
};

template <int W, bool kOnline, bool kRecord>
bool launch(const Bufs& b, __half* y, int64_t rows, int64_t cols) {
    using Hooks = std::conditional_t<kRecord, Recorder<kOnline ? 2 : 3>, tilescope::kern::NoHooks>;
    tilescope::kern::softmax_kernel<__half, W, kOnline, Hooks>
        <<<static_cast<unsigned>(rows), W * 32>>>(b.x, y, rows, cols, 1, 0);
    return probe_ok(kTool, "softmax_kernel");
}

template <int W, bool kOnline, bool kRecord>
float timed(const Bufs& b, __half* y, int64_t rows, int64_t cols, cudaEvent_t e0, cudaEvent_t e1) {
    // The L2 flush of `tilescope measure`. (A memset of the buffer would leave up to an L2 of
    // dirty lines that the timed kernel then writes back: 9-26% longer softmax runs on the H200
    // in this probe's first run.)
    return probe_flushed_ms(kTool, "softmax_kernel", b.flush, static_cast<long long>(kFlushBytes), e0, e1,
                            [&] { return launch<W, kOnline, kRecord>(b, y, rows, cols); });
}

// The plain and the recording kernel on one grid: bit-equal y, sampled rows against float64.
template <int W, bool kOnline>
bool check(const Bufs& b, int64_t rows, int64_t cols, std::mt19937& rng) {
    const size_t count = static_cast<size_t>(rows * cols);
    cudaMemset(b.y, 0xff, count * 2);  // fp16 0xffff: NaN
    cudaMemset(b.y2, 0xff, count * 2);
    cudaMemset(b.rec, 0, static_cast<size_t>(kFields) * 8 * static_cast<size_t>(rows));
    if (!launch<W, kOnline, false>(b, b.y, rows, cols) || !launch<W, kOnline, true>(b, b.y2, rows, cols)) return false;
    std::vector<__half> y1(count), y2(count);
    cudaMemcpy(y1.data(), b.y, count * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(y2.data(), b.y2, count * 2, cudaMemcpyDeviceToHost);
    if (!probe_ok(kTool, "copy y")) return false;
    const char* var = kOnline ? "online" : "safe";
    if (std::memcmp(y1.data(), y2.data(), count * 2) != 0) {
        std::fprintf(stderr, "%s: %s w%d %lldx%lld: the recording kernel's y differs from the plain kernel's\n", kTool,
                     var, W, static_cast<long long>(rows), static_cast<long long>(cols));
        return false;
    }
    // Every row of a small grid; of a large one the last row and 15 random rows.
    const std::vector<long long> pick = probe_check_rows(rows, 512, 16, rng);
    std::vector<double> e(static_cast<size_t>(cols));
    for (const int64_t r : pick) {
        const __half* xr = &b.hx[static_cast<size_t>(r * cols)];
        double mx = -INFINITY, sum = 0;
        for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, static_cast<double>(__half2float(xr[c])));
        for (int64_t c = 0; c < cols; ++c) sum += e[static_cast<size_t>(c)] = std::exp(static_cast<double>(__half2float(xr[c])) - mx);
        for (int64_t c = 0; c < cols; ++c) {
            const double ref = e[static_cast<size_t>(c)] / sum;
            const double got = static_cast<double>(__half2float(y1[static_cast<size_t>(r * cols + c)]));
            // fp16 output: half an ulp (2^-11 relative) plus __expf's and the fp32 sum's error
            // (a few fp32 ulps per term, relative; the sum has at most a few hundred terms per thread), plus
            // fp16's smallest subnormal step.
            const double tol = ref * (1.0 / 2048 + 2e-4) + 6e-8;
            if (!std::isfinite(got) || std::fabs(got - ref) > tol) {
                std::fprintf(stderr, "%s: %s w%d %lldx%lld: y[%lld, %lld] = %.6g, float64 reference %.6g (tolerance %.3g)\n",
                             kTool, var, W, static_cast<long long>(rows), static_cast<long long>(cols),
                             static_cast<long long>(r), static_cast<long long>(c), got, ref, tol);
                return false;
            }
        }
    }
    return true;
}

struct Block {
    unsigned sm;
    unsigned long long start, pass[3], start_ns, end_ns;
    unsigned long long end(int passes) const { return pass[passes - 1]; }
};

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
}

// What the records say, one JSON object: per block its length and each pass's, and a pass's time
// per step (steps = cols / (warps * 256)); for every block that starts once its SM has ended one,
// the time since the latest end on that SM before its start (the slot turnover: the retired
// block's drain and the next block's launch); how many blocks of its SM are running when a
// block starts; and, for the first wave (the blocks that start before their SM's first end), how
// far apart in time the blocks of one SM finish their first pass: the interquartile range of
// those ends over the median first pass, the median over SMs. Blocks in lock-step give 0;
// blocks spread evenly over a pass give about 0.5.
void summarize(const std::vector<Block>& blocks, int sms, int per_sm, const std::string& name, bool online, int warps,
               int64_t rows, int64_t cols, float ms_plain, float ms_record, const char* out_dir) {
    const int passes = online ? 2 : 3;
    const double steps = static_cast<double>((cols + warps * 256 - 1) / (warps * 256));
    double cyc = 0, ns = 0;
    for (const Block& b : blocks) {
        cyc += static_cast<double>(b.end(passes) - b.start);
        ns += static_cast<double>(b.end_ns - b.start_ns);
    }
    const double ghz = ns > 0 ? cyc / ns : 1.0;
    std::vector<std::vector<Block>> by_sm(static_cast<size_t>(sms));
    for (const Block& b : blocks)
        if (b.sm < static_cast<unsigned>(sms)) by_sm[b.sm].push_back(b);
    std::vector<double> len, pass_us[3], gap, resident, spread, first_len, later_len;
    for (auto& v : by_sm) {
        if (v.empty()) continue;
        std::sort(v.begin(), v.end(), [](const Block& x, const Block& y) { return x.start < y.start; });
        unsigned long long first_end = ~0ull;
        for (const Block& b : v) first_end = std::min(first_end, b.end(passes));
        std::vector<double> p1_ends;
        double p1_sum = 0;
        for (const Block& b : v) {
            const double l = static_cast<double>(b.end(passes) - b.start) / ghz;
            len.push_back(l);
            unsigned long long prev = b.start;
            for (int p = 0; p < passes; ++p) {
                pass_us[p].push_back(static_cast<double>(b.pass[p] - prev) / ghz / 1000);
                prev = b.pass[p];
            }
            if (b.start < first_end) {
                first_len.push_back(l);
                p1_ends.push_back(static_cast<double>(b.pass[0]) / ghz);
                p1_sum += static_cast<double>(b.pass[0] - b.start) / ghz;
            } else {
                later_len.push_back(l);
            }
        }
        if (p1_ends.size() >= 4 && p1_sum > 0) {
            const double p1_mean = p1_sum / static_cast<double>(p1_ends.size());
            spread.push_back((percentile(p1_ends, 0.75) - percentile(p1_ends, 0.25)) / p1_mean);
        }
        std::vector<unsigned long long> ends;
        for (const Block& b : v) ends.push_back(b.end(passes));
        std::sort(ends.begin(), ends.end());
        for (size_t i = 0; i < v.size(); ++i) {
            const auto after = std::upper_bound(ends.begin(), ends.end(), v[i].start);
            if (after != ends.begin()) gap.push_back(static_cast<double>(v[i].start - *(after - 1)) / ghz);
            int running = 1;
            for (size_t j = 0; j < v.size(); ++j)
                if (j != i && v[j].start <= v[i].start && v[j].end(passes) > v[i].start) ++running;
            resident.push_back(running);
        }
    }
    double res_mean = 0;
    for (double r : resident) res_mean += r;
    res_mean /= static_cast<double>(std::max<size_t>(1, resident.size()));
    // Bytes a block must move at least: its row read once and written once (fp16).
    const double min_bytes = 2.0 * 2.0 * static_cast<double>(rows) * static_cast<double>(cols);
    std::printf("{\"probe\":\"softmax_timeline\",\"grid\":\"%s\",\"variant\":\"%s\",\"rows\":%lld,\"cols\":%lld,"
                "\"warps\":%d,\"steps_per_pass\":%.0f,\"blocks\":%zu,\"blocks_per_sm\":%d,\"ms_plain\":%.4f,"
                "\"ms_recording\":%.4f,\"min_bytes_tb_per_s\":%.4f,\"sm_ghz\":%.4f,\"block_us_median\":%.4f,"
                "\"first_wave_block_us_median\":%.4f,\"later_block_us_median\":%.4f,",
                name.c_str(), online ? "online" : "safe", static_cast<long long>(rows), static_cast<long long>(cols),
                warps, steps, blocks.size(), per_sm, ms_plain, ms_record, min_bytes / (ms_plain * 1e-3) / 1e12, ghz,
                percentile(len, 0.5) / 1000, percentile(first_len, 0.5) / 1000, percentile(later_len, 0.5) / 1000);
    for (int p = 0; p < passes; ++p)
        std::printf("\"pass%d_us_median\":%.4f,\"pass%d_step_us_median\":%.4f,\"pass%d_us_p90\":%.4f,", p + 1,
                    percentile(pass_us[p], 0.5), p + 1, percentile(pass_us[p], 0.5) / steps, p + 1,
                    percentile(pass_us[p], 0.9));
    std::printf("\"slot_gap_us_p10\":%.4f,\"slot_gap_us_median\":%.4f,\"slot_gap_us_p90\":%.4f,"
                "\"running_at_start_mean\":%.3f,\"first_wave_pass1_end_iqr_over_pass1\":%.4f}\n",
                percentile(gap, 0.1) / 1000, percentile(gap, 0.5) / 1000, percentile(gap, 0.9) / 1000, res_mean,
                percentile(spread, 0.5));
    if (out_dir) {
        const std::string path = std::string(out_dir) + "/" + name + ".csv";
        if (FILE* f = std::fopen(path.c_str(), "w")) {
            std::fprintf(f, "sm,start_clk,pass1_clk,pass2_clk,pass3_clk,start_ns,end_ns\n");
            for (const Block& b : blocks)
                if (b.sm < kCsvSms)
                    std::fprintf(f, "%u,%llu,%llu,%llu,%llu,%llu,%llu\n", b.sm, b.start, b.pass[0], b.pass[1],
                                 online ? 0ull : b.pass[2], b.start_ns, b.end_ns);
            std::fclose(f);
        } else {
            std::fprintf(stderr, "%s: cannot write %s\n", kTool, path.c_str());
        }
    }
}

template <int W, bool kOnline>
bool run_grid(const Bufs& b, int64_t rows, int64_t cols, int sms, const char* out_dir, std::mt19937& rng,
              cudaEvent_t e0, cudaEvent_t e1) {
    if (!check<W, kOnline>(b, rows, cols, rng)) return false;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tilescope::kern::softmax_kernel<__half, W, kOnline>, W * 32, 0);
    if (timed<W, kOnline, false>(b, b.y, rows, cols, e0, e1) < 0) return false;  // warm-up
    std::vector<float> ms;
    for (int r = 0; r < 5; ++r) {
        const float t = timed<W, kOnline, false>(b, b.y, rows, cols, e0, e1);
        if (t < 0) return false;
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const size_t nblocks = static_cast<size_t>(rows);
    cudaMemset(b.rec, 0, nblocks * kFields * 8);
    const float rec_ms = timed<W, kOnline, true>(b, b.y2, rows, cols, e0, e1);
    if (rec_ms < 0) return false;
    std::vector<unsigned long long> raw(nblocks * kFields);
    cudaMemcpy(raw.data(), b.rec, raw.size() * 8, cudaMemcpyDeviceToHost);
    if (!probe_ok(kTool, "copy records")) return false;
    const int passes = kOnline ? 2 : 3;
    std::vector<Block> blocks(nblocks);
    for (size_t i = 0; i < nblocks; ++i) {
        const unsigned long long* r = &raw[i * kFields];
        blocks[i] = Block{static_cast<unsigned>(r[0]), r[1], {r[2], r[3], r[4]}, r[5], r[6]};
        bool ordered = r[6] >= r[5] && r[2] >= r[1];
        for (int p = 1; p < passes; ++p) ordered = ordered && r[2 + p] >= r[1 + p];
        if (!ordered) {
            std::fprintf(stderr, "%s: block %zu's record is out of order (a block did not record)\n", kTool, i);
            return false;
        }
    }
    const std::string name = std::string("softmax_") + (kOnline ? "online" : "safe") + "_r" + std::to_string(rows) +
                             "_c" + std::to_string(cols) + "_w" + std::to_string(W);
    summarize(blocks, sms, per_sm, name, kOnline, W, rows, cols, ms[2], rec_ms, out_dir);
    return true;
}

template <bool kOnline>
bool variant(const Bufs& b, bool check_only, int sms, const char* out_dir, std::mt19937& rng, cudaEvent_t e0,
             cudaEvent_t e1) {
    if (check_only) {
        // Ragged, small: a row length that is not a multiple of any step, and one under a step.
        for (const int64_t cols : {int64_t{1000}, int64_t{200}}) {
            if (!check<1, kOnline>(b, 300, cols, rng) || !check<2, kOnline>(b, 300, cols, rng) ||
                !check<4, kOnline>(b, 300, cols, rng))
                return false;
        }
        return true;
    }
    // The training shapes of the data sets whose softmax sweeps the model misses.
    const int64_t shapes[3][2] = {{32768, 2048}, {8192, 8192}, {65536, 1024}};
    for (const auto& s : shapes) {
        if (!run_grid<1, kOnline>(b, s[0], s[1], sms, out_dir, rng, e0, e1) ||
            !run_grid<2, kOnline>(b, s[0], s[1], sms, out_dir, rng, e0, e1) ||
            !run_grid<4, kOnline>(b, s[0], s[1], sms, out_dir, rng, e0, e1))
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
    const size_t elems = size_t{1} << 26;  // every grid: rows x cols = 2^26 (128 MiB of fp16)
    Bufs b;
    b.hx.resize(elems);
    std::uniform_real_distribution<float> u(-8.f, 8.f);
    for (size_t i = 0; i < elems; ++i) b.hx[i] = __float2half(u(rng));
    if (cudaMalloc(&b.x, elems * 2) != cudaSuccess || cudaMalloc(&b.y, elems * 2) != cudaSuccess ||
        cudaMalloc(&b.y2, elems * 2) != cudaSuccess || cudaMalloc(&b.rec, size_t{65536} * kFields * 8) != cudaSuccess ||
        cudaMalloc(&b.flush, kFlushBytes) != cudaSuccess) {
        std::fprintf(stderr, "%s: cannot allocate %.2f GB on the device\n", kTool,
                     (6.0 * static_cast<double>(elems) + static_cast<double>(kFlushBytes)) / 1e9);
        return 1;
    }
    cudaMemcpy(b.x, b.hx.data(), elems * 2, cudaMemcpyHostToDevice);
    cudaMemset(b.flush, 0, kFlushBytes);
    cudaMemcpyToSymbol(g_record, &b.rec, sizeof(b.rec));
    if (!probe_ok(kTool, "copy inputs")) return 1;
    cudaEvent_t e0, e1;
    probe_events(&e0, &e1);
    const bool ok = variant<true>(b, check_only, sms, out_dir, rng, e0, e1) &&
                    variant<false>(b, check_only, sms, out_dir, rng, e0, e1);
    if (check_only && ok) std::printf("{\"probe\":\"check\",\"result\":\"pass\"}\n");
    return ok ? 0 : 1;
}
