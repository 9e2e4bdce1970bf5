// tilescope-warp-slot-probe: on which SM sub-partition (SMSP) the warps of co-resident blocks sit,
// and what one warp's mma.sync chain costs as its sub-partition fills (docs/validation change 97).
//
// The question: the warp model spreads an SM's resident warps evenly over its four sub-partitions
// (k = W / 4 warps each). FlashAttention-2's two-warp tiles at d = 64, three or six blocks per SM,
// run their K/V iterations 12-17% slower than the model says, and the d = 128 two-warp tile that
// runs one block per SM is right. If the hardware placed a block's warps by their index in the
// block (warp i on sub-partition i % 4), two-warp blocks would share two sub-partitions and leave
// two idle, and k would be twice the model's.
//
// For warps per block w in {1, 2, 4, 8} and blocks per SM B in {1, 2, 3, 4, 6, 8} (pinned with
// dynamic shared memory, checked with the occupancy API), it launches B blocks on every SM; the
// blocks wait for each other (a global arrival count, with a timeout) so that they are resident
// together, then every warp runs `iters` iterations of four independent mma.sync m16n8k16 chains
// (fp16 in, fp32 accumulate; FlashAttention-2's QK^T columns are independent like this) timed
// with clock64. Each warp records %smid, %warpid (the sub-partition is %warpid % 4) and its
// cycles. Output, one JSON object per configuration: how many SMs had their warps spread as
// evenly as possible over the four sub-partitions, the most and fewest warps one sub-partition
// held, %warpid of the warps on the first SM, and the median cycles per mma of the warps on
// sub-partitions holding 1, 2, ... warps. No counters; the card's settings are left as they are.
//
// Usage: tilescope-warp-slot-probe [--iters N] [--check]
//   --check: every configuration's blocks all resident together, every warp's accumulators equal to
//            the exact sum (16 per mma element), and every (SM, %warpid) pair unique; exit 1 if not.
// Exit 3 without a GPU, 2 on a bad argument, 1 on a CUDA error or a failed check.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernels/common/ptx.cuh"

namespace {

constexpr int kChains = 4;

__global__ void slot_kernel(int iters, unsigned total_blocks, unsigned* arrived, unsigned* info, long long* cycles,
                            float* result) {
    extern __shared__ unsigned char pin[];  // only its size matters: it pins B blocks per SM
    unsigned smid, warpid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    __shared__ unsigned together;
    if (threadIdx.x == 0) {
        pin[0] = 1;
        atomicAdd(arrived, 1u);
        const long long t = clock64();
        unsigned seen = 0;
        while ((seen = atomicAdd(arrived, 0u)) < total_blocks && clock64() - t < (1LL << 31)) {
        }
        together = seen >= total_blocks ? 1u : 0u;
    }
    __syncthreads();
    // All-ones A and B: every element of every accumulator grows by exactly 16 per mma.
    const uint32_t a[4] = {0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
    const uint32_t b0 = 0x3c003c00u, b1 = 0x3c003c00u;
    float c[kChains][4] = {};
    __syncwarp();
    const long long t0 = clock64();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < kChains; ++j) tilescope::kern::mma16816<__half>(c[j], a, b0, b1);
    }
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < kChains; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
    const long long t1 = clock64() + (s == 1.2345f ? 1 : 0);
    const unsigned gw = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if ((threadIdx.x & 31) == 0) {
        info[3 * gw] = smid;
        info[3 * gw + 1] = warpid;
        info[3 * gw + 2] = together;
        cycles[gw] = t1 - t0;
        result[gw] = s;
    }
}

struct Device {
    int sms = 0;
    int smem_per_sm = 0;
    int smem_optin = 0;
    int reserved = 0;
};

bool ok(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return true;
    std::fprintf(stderr, "tilescope-warp-slot-probe: %s: %s\n", what, cudaGetErrorString(e));
    return false;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// One configuration: 0 = ran and passed, 1 = CUDA error or failed check, 4 = B not reachable.
int run(const Device& d, int warps, int per_sm, int iters, bool check) {
    cudaFuncAttributes attr{};
    if (!ok(cudaFuncGetAttributes(&attr, slot_kernel), "attributes")) return 1;
    const int fixed = d.reserved + static_cast<int>(attr.sharedSizeBytes);  // per block beyond the pin
    int smem = d.smem_per_sm / per_sm - fixed;
    smem = std::min(smem, d.smem_optin - static_cast<int>(attr.sharedSizeBytes)) / 128 * 128;
    if (!ok(cudaFuncSetAttribute(slot_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "smem attribute"))
        return 1;
    int fit = 0;
    if (!ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, slot_kernel, warps * 32, smem), "occupancy")) return 1;
    if (fit != per_sm) {
        std::printf("{\"probe\":\"warp_slot\",\"warps\":%d,\"blocks_per_sm\":%d,\"skipped\":\"occupancy gives %d\"}\n",
                    warps, per_sm, fit);
        return 4;
    }
    const unsigned blocks = static_cast<unsigned>(d.sms * per_sm);
    const unsigned total_warps = blocks * static_cast<unsigned>(warps);
    unsigned *arrived = nullptr, *info = nullptr;
    long long* cycles = nullptr;
    float* result = nullptr;
    if (!ok(cudaMalloc(&arrived, 4), "malloc") || !ok(cudaMalloc(&info, 12ull * total_warps), "malloc") ||
        !ok(cudaMalloc(&cycles, 8ull * total_warps), "malloc") || !ok(cudaMalloc(&result, 4ull * total_warps), "malloc"))
        return 1;
    // Poisoned before the run: a warp that never writes is seen.
    cudaMemset(info, 0xff, 12ull * total_warps);
    cudaMemset(result, 0xff, 4ull * total_warps);
    cudaMemset(arrived, 0, 4);
    slot_kernel<<<blocks, warps * 32, smem>>>(iters, blocks, arrived, info, cycles, result);
    if (!ok(cudaGetLastError(), "launch") || !ok(cudaDeviceSynchronize(), "run")) return 1;
    std::vector<unsigned> h_info(3ull * total_warps);
    std::vector<long long> h_cycles(total_warps);
    std::vector<float> h_result(total_warps);
    cudaMemcpy(h_info.data(), info, 12ull * total_warps, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_cycles.data(), cycles, 8ull * total_warps, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_result.data(), result, 4ull * total_warps, cudaMemcpyDeviceToHost);
    cudaFree(arrived);
    cudaFree(info);
    cudaFree(cycles);
    cudaFree(result);

    const float expected = 16.f * 4.f * kChains * static_cast<float>(iters);
    bool together = true, exact = true, unique = true;
    std::map<unsigned, std::vector<unsigned>> by_sm;  // SM -> %warpid of its warps
    std::set<std::pair<unsigned, unsigned>> seen;
    for (unsigned g = 0; g < total_warps; ++g) {
        together = together && h_info[3 * g + 2] == 1u;
        exact = exact && h_result[g] == expected;
        by_sm[h_info[3 * g]].push_back(h_info[3 * g + 1]);
        unique = unique && seen.insert({h_info[3 * g], h_info[3 * g + 1]}).second;
    }
    const int resident = warps * per_sm;
    const int even_hi = (resident + 3) / 4, even_lo = resident / 4;
    int even_sms = 0, most = 0, fewest = 1 << 30;
    std::map<std::pair<unsigned, unsigned>, int> load;  // (SM, SMSP) -> warps
    for (const auto& [sm, ids] : by_sm) {
        int n[4] = {0, 0, 0, 0};
        for (unsigned w : ids) ++n[w % 4];
        for (int q = 0; q < 4; ++q) load[{sm, static_cast<unsigned>(q)}] = n[q];
        const int hi = *std::max_element(n, n + 4), lo = *std::min_element(n, n + 4);
        even_sms += hi == even_hi && lo == even_lo;
        most = std::max(most, hi);
        fewest = std::min(fewest, lo);
    }
    // Median cycles per mma of the warps whose sub-partition holds n warps.
    std::map<int, std::vector<double>> per_n;
    for (unsigned g = 0; g < total_warps; ++g) {
        const int n = load[{h_info[3 * g], h_info[3 * g + 1] % 4}];
        per_n[n].push_back(static_cast<double>(h_cycles[g]) / (static_cast<double>(iters) * kChains));
    }
    std::string first_sm, cyc;
    const auto& ids0 = by_sm.begin()->second;
    for (std::size_t i = 0; i < ids0.size(); ++i) first_sm += (i ? "," : "") + std::to_string(ids0[i]);
    for (const auto& [n, v] : per_n) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s\"%d\":{\"warps\":%zu,\"cycles_per_mma\":%.2f}", cyc.empty() ? "" : ",", n,
                      v.size(), median(v));
        cyc += buf;
    }
    std::printf("{\"probe\":\"warp_slot\",\"warps\":%d,\"blocks_per_sm\":%d,\"smem_per_block\":%d,\"sms\":%zu,"
                "\"together\":%s,\"exact\":%s,\"unique\":%s,\"even_sms\":%d,\"most_per_smsp\":%d,"
                "\"fewest_per_smsp\":%d,\"even_would_be\":[%d,%d],\"warpids_first_sm\":[%s],"
                "\"by_smsp_load\":{%s}}\n",
                warps, per_sm, smem, by_sm.size(), together ? "true" : "false", exact ? "true" : "false",
                unique ? "true" : "false", even_sms, most, fewest, even_lo, even_hi, first_sm.c_str(), cyc.c_str());
    if (check && !(together && exact && unique && static_cast<int>(by_sm.size()) == d.sms)) {
        std::fprintf(stderr,
                     "tilescope-warp-slot-probe: check failed at %d warps x %d blocks per SM: together %d, exact %d, "
                     "unique %d, SMs seen %zu of %d\n",
                     warps, per_sm, together, exact, unique, by_sm.size(), d.sms);
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    int iters = 4096;
    bool check = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--check")) {
            check = true;
        } else if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = std::atoi(argv[++i]);
            if (iters < 1 || iters > 65536) {
                std::fprintf(stderr, "tilescope-warp-slot-probe: --iters must be in [1, 65536], got %s\n", argv[i]);
                return 2;
            }
        } else {
            std::fprintf(stderr, "tilescope-warp-slot-probe: unknown argument %s (usage: [--iters N] [--check])\n",
                         argv[i]);
            return 2;
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::fprintf(stderr, "tilescope-warp-slot-probe: no GPU\n");
        return 3;
    }
    Device d;
    cudaDeviceProp p{};
    if (!ok(cudaGetDeviceProperties(&p, 0), "properties")) return 1;
    if (p.major < 8) {
        std::fprintf(stderr, "tilescope-warp-slot-probe: needs mma.sync m16n8k16 (sm_80 or newer), got sm_%d%d\n",
                     p.major, p.minor);
        return 3;
    }
    d.sms = p.multiProcessorCount;
    cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
    cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
    cudaDeviceGetAttribute(&d.reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0);
    std::printf("{\"probe\":\"device\",\"name\":\"%s\",\"sms\":%d,\"cc\":\"%d%d\",\"smem_per_sm\":%d,\"iters\":%d}\n",
                p.name, d.sms, p.major, p.minor, d.smem_per_sm, iters);
    int rc = 0;
    for (int warps : {1, 2, 4, 8})
        for (int per_sm : {1, 2, 3, 4, 6, 8}) {
            const int r = run(d, warps, per_sm, check ? 256 : iters, check);
            if (r == 1) rc = 1;
        }
    return rc;
}
