// tilescope-gemm-order-probe: what the GEMM kernel's loop order costs an iteration
// (docs/validation change 55). The GEMM kernel (kernels/gemm/gemm.cuh) waits for its oldest tile
// and a barrier, then issues the next tile's loads; FlashAttention-2's loop issues its next tile,
// then waits. Change 45 found that the GEMM kernel's lone-block iterations wait about 1/64 ns
// longer per byte their tiles load, and FlashAttention-2's about a third of that; this probe runs
// the same GEMM kernel in both orders (gemm_kernel's kIssueFirst) so the difference the order
// makes is measured, not fitted.
//
// Grids as the iteration series (validate/scripts/iteration_series.sh): fp16, 8 warps, every tile
// {64,128} x {64,128} x 32, stages {2, 3}, sms x B blocks (B = 1, 2: one or two blocks per SM
// where they fit), K = 2048 and 8192; first with B row-major (layout nn: the gemm family's), then
// with B stored N x K (layout nt: C = A B^T, naive attention's QK^T, whose B tile rows are 64-byte
// segments as A's are). Per launch the median of 7 timed runs (cudaEvent, after a warm-up); per
// configuration the iteration cost (t(8192) - t(2048)) / 192, which leaves out the launch's fixed
// parts.
//
// Correctness first: A and B are fresh uniform random values in [-1, 1] (the seed is printed);
// for every configuration, on the timed grid at K = 2048 and on a ragged problem (M, N, K not
// multiples of the tile), C is poisoned (NaN) before each order's run, the two orders must give
// the same C bit for bit (same arithmetic, same order), and 256 sampled entries must match a
// float64 CPU reference within fp16 tolerance. Any failure: exit 1.
// Usage: tilescope-gemm-order-probe [--check]   (--check: the correctness checks only, no timing;
// the CTest test gemm_order_probe_check, label gpu). One JSON object per line (the device, the
// seed, launches, then "gemm_order_iteration" summaries). Exit 3 without a GPU.
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

#include "kernels/gemm/gemm.cuh"
#include "kernels/tools/gemm_order_grid.hpp"
#include "kernels/tools/probe_device.cuh"

namespace {

constexpr const char* kTool = "tilescope-gemm-order-probe";
constexpr int kTK = 32, kWM = 2, kWN = 4, kThreads = kWM * kWN * 32;
constexpr int kKShort = 2048, kKLong = 8192;

struct Bufs {
    __half *a = nullptr, *b = nullptr, *c = nullptr, *c2 = nullptr;
    std::vector<__half> ha, hb;  // host copies for the reference
    int lda = 0, ldb = 0;        // A is (max M) x kKLong, B is kKLong x (max N) (nn)
    // nt (B stored N x K: C = A B^T, naive attention's QK^T layout): the same B buffer read as
    // (max N) x kKLong, leading dimension kKLong.
    template <bool NT>
    int b_ld() const { return NT ? kKLong : ldb; }
    template <bool NT>
    double b_at(int kk, int j) const {
        return static_cast<double>(__half2float(NT ? hb[static_cast<size_t>(j) * kKLong + kk]
                                                   : hb[static_cast<size_t>(kk) * ldb + j]));
    }
};

using tilescope::order_probe::grid_shape;

template <int TM, int TN, int S, bool kIssueFirst, bool NT>
bool launch(const Bufs& buf, __half* c, int m, int n, int k, int blocks) {
    auto kern = tilescope::kern::gemm_kernel<__half, TM, TN, kTK, S, kWM, kWN, NT, kIssueFirst>;
    const int smem = S * (TM * kTK + kTK * TN) * 2;
    // Once per instantiation, not inside the timed region (the first runs, committed in
    // bench/results/h200_gemm_order_probe_2026-11-28, set it before every launch: a fixed host
    // cost per launch, which the iteration cost's difference of two lengths leaves out).
    static const bool smem_set =
        cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) == cudaSuccess;
    if (!smem_set) {
        std::fprintf(stderr, "%s: cannot give the %dx%d stages %d kernel %d bytes of shared memory\n", kTool, TM, TN,
                     S, smem);
        return false;
    }
    kern<<<blocks, kThreads, smem>>>(buf.a, buf.b, c, m, n, k, buf.lda, buf.b_ld<NT>(), n, 0, 0, 0, 1.0f, 0);
    return probe_ok(kTool, "gemm_kernel");
}

template <int TM, int TN, int S, bool kIssueFirst, bool NT>
int occupancy() {
    int bps = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &bps, tilescope::kern::gemm_kernel<__half, TM, TN, kTK, S, kWM, kWN, NT, kIssueFirst>, kThreads,
        S * (TM * kTK + kTK * TN) * 2);
    return bps;
}

// Median of 7 timed runs after one warm-up, in ms; negative on a failed launch.
template <int TM, int TN, int S, bool kIssueFirst, bool NT>
float time_launch(const Bufs& buf, int m, int n, int k, int blocks, cudaEvent_t e0, cudaEvent_t e1) {
    if (!launch<TM, TN, S, kIssueFirst, NT>(buf, buf.c, m, n, k, blocks)) return -1.f;
    std::vector<float> ms;
    for (int r = 0; r < 7; ++r) {
        cudaEventRecord(e0);
        launch<TM, TN, S, kIssueFirst, NT>(buf, buf.c, m, n, k, blocks);
        const float t = probe_elapsed_ms(kTool, "gemm_kernel", e0, e1);
        if (t < 0) return -1.f;
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[3];
}

// Both orders on an m x n x k problem: bit-equal C, and sampled entries against float64.
template <int TM, int TN, int S, bool NT>
bool check(const Bufs& buf, int m, int n, int k) {
    const char* layout = NT ? "nt" : "nn";
    const int blocks = ((m + TM - 1) / TM) * ((n + TN - 1) / TN);
    const size_t count = static_cast<size_t>(m) * n;
    cudaMemset(buf.c, 0xff, count * 2);  // fp16 0xffff: NaN
    cudaMemset(buf.c2, 0xff, count * 2);
    if (!launch<TM, TN, S, false, NT>(buf, buf.c, m, n, k, blocks) ||
        !launch<TM, TN, S, true, NT>(buf, buf.c2, m, n, k, blocks))
        return false;
    std::vector<__half> c1(count), c2(count);
    cudaMemcpy(c1.data(), buf.c, count * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(c2.data(), buf.c2, count * 2, cudaMemcpyDeviceToHost);
    if (!probe_ok(kTool, "copy C")) return false;
    for (size_t i = 0; i < count; ++i) {
        uint16_t x, y;
        std::memcpy(&x, &c1[i], 2);
        std::memcpy(&y, &c2[i], 2);
        if (x != y) {
            std::fprintf(stderr, "%s: %s %dx%d stages %d, %dx%dx%d: the two loop orders differ at C[%zu] (%04x vs %04x)\n",
                         kTool, layout, TM, TN, S, m, n, k, i, x, y);
            return false;
        }
    }
    uint64_t state = 0x9e3779b97f4a7c15ull ^ (static_cast<uint64_t>(TM * 1000 + TN * 10 + S) << 20);
    for (int sample = 0; sample < 256; ++sample) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const int i = static_cast<int>((state >> 33) % static_cast<uint64_t>(m));
        const int j = static_cast<int>((state >> 13) % static_cast<uint64_t>(n));
        double ref = 0, mag = 0;
        for (int kk = 0; kk < k; ++kk) {
            const double p =
                static_cast<double>(__half2float(buf.ha[static_cast<size_t>(i) * buf.lda + kk])) * buf.b_at<NT>(kk, j);
            ref += p;
            mag += std::fabs(p);
        }
        const double got = static_cast<double>(__half2float(c1[static_cast<size_t>(i) * n + j]));
        // fp16 output rounding (2^-11 relative) and fp32 accumulation over K terms
        const double tol = std::ldexp(std::fabs(ref), -10) + 1e-5 * mag + 1e-3;
        if (!(std::fabs(got - ref) <= tol)) {
            std::fprintf(stderr, "%s: %s %dx%d stages %d, %dx%dx%d: C[%d,%d] = %.6f, float64 reference %.6f (tolerance %.2g)\n",
                         kTool, layout, TM, TN, S, m, n, k, i, j, got, ref, tol);
            return false;
        }
    }
    return true;
}

template <int TM, int TN, int S, bool NT>
bool run_config(const Bufs& buf, int sms, bool check_only, cudaEvent_t e0, cudaEvent_t e1) {
    const char* layout = NT ? "nt" : "nn";
    if (!check<TM, TN, S, NT>(buf, 3 * TM + 17, 2 * TN + 40, kKShort - 40)) return false;  // ragged
    for (int per_sm : {1, 2}) {
        const int blocks = sms * per_sm;
        int m = 0, n = 0;
        grid_shape(blocks, TM, TN, &m, &n);
        if (!check<TM, TN, S, NT>(buf, m, n, kKShort)) return false;
        if (check_only) continue;
        float iter_ns[2] = {0, 0};
        for (int order = 0; order < 2; ++order) {
            const bool issue_first = order == 1;
            const int bps = issue_first ? occupancy<TM, TN, S, true, NT>() : occupancy<TM, TN, S, false, NT>();
            float t[2];
            for (int ki = 0; ki < 2; ++ki) {
                const int k = ki == 0 ? kKShort : kKLong;
                t[ki] = issue_first ? time_launch<TM, TN, S, true, NT>(buf, m, n, k, blocks, e0, e1)
                                    : time_launch<TM, TN, S, false, NT>(buf, m, n, k, blocks, e0, e1);
                if (t[ki] < 0) return false;
                std::printf("{\"probe\":\"gemm_order\",\"layout\":\"%s\",\"order\":\"%s\",\"tile_m\":%d,\"tile_n\":%d,"
                            "\"tile_k\":%d,\"stages\":%d,\"warps\":8,\"m\":%d,\"n\":%d,\"k\":%d,\"blocks\":%d,"
                            "\"blocks_per_sm\":%d,\"ms\":%.5f}\n",
                            layout, issue_first ? "issue_first" : "wait_first", TM, TN, kTK, S, m, n, k, blocks, bps,
                            t[ki]);
            }
            iter_ns[order] = (t[1] - t[0]) * 1e6f / ((kKLong - kKShort) / kTK);
        }
        std::printf("{\"probe\":\"gemm_order_iteration\",\"layout\":\"%s\",\"tile_m\":%d,\"tile_n\":%d,\"stages\":%d,"
                    "\"warps\":8,\"blocks\":%d,\"tile_bytes\":%d,\"wait_first_ns\":%.1f,\"issue_first_ns\":%.1f,"
                    "\"issue_first_over_wait_first\":%.4f}\n",
                    layout, TM, TN, S, blocks, (TM + TN) * kTK * 2, iter_ns[0], iter_ns[1], iter_ns[1] / iter_ns[0]);
        std::fflush(stdout);
    }
    return true;
}

// Every tile and stage count of the probe in one layout.
template <bool NT>
bool run_layout(const Bufs& buf, int sms, bool check_only, cudaEvent_t e0, cudaEvent_t e1) {
    return run_config<64, 64, 2, NT>(buf, sms, check_only, e0, e1) && run_config<64, 64, 3, NT>(buf, sms, check_only, e0, e1) &&
           run_config<64, 128, 2, NT>(buf, sms, check_only, e0, e1) && run_config<64, 128, 3, NT>(buf, sms, check_only, e0, e1) &&
           run_config<128, 64, 2, NT>(buf, sms, check_only, e0, e1) && run_config<128, 64, 3, NT>(buf, sms, check_only, e0, e1) &&
           run_config<128, 128, 2, NT>(buf, sms, check_only, e0, e1) &&
           run_config<128, 128, 3, NT>(buf, sms, check_only, e0, e1);
}

}  // namespace

int main(int argc, char** argv) {
    const bool check_only = argc > 1 && std::string(argv[1]) == "--check";
    if (argc > 2 || (argc == 2 && !check_only)) {
        std::fprintf(stderr, "usage: %s [--check]\n", kTool);
        return 2;
    }
    const int sms = probe_device(kTool);
    if (sms == 0) return 3;
    Bufs buf;
    int max_m = 3 * 128 + 17, max_n = 2 * 128 + 40;  // the largest m, n any problem below uses
    for (int per_sm : {1, 2}) {
        int m = 0, n = 0;
        grid_shape(sms * per_sm, 128, 128, &m, &n);
        max_m = std::max(max_m, m);
        max_n = std::max(max_n, n);
    }
    buf.lda = kKLong;
    buf.ldb = max_n;
    buf.ha.resize(static_cast<size_t>(max_m) * kKLong);
    buf.hb.resize(static_cast<size_t>(kKLong) * max_n);
    uint64_t state = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
    std::printf("{\"probe\":\"gemm_order_seed\",\"seed\":%llu}\n", static_cast<unsigned long long>(state));
    auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<float>(static_cast<double>(state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    };
    for (auto& x : buf.ha) x = __float2half(next());
    for (auto& x : buf.hb) x = __float2half(next());
    const size_t c_bytes = static_cast<size_t>(max_m) * max_n * 2;
    if (cudaMalloc(&buf.a, buf.ha.size() * 2) != cudaSuccess || cudaMalloc(&buf.b, buf.hb.size() * 2) != cudaSuccess ||
        cudaMalloc(&buf.c, c_bytes) != cudaSuccess || cudaMalloc(&buf.c2, c_bytes) != cudaSuccess) {
        std::fprintf(stderr, "%s: cannot allocate the operands\n", kTool);
        return 1;
    }
    cudaMemcpy(buf.a, buf.ha.data(), buf.ha.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(buf.b, buf.hb.data(), buf.hb.size() * 2, cudaMemcpyHostToDevice);
    cudaEvent_t e0, e1;
    probe_events(&e0, &e1);
    const bool ok = run_layout<false>(buf, sms, check_only, e0, e1) && run_layout<true>(buf, sms, check_only, e0, e1);
    if (ok && check_only) std::printf("{\"probe\":\"gemm_order_check\",\"configurations\":16,\"ok\":true}\n");
    return ok ? 0 : 1;
}
