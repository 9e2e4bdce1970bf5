// tilescope-kernel-bench: drives the kernels/ library without the CLI's dependencies (runs on
// the GPU machine with only the CUDA runtime and CUPTI). One JSON object per line on stdout.
//
//   tilescope-kernel-bench run --kernel attention-flash2 --batch 4 --heads 32 --seq 4096
//        --head-dim 64 --tile-m 128 --tile-n 64 [--tile-k 32 --stages 2 --warps 8]
//        [--seq-kv N] [--dtype fp16|bf16] [--causal] [--repeats 20] [--warmup 3] [--no-counters]
//        [--no-flush]   (gemm: --m --n --k --raster; softmax: --rows --cols --variant)
//   tilescope-kernel-bench attention-table [--repeats 10] [--no-counters]
//        naive vs flash2 (all nine tiles) for 16k tokens per batch, hidden 2048, N 512..16384,
//        d 64 and 128, fp16 (the README's comparison)
//   tilescope-kernel-bench microbench      HBM copy, L2, shared memory, latency, tensor peak
//   tilescope-kernel-bench copy-check [--bytes N]   CUPTI dram bytes of a streaming copy vs N
// Exit codes: 0 ok, 1 failure, 2 bad arguments / unsupported workload, 3 no GPU / no permission.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "core/workload.hpp"
#include "kernels/common/fill.hpp"
#include "kernels/measure/cupti_profiler.hpp"
#include "kernels/measure/measure.hpp"
#include "kernels/measure/workload_runner.hpp"
#include "kernels/microbench/microbench.hpp"

using namespace tilescope;

namespace {

struct Args {
    std::vector<std::string> v;
    bool has(const std::string& k) const {
        for (const auto& s : v)
            if (s == k) return true;
        return false;
    }
    std::string get(const std::string& k, const std::string& def) const {
        for (size_t i = 0; i + 1 < v.size(); ++i)
            if (v[i] == k) return v[i + 1];
        return def;
    }
    long long num(const std::string& k, long long def) const {
        const std::string s = get(k, "");
        return s.empty() ? def : std::atoll(s.c_str());
    }
};

std::string jnum(double x) {
    if (!std::isfinite(x)) return "null";
    std::ostringstream os;
    os.precision(10);
    os << x;
    return os.str();
}

const char* family_name(KernelFamily k) {
    switch (k) {
        case KernelFamily::attention_naive: return "attention-naive";
        case KernelFamily::attention_flash1: return "attention-flash1";
        case KernelFamily::attention_flash2: return "attention-flash2";
        case KernelFamily::gemm: return "gemm";
        case KernelFamily::softmax: return "softmax";
    }
    return "?";
}

bool parse_family(const std::string& s, KernelFamily& k) {
    if (s == "attention-naive") k = KernelFamily::attention_naive;
    else if (s == "attention-flash1") k = KernelFamily::attention_flash1;
    else if (s == "attention-flash2") k = KernelFamily::attention_flash2;
    else if (s == "gemm") k = KernelFamily::gemm;
    else if (s == "softmax") k = KernelFamily::softmax;
    else return false;
    return true;
}

Workload attention_workload(KernelFamily k, long long b, long long h, long long n, long long d, int tm, int tn,
                            int tk, int stages, int warps, bool causal, DType dt) {
    Workload w;
    w.kernel = k;
    w.dtype = dt;
    w.batch = b;
    w.heads = h;
    w.seq_q = n;
    w.seq_kv = n;
    w.head_dim = d;
    w.causal = causal;
    w.tile = Tile{tm, tn, tk, stages, warps};
    return w;
}

double attention_flops(const Workload& w) {
    // 4 * B * H * Nq * Nkv * d (QK^T and PV); causal counts the unmasked half (+ diagonal).
    const double full = 4.0 * static_cast<double>(w.batch * w.heads) * static_cast<double>(w.seq_q) *
                        static_cast<double>(w.seq_kv) * static_cast<double>(w.head_dim);
    return w.causal ? full * 0.5 : full;
}

void print_measurement(const Workload& w, const Measurement& m) {
    std::ostringstream os;
    os << "{\"kernel\":\"" << family_name(w.kernel) << "\",\"dtype\":\"" << (w.dtype == DType::bf16 ? "bf16" : "fp16")
       << "\"";
    if (w.kernel == KernelFamily::gemm)
        os << ",\"m\":" << w.m << ",\"n\":" << w.n << ",\"k\":" << w.k;
    else if (w.kernel == KernelFamily::softmax)
        os << ",\"rows\":" << w.rows << ",\"cols\":" << w.cols;
    else
        os << ",\"batch\":" << w.batch << ",\"heads\":" << w.heads << ",\"seq\":" << w.seq_q
           << ",\"head_dim\":" << w.head_dim << ",\"causal\":" << (w.causal ? "true" : "false");
    os << ",\"tile\":[" << w.tile.m << "," << w.tile.n << "," << w.tile.k << "," << w.tile.stages << ","
       << w.tile.warps << "]";
    const double t = m.total[Metric::gpu_time_duration];
    os << ",\"time_ns\":" << jnum(t);
    if (w.kernel != KernelFamily::gemm && w.kernel != KernelFamily::softmax)
        os << ",\"model_tflops\":" << jnum(attention_flops(w) / (t * 1e-9) / 1e12);
    auto it = m.extra.find("extra_device_bytes");
    os << ",\"extra_device_bytes\":" << jnum(it != m.extra.end() ? it->second : NAN);
    os << ",\"launches\":[";
    for (size_t i = 0; i < m.launches.size(); ++i) {
        const LaunchResult& l = m.launches[i];
        os << (i ? "," : "") << "{\"name\":\"" << l.name << "\"";
        for (size_t k = 0; k < kMetricCount; ++k)
            os << ",\"" << kMetricNames[k] << "\":" << jnum(l.metrics.values[k]);
        os << ",\"regs\":" << l.facts.registers_per_thread << ",\"smem_bytes\":" << l.facts.smem_bytes_per_block
           << ",\"threads\":" << l.facts.threads_per_block << ",\"blocks_per_sm\":" << l.facts.blocks_per_sm
           << ",\"waves\":" << l.facts.waves << ",\"limiter\":\"" << l.facts.occupancy_limiter << "\"";
        for (const auto& [k, v] : l.extra) os << ",\"" << k << "\":" << jnum(v);
        os << "}";
    }
    os << "]}";
    std::printf("%s\n", os.str().c_str());
    std::fflush(stdout);
}

int gpu_gate(bool counters) {
    const kern::GpuCheck c = kern::check_gpu(counters);
    if (c.state == kern::GpuState::ok) return 0;
    std::fprintf(stderr, "tilescope-kernel-bench: %s\n", c.message.c_str());
    return c.state == kern::GpuState::error ? 1 : 3;
}

int cmd_run(const Args& a) {
    KernelFamily k{};
    if (!parse_family(a.get("--kernel", "attention-flash2"), k)) {
        std::fprintf(stderr, "tilescope-kernel-bench: unknown --kernel\n");
        return 2;
    }
    const DType dt = a.get("--dtype", "fp16") == "bf16" ? DType::bf16 : DType::fp16;
    Workload w;
    if (k == KernelFamily::gemm) {
        w.kernel = k;
        w.dtype = dt;
        w.m = a.num("--m", 4096);
        w.n = a.num("--n", 4096);
        w.k = a.num("--k", 4096);
        w.raster = a.get("--raster", "row") == "column" ? Raster::column : Raster::row;
        w.tile = Tile{static_cast<int>(a.num("--tile-m", 128)), static_cast<int>(a.num("--tile-n", 128)),
                      static_cast<int>(a.num("--tile-k", 32)), static_cast<int>(a.num("--stages", 3)),
                      static_cast<int>(a.num("--warps", 8))};
    } else if (k == KernelFamily::softmax) {
        w.kernel = k;
        w.dtype = dt;
        w.rows = a.num("--rows", 16384);
        w.cols = a.num("--cols", 4096);
        w.variant = a.get("--variant", "safe") == "online" ? SoftmaxVariant::online : SoftmaxVariant::safe;
        w.tile = Tile{static_cast<int>(a.num("--tile-m", 1)), static_cast<int>(a.num("--tile-n", 1024)), 0, 1,
                      static_cast<int>(a.num("--warps", 4))};
    } else {
        const int tm = static_cast<int>(a.num("--tile-m", 128));
        const bool naive = k == KernelFamily::attention_naive;
        w = attention_workload(k, a.num("--batch", 4), a.num("--heads", 32), a.num("--seq", 4096),
                               a.num("--head-dim", 64), tm, static_cast<int>(a.num("--tile-n", naive ? 128 : 64)),
                               static_cast<int>(a.num("--tile-k", naive ? 32 : 0)),
                               static_cast<int>(a.num("--stages", naive ? 2 : (k == KernelFamily::attention_flash1 ? 1 : 2))),
                               static_cast<int>(a.num("--warps", naive ? 8 : tm / 16)), a.has("--causal"), dt);
        w.seq_kv = a.num("--seq-kv", w.seq_q);
    }
    Status sup = kern::workload_supported(w);
    if (!sup) {
        std::fprintf(stderr, "tilescope-kernel-bench: %s\n", sup.error().message.c_str());
        return 2;
    }
    const bool counters = !a.has("--no-counters");
    if (int g = gpu_gate(counters)) return g;
    kern::MeasureOptions o;
    o.repeats = static_cast<int>(a.num("--repeats", 20));
    o.warmup = static_cast<int>(a.num("--warmup", 3));
    o.flush_l2 = !a.has("--no-flush");
    o.counters = counters;
    auto m = kern::measure(w, o);
    if (!m) {
        std::fprintf(stderr, "tilescope-kernel-bench: %s\n", m.error().message.c_str());
        return 1;
    }
    print_measurement(w, *m);
    return 0;
}

int cmd_attention_table(const Args& a) {
    const bool counters = !a.has("--no-counters");
    if (int g = gpu_gate(counters)) return g;
    kern::MeasureOptions o;
    o.repeats = static_cast<int>(a.num("--repeats", 10));
    o.counters = counters;
    auto meas = kern::Measurer::create(o);
    if (!meas) {
        std::fprintf(stderr, "tilescope-kernel-bench: %s\n", meas.error().message.c_str());
        return 1;
    }
    const long long max_n = a.num("--max-seq", 16384);
    const bool causal = a.has("--causal");
    for (long long d : {64LL, 128LL}) {
        for (long long n = 512; n <= max_n; n *= 2) {
            const long long b = 16384 / n, h = 2048 / d;
            std::vector<Workload> ws;
            ws.push_back(attention_workload(KernelFamily::attention_naive, b, h, n, d, 128, 128, 32, 2, 8, causal,
                                            DType::fp16));
            std::vector<std::pair<int, int>> tiles;
            for (int br : {32, 64, 128})
                for (int bc : {32, 64, 128}) tiles.emplace_back(br, bc);
            for (auto [br, bc] : tiles)
                ws.push_back(attention_workload(KernelFamily::attention_flash2, b, h, n, d, br, bc, 0, 2, br / 16,
                                                causal, DType::fp16));
            if (a.has("--flash1"))
                ws.push_back(attention_workload(KernelFamily::attention_flash1, b, h, n, d, 64, 64, 0, 1, 4, causal,
                                                DType::fp16));
            for (const Workload& w : ws) {
                auto m = (*meas)->measure(w);
                if (!m) {
                    std::fprintf(stderr, "tilescope-kernel-bench: %s\n", m.error().message.c_str());
                    return 1;
                }
                print_measurement(w, *m);
            }
        }
    }
    return 0;
}

int cmd_microbench() {
    if (int g = gpu_gate(false)) return g;
    std::vector<Result<kern::MicrobenchResult>> rs;
    rs.push_back(kern::bench_hbm_copy(1LL << 30, 20));
    rs.push_back(kern::bench_l2_read(16LL << 20, 10));
    rs.push_back(kern::bench_smem_read(10));
    rs.push_back(kern::bench_latency(8LL << 20, 20000));
    rs.push_back(kern::bench_latency(1LL << 30, 20000));
    rs.push_back(kern::bench_tensor_peak(10));
    int rc = 0;
    for (auto& r : rs) {
        if (!r) {
            std::fprintf(stderr, "tilescope-kernel-bench: %s\n", r.error().message.c_str());
            rc = 1;
            continue;
        }
        std::printf("{\"microbench\":\"%s\",\"value\":%s,\"unit\":\"%s\",\"work\":%s,\"time_ns\":%s}\n",
                    r->name.c_str(), jnum(r->value).c_str(), r->unit.c_str(), jnum(r->work).c_str(),
                    jnum(r->time_ns).c_str());
    }
    return rc;
}

// CUPTI check: a streaming copy of X bytes must read X and write X bytes of HBM (within 2%).
int cmd_copy_check(const Args& a) {
    if (int g = gpu_gate(true)) return g;
    const long long bytes = a.num("--bytes", 1LL << 30);
    void* src = nullptr;
    void* dst = nullptr;
    void* flush = nullptr;
    const long long flush_bytes = 256LL << 20;
    if (cudaMalloc(&src, static_cast<size_t>(bytes)) != cudaSuccess ||
        cudaMalloc(&dst, static_cast<size_t>(bytes)) != cudaSuccess ||
        cudaMalloc(&flush, static_cast<size_t>(flush_bytes)) != cudaSuccess) {
        std::fprintf(stderr, "tilescope-kernel-bench: cudaMalloc failed\n");
        return 1;
    }
    Status st = kern::fill_uniform(src, bytes / 2, DType::fp16, 3, -1, 1);
    if (st) st = kern::fill_uniform(flush, flush_bytes / 2, DType::fp16, 4, -1, 1);
    if (st) st = kern::launch_l2_flush(flush, flush_bytes);
    cudaDeviceSynchronize();
    auto prof = kern::RangeProfiler::create({"dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
                                             "gpu__time_duration.sum"},
                                            4);
    if (!st || !prof) {
        std::fprintf(stderr, "tilescope-kernel-bench: %s\n", (!st ? st.error() : prof.error()).message.c_str());
        return 1;
    }
    auto r = (*prof)->profile([&] { return kern::launch_copy(src, dst, bytes, nullptr); });
    if (!r || r->size() != 1) {
        std::fprintf(stderr, "tilescope-kernel-bench: %s\n", r ? "expected one range" : r.error().message.c_str());
        return 1;
    }
    const auto& v = (*r)[0].values;
    const double rd = v[0], wr = v[1];
    const double err_r = std::fabs(rd - static_cast<double>(bytes)) / static_cast<double>(bytes);
    const double err_w = std::fabs(wr - static_cast<double>(bytes)) / static_cast<double>(bytes);
    const bool ok = err_r <= 0.02 && err_w <= 0.02;
    std::printf("{\"copy_check\":\"%s\",\"bytes\":%lld,\"dram__bytes_read.sum\":%s,\"dram__bytes_write.sum\":%s,"
                "\"lts__t_bytes.sum\":%s,\"gpu__time_duration.sum\":%s,\"read_rel_err\":%s,\"write_rel_err\":%s,"
                "\"range\":\"%s\"}\n",
                ok ? "pass" : "FAIL", bytes, jnum(rd).c_str(), jnum(wr).c_str(), jnum(v[2]).c_str(), jnum(v[3]).c_str(),
                jnum(err_r).c_str(), jnum(err_w).c_str(), (*r)[0].name.c_str());
    cudaFree(src);
    cudaFree(dst);
    cudaFree(flush);
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    for (int i = 2; i < argc; ++i) a.v.emplace_back(argv[i]);
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "run") return cmd_run(a);
    if (cmd == "attention-table") return cmd_attention_table(a);
    if (cmd == "microbench") return cmd_microbench();
    if (cmd == "copy-check") return cmd_copy_check(a);
    std::fprintf(stderr, "usage: tilescope-kernel-bench run|attention-table|microbench|copy-check [flags]\n");
    return 2;
}
