// sim_bench: speed of the simulator (not a test).
//   1. fused attention flash2, batch 64, heads 16, N = 1024, d = 64 (8,192 blocks at Br = 128),
//      simulated on one thread: wall time, simulated blocks/s, wall time / predicted kernel time.
//   2. a tile sweep of the same workload (Br x Bc x stages x warps x dtype x causal; --configs
//      legal ones spread evenly over the whole grid) on --threads threads: wall and CPU time.
//   3. the cost of Options::phase_budget (coarsening) in accuracy: predicted time with the default
//      budget vs exact (budget 0) for a few tiles, with the wall time of each.
// Usage: sim_bench [--gpu h100-sxm] [--configs 1000] [--threads 2] [--repeat 3] [--accuracy 0|1]
//                  [--phase-budget N]   (parts 1 and 2 and the "default" of part 3 use N; 0 = exact)
#include <algorithm>
#include <array>
#include <ctime>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "core/workload.hpp"
#include "simulator/simulate.hpp"

using namespace tilescope;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

WorkloadSpec base_spec() {
    WorkloadSpec s;
    s.kernel = "attention-flash2";
    s.batch = 64;
    s.heads = 16;
    s.seq = 1024;
    s.head_dim = 64;
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    std::string gpu = "h100-sxm";
    int configs = 1000, threads = 2, repeat = 3, accuracy = 1;
    long long phase_budget = sim::Options{}.phase_budget;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--gpu") gpu = argv[i + 1];
        else if (a == "--configs") configs = std::atoi(argv[i + 1]);
        else if (a == "--threads") threads = std::atoi(argv[i + 1]);
        else if (a == "--repeat") repeat = std::atoi(argv[i + 1]);
        else if (a == "--accuracy") accuracy = std::atoi(argv[i + 1]);
        else if (a == "--phase-budget") phase_budget = std::atoll(argv[i + 1]);
        else {
            std::fprintf(stderr, "unknown flag %s\n", a.c_str());
            return 2;
        }
    }
    auto hw = load_hardware(gpu);
    if (!hw) {
        std::fprintf(stderr, "%s\n", hw.error().message.c_str());
        return 2;
    }

    // 1. One configuration, one thread.
    WorkloadSpec spec = base_spec();
    spec.tile_m = 128;
    spec.tile_n = 64;
    auto w = make_workload(spec);
    if (!w) {
        std::fprintf(stderr, "%s\n", w.error().message.c_str());
        return 2;
    }
    auto launches = lower(*w, *hw);
    if (!launches) {
        std::fprintf(stderr, "%s\n", launches.error().message.c_str());
        return 2;
    }
    for (const bool l2 : {true, false}) {
        double best = 1e300;
        Prediction p;
        for (int r = 0; r < repeat; ++r) {
            sim::Options opt;
            opt.l2 = l2;
            opt.phase_budget = phase_budget;
            const auto t0 = std::chrono::steady_clock::now();
            auto res = sim::simulate(*w, *launches, *hw, opt);
            const double s = seconds_since(t0);
            if (!res) {
                std::fprintf(stderr, "%s\n", res.error().message.c_str());
                return 1;
            }
            best = std::min(best, s);
            p = std::move(res).value();
        }
        std::int64_t blocks = 0;
        for (const Launch& l : *launches) blocks += l.blocks();
        const double kernel_ns = p.total[Metric::gpu_time_duration];
        std::printf("single  %s  l2=%s  blocks=%lld  wall=%.3f s  blocks/s=%.0f  predicted=%.1f us  "
                    "wall/predicted=%.0f  hbm_read=%.0f MB  bound=%s\n",
                    describe(*w).c_str(), l2 ? "on" : "off", static_cast<long long>(blocks), best,
                    static_cast<double>(blocks) / best, kernel_ns * 1e-3, best / (kernel_ns * 1e-9),
                    p.total[Metric::dram_bytes_read] * 1e-6, p.bound.c_str());
    }

    // 2. Tile sweep.
    struct Config {
        Workload w;
        std::vector<Launch> launches;
    };
    std::vector<Config> list;
    const auto t_lower = std::chrono::steady_clock::now();
    for (const char* dtype : {"fp16", "bf16"}) {
        for (const bool causal : {false, true}) {
            for (const int stages : {1, 2, 3, 4}) {
                for (const int warps : {1, 2, 4, 8}) {
                    for (const int br : {16, 32, 64, 128, 256}) {
                        for (const int bc : {16, 32, 64, 128, 256}) {
                            WorkloadSpec s = base_spec();
                            s.dtype = dtype;
                            s.causal = causal;
                            s.stages = stages;
                            s.warps = warps;
                            s.tile_m = br;
                            s.tile_n = bc;
                            auto cw = make_workload(s);
                            if (!cw) continue;
                            auto cl = lower(*cw, *hw);
                            if (!cl) continue;
                            list.push_back(Config{*cw, std::move(cl).value()});
                        }
                    }
                }
            }
        }
    }
    // Spread the requested number evenly over the legal grid (small and large tiles alike).
    if (configs > 0 && static_cast<std::size_t>(configs) < list.size()) {
        std::vector<Config> picked;
        for (std::size_t k = 0; k < static_cast<std::size_t>(configs); ++k) {
            picked.push_back(std::move(list[k * list.size() / static_cast<std::size_t>(configs)]));
        }
        list.swap(picked);
    }
    const double lower_s = seconds_since(t_lower);
    std::atomic<std::size_t> next{0};
    std::atomic<long long> total_blocks{0};
    std::atomic<int> failures{0};
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t cpu0 = std::clock();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
            sim::Options opt;
            opt.timeline = false;
            opt.phase_budget = phase_budget;
            for (std::size_t i = next++; i < list.size(); i = next++) {
                auto r = sim::simulate(list[i].w, list[i].launches, *hw, opt);
                if (!r) ++failures;
                long long b = 0;
                for (const Launch& l : list[i].launches) b += l.blocks();
                total_blocks += b;
            }
        });
    }
    for (auto& th : pool) th.join();
    const double sweep_s = seconds_since(t0);
    const double cpu_s = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    std::printf("sweep   %zu legal configurations (lowering %.2f s)  threads=%d  wall=%.2f s  cpu=%.2f s  "
                "cpu per config=%.1f ms  blocks/s (cpu)=%.0f  failures=%d\n",
                list.size(), lower_s, threads, sweep_s, cpu_s, cpu_s * 1e3 / static_cast<double>(list.size()),
                static_cast<double>(total_blocks.load()) / cpu_s, failures.load());

    // 3. Coarsening error.
    if (accuracy == 0) return failures.load() == 0 ? 0 : 1;
    for (const auto& [br, bc, stages, warps] : std::vector<std::array<int, 4>>{
             {16, 16, 1, 1}, {16, 32, 4, 1}, {32, 32, 2, 2}, {64, 64, 2, 4}, {64, 64, 1, 4}, {128, 64, 2, 8}}) {
        WorkloadSpec cs = base_spec();
        cs.tile_m = br;
        cs.tile_n = bc;
        cs.stages = stages;
        cs.warps = warps;
        auto cw = make_workload(cs);
        if (!cw) continue;
        auto cl = lower(*cw, *hw);
        if (!cl) continue;
        double t[2] = {0, 0}, wall[2] = {0, 0};
        for (int k = 0; k < 2; ++k) {
            sim::Options opt;
            opt.timeline = false;
            opt.phase_budget = k == 1 ? 0 : phase_budget;
            const auto c0 = std::chrono::steady_clock::now();
            auto r = sim::simulate(*cw, *cl, *hw, opt);
            wall[k] = seconds_since(c0);
            if (r) t[k] = r->total[Metric::gpu_time_duration];
        }
        std::printf("coarsen %-20s default %8.1f us (%.2f s)  exact %8.1f us (%.2f s)  error %+.1f%%\n",
                    (std::to_string(br) + "x" + std::to_string(bc) + " s" + std::to_string(stages) + " w" +
                     std::to_string(warps)).c_str(),
                    t[0] * 1e-3, wall[0], t[1] * 1e-3, wall[1], t[1] > 0 ? (t[0] / t[1] - 1) * 100 : 0.0);
    }
    return failures.load() == 0 ? 0 : 1;
}
