// Hand-worked cases: waves and the tail, determinism, fair sharing of HBM bandwidth.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;
using tilescope::test::make_simple_launch;
using tilescope::test::SimpleLaunch;

namespace {

using test::run;

}  // namespace

TEST_CASE("133 blocks at one block per SM on 132 SMs: two waves, tail of one block", "[sim][waves]") {
    const Hardware hw = test::test_gpu();
    SimpleLaunch s;
    s.blocks = 133;
    s.threads = 1024;  // 1024 threads x 64 registers = the whole register file: 1 block / SM
    s.regs = 64;
    s.fp32_flops = 1e6;  // pure compute: every block takes the same time
    s.iterations = 4;
    const Prediction p = run({make_simple_launch(s)}, hw);
    REQUIRE(p.launches.size() == 1);
    const LaunchResult& l = p.launches[0];
    CHECK(l.facts.blocks_per_sm == 1);
    CHECK(l.facts.waves == 2);
    REQUIRE(l.timeline.size() == 133);
    // Per-SM FP32 rate = 67e12 / 132 flop/s; 4 iterations of 1e6 flop each.
    const double block_ns = 4e6 / (67e12 / 132) * 1e9;
    double first_end = 1e300;
    for (const BlockSpan& b : l.timeline) {
        if (b.block < 132) {
            CHECK(b.wave == 0);
            CHECK(b.start_ns == 0.0);
            CHECK(b.sm == static_cast<int>(b.block));
            CHECK(b.end_ns == Approx(block_ns).epsilon(1e-9));
            first_end = std::min(first_end, b.end_ns);
        }
    }
    const BlockSpan& tail = l.timeline[132];
    CHECK(tail.block == 132);
    CHECK(tail.wave == 1);
    CHECK(tail.start_ns == first_end);  // starts exactly when the first block finishes
    CHECK(tail.end_ns == Approx(2 * block_ns).epsilon(1e-9));
    CHECK(l.metrics[Metric::gpu_time_duration] == Approx(2 * block_ns).epsilon(1e-9));
    CHECK(l.bound == "fp32");
}

TEST_CASE("two blocks per SM share the SM's pipes", "[sim][waves]") {
    const Hardware hw = test::test_gpu();
    SimpleLaunch s;
    s.blocks = 264;
    s.threads = 512;
    s.regs = 64;  // 2 blocks per SM by registers
    s.fp32_flops = 1e6;
    const Prediction p = run({make_simple_launch(s)}, hw);
    const LaunchResult& l = p.launches[0];
    CHECK(l.facts.blocks_per_sm == 2);
    CHECK(l.facts.waves == 1);
    const double block_ns = 1e6 / (67e12 / 132) * 1e9;
    // Both blocks of an SM progress at half speed: each takes twice as long.
    CHECK(l.metrics[Metric::gpu_time_duration] == Approx(2 * block_ns).epsilon(1e-9));
    std::set<std::pair<int, int>> used;
    for (const BlockSpan& b : l.timeline) used.insert({b.sm, b.slot});
    CHECK(used.size() == 264);
}

TEST_CASE("simulation is deterministic bit for bit, and every block appears once", "[sim][determinism]") {
    const Hardware hw = test::test_gpu();
    SimpleLaunch s;
    s.blocks = 1000;
    s.threads = 256;
    s.regs = 64;
    s.stages = 2;
    s.iterations = 8;
    s.load_bytes = 16384;
    s.x_bytes = 16384 * 64;  // reused across blocks: exercises L2 hits
    s.same_data = false;
    s.fp32_flops = 3e5;
    s.store_bytes = 4096;
    const std::vector<Launch> launches = {make_simple_launch(s, "a"), make_simple_launch(s, "b")};
    const Prediction p1 = run(launches, hw);
    const Prediction p2 = run(launches, hw);
    REQUIRE(p1.launches.size() == p2.launches.size());
    for (std::size_t i = 0; i < p1.launches.size(); ++i) {
        const LaunchResult& a = p1.launches[i];
        const LaunchResult& b = p2.launches[i];
        CHECK(a.metrics.values == b.metrics.values);
        CHECK(a.extra == b.extra);
        CHECK(a.bound == b.bound);
        REQUIRE(a.timeline.size() == b.timeline.size());
        for (std::size_t k = 0; k < a.timeline.size(); ++k) {
            CHECK(a.timeline[k].block == b.timeline[k].block);
            CHECK(a.timeline[k].sm == b.timeline[k].sm);
            CHECK(a.timeline[k].slot == b.timeline[k].slot);
            CHECK(a.timeline[k].start_ns == b.timeline[k].start_ns);
            CHECK(a.timeline[k].end_ns == b.timeline[k].end_ns);
            CHECK(a.timeline[k].hbm_bytes == b.timeline[k].hbm_bytes);
        }
        REQUIRE(a.samples.size() == b.samples.size());
        for (std::size_t k = 0; k < a.samples.size(); ++k) {
            CHECK(a.samples[k].hbm_bytes_per_s == b.samples[k].hbm_bytes_per_s);
            CHECK(a.samples[k].bound == b.samples[k].bound);
        }
        // Every block exactly once, sorted by id.
        REQUIRE(a.timeline.size() == 1000);
        for (std::size_t k = 0; k < a.timeline.size(); ++k) CHECK(a.timeline[k].block == static_cast<std::int64_t>(k));
    }
    CHECK(p1.total.values == p2.total.values);
    // The second launch starts where the first ends.
    CHECK(p1.launches[1].start_ns == p1.launches[0].metrics[Metric::gpu_time_duration]);
}

TEST_CASE("memory-bound launch: time ~ bytes / bandwidth, doubling bandwidth halves it", "[sim][sharing]") {
    Hardware hw = test::test_gpu();
    SimpleLaunch s;
    s.blocks = 132 * 4 * 3;  // 3 full waves at 4 blocks / SM
    s.threads = 256;
    s.regs = 64;
    s.stages = 2;
    s.iterations = 16;
    s.load_bytes = 32768;
    s.fp32_flops = 1000;
    const Launch launch = make_simple_launch(s);
    const double bytes = static_cast<double>(s.blocks * s.iterations * s.load_bytes);

    const Prediction p1 = run({launch}, hw, false);
    const double t1 = p1.total[Metric::gpu_time_duration];
    const double ideal1 = bytes / hw.hbm_bandwidth_bytes_per_s * 1e9;
    CHECK(p1.total[Metric::dram_bytes_read] == bytes);
    CHECK(t1 >= ideal1);
    CHECK(t1 < 1.10 * ideal1);  // latency and the ramp cost a few per cent at most
    CHECK(p1.launches[0].bound == "hbm");
    CHECK(p1.extra.at("hbm_bytes_per_s") == Approx(bytes / (t1 * 1e-9)));

    hw.hbm_bandwidth_bytes_per_s *= 2;
    hw.l2_bandwidth_bytes_per_s *= 2;
    hw.calibration.sm_l2_bytes_per_cycle *= 2;
    const Prediction p2 = run({launch}, hw, false);
    const double t2 = p2.total[Metric::gpu_time_duration];
    CHECK(t2 / t1 == Approx(0.5).margin(0.06));

    // Calibrated HBM efficiency 0.5 brings it back.
    hw.calibration.hbm_efficiency = 0.5;
    hw.l2_bandwidth_bytes_per_s /= 2;
    hw.calibration.sm_l2_bytes_per_cycle /= 2;
    const Prediction p3 = run({launch}, hw, false);
    CHECK(p3.total[Metric::gpu_time_duration] == Approx(t1).epsilon(0.02));
}

TEST_CASE("persistent launch: grid = slots, items item = block + k * grid", "[sim][persistent]") {
    const Hardware hw = test::test_gpu();
    SimpleLaunch s;
    s.blocks = 133;
    s.threads = 1024;
    s.regs = 64;
    s.fp32_flops = 1e6;
    Launch l = make_simple_launch(s);
    l.persistent = true;
    l.grid_x = 132;
    l.work_items = 133;
    const Prediction p = run({l}, hw);
    const LaunchResult& r = p.launches[0];
    REQUIRE(r.timeline.size() == 132);  // one span per resident block
    const double item_ns = 1e6 / (67e12 / 132) * 1e9;
    CHECK(r.timeline[0].end_ns == Approx(2 * item_ns).epsilon(1e-9));  // block 0 also runs item 132
    CHECK(r.timeline[1].end_ns == Approx(item_ns).epsilon(1e-9));
    CHECK(r.metrics[Metric::flops_fp32] == Approx(133e6));
}

TEST_CASE("bad inputs are errors, not crashes", "[sim][errors]") {
    Hardware hw = test::test_gpu();
    SimpleLaunch s;
    s.load_bytes = 1024;
    Launch l = make_simple_launch(s);
    sim::Options opt;
    SECTION("region past the end of its buffer") {
        l.buffers[0].bytes = 512;
        auto p = sim::simulate(test::test_workload(), {l}, hw, opt);
        REQUIRE_FALSE(p.ok());
        CHECK(p.error().message.find("past the buffer") != std::string::npos);
        opt.l2 = false;
        auto q = sim::simulate(test::test_workload(), {l}, hw, opt);
        REQUIRE_FALSE(q.ok());
    }
    SECTION("zero HBM bandwidth") {
        hw.hbm_bandwidth_bytes_per_s = 0;
        auto p = sim::simulate(test::test_workload(), {l}, hw, opt);
        REQUIRE_FALSE(p.ok());
        CHECK(p.error().message.find("hbm_bandwidth_bytes_per_s") != std::string::npos);
    }
    SECTION("block too large for the GPU") {
        l.threads_per_block = 4096;
        auto p = sim::simulate(test::test_workload(), {l}, hw, opt);
        REQUIRE_FALSE(p.ok());
    }
}

TEST_CASE("a workload too large to simulate with its L2 is refused with the numbers", "[sim][errors]") {
    const Hardware hw = test::test_gpu();
    SimpleLaunch s;
    s.blocks = 1000;
    s.iterations = 10;
    s.load_bytes = 4096;  // one 4 KiB chunk per load: 10,000 chunk lookups in all
    const Launch l = make_simple_launch(s);
    sim::Options opt;
    opt.max_l2_chunk_accesses = 1000;
    auto refused = sim::simulate(test::test_workload(), {l}, hw, opt);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("L2 chunk lookups (limit 1e+03") != std::string::npos);
    CHECK(refused.error().message.find("--model analytic") != std::string::npos);
    opt.max_l2_chunk_accesses = 1e5;  // above the estimate: runs
    CHECK(sim::simulate(test::test_workload(), {l}, hw, opt).ok());
    opt.max_l2_chunk_accesses = 1000;
    opt.l2 = false;  // no L2 model, no lookups: runs
    CHECK(sim::simulate(test::test_workload(), {l}, hw, opt).ok());
    // Blocks cost the engine time whatever the L2: too many are refused, with or without it.
    opt.max_blocks = 999;
    auto many = sim::simulate(test::test_workload(), {l}, hw, opt);
    REQUIRE_FALSE(many.ok());
    CHECK(many.error().message.find("needs 1e+03 thread blocks or tiles of work (limit 1e+03") != std::string::npos);
    opt.max_blocks = 1000;
    CHECK(sim::simulate(test::test_workload(), {l}, hw, opt).ok());
}

TEST_CASE("coarsening keeps a latency-bound pipelined loop's time: each run pays its iterations' latencies",
          "[sim][coarsen]") {
    // One block per SM, few bytes per iteration: every iteration waits for its loads (HBM
    // misses), so the loop runs at about (latency + compute) / stages per iteration. A run of G
    // coarsened iterations must expose G such periods, not one latency (as before 2026-11-25:
    // about G / stages times too fast).
    const Hardware hw = test::test_gpu();
    for (const int stages : {2, 3}) {
        for (const double flops : {1e3, 2e5}) {
            SimpleLaunch s;
            s.blocks = 132;
            s.threads = 256;
            s.regs = 64;
            s.stages = stages;
            s.iterations = 64;
            s.load_bytes = 4096;  // private data, 34 MiB in all: misses
            s.fp32_flops = flops;
            const Launch l = make_simple_launch(s);
            sim::Options exact;
            exact.phase_budget = 0;
            sim::Options coarse;
            coarse.phase_budget = 132 * 8;  // 8 iterations per phase
            auto a = sim::simulate(test::test_workload(), {l}, hw, exact);
            auto b = sim::simulate(test::test_workload(), {l}, hw, coarse);
            REQUIRE(a.ok());
            REQUIRE(b.ok());
            INFO("stages " << stages << ", fp32 flops per iteration " << flops);
            CHECK(b->launches[0].extra.at("sim_iterations_per_phase") == 8.0);
            const double ta = a->total[Metric::gpu_time_duration];
            const double tb = b->total[Metric::gpu_time_duration];
            CHECK(tb == Approx(ta).epsilon(0.05));
        }
    }
}

TEST_CASE("coarsening (phase_budget) keeps bytes exact and time close", "[sim][coarsen]") {
    const Hardware hw = test::test_gpu();
    for (const int stages : {1, 2}) {
        SimpleLaunch s;
        s.blocks = 132 * 8;
        s.threads = 256;
        s.regs = 64;
        s.stages = stages;
        s.iterations = 32;
        s.load_bytes = 16384;
        s.x_bytes = 16384 * 256;  // 4 MiB shared by all blocks: L2 hits
        s.fp32_flops = 4e5;       // compute and memory of similar length
        s.store_bytes = 8192;
        const Launch l = make_simple_launch(s);
        sim::Options exact;
        exact.phase_budget = 0;
        sim::Options coarse;
        coarse.phase_budget = 132 * 8 * 4;  // 8 iterations per phase
        auto a = sim::simulate(test::test_workload(), {l}, hw, exact);
        auto b = sim::simulate(test::test_workload(), {l}, hw, coarse);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        INFO("stages " << stages);
        CHECK(a->launches[0].extra.at("sim_iterations_per_phase") == 1.0);
        CHECK(b->launches[0].extra.at("sim_iterations_per_phase") == 9.0);  // 33 phases (32 + the store) in 4
        for (Metric m : {Metric::lts_t_bytes, Metric::smem_bytes_read, Metric::flops_fp32}) {
            CHECK(a->total[m] == b->total[m]);
        }
        CHECK(a->total[Metric::dram_bytes_read] == b->total[Metric::dram_bytes_read]);  // all fits in L2
        const double ta = a->total[Metric::gpu_time_duration];
        const double tb = b->total[Metric::gpu_time_duration];
        CHECK(tb == Approx(ta).epsilon(0.10));
    }
}

TEST_CASE("a launch's l2_bytes_per_s is its lts__t_bytes over its time, as the whole run's", "[sim]") {
    const Hardware hw = test::test_gpu();
    WorkloadSpec s;
    s.kernel = "attention-flash2";
    s.batch = 2;
    s.heads = 4;
    s.seq = 1024;
    auto w = make_workload(s);
    REQUIRE(w.ok());
    auto launches = lower(*w, hw);
    REQUIRE(launches.ok());
    auto p = sim::simulate(*w, *launches, hw, sim::Options{});
    REQUIRE(p.ok());
    REQUIRE(p->launches.size() == 1);
    const LaunchResult& l = p->launches[0];
    const double rate = l.metrics[Metric::lts_t_bytes] / (l.metrics[Metric::gpu_time_duration] * 1e-9);
    CHECK(l.extra.at("l2_bytes_per_s") == Approx(rate).epsilon(1e-12));
    CHECK(p->extra.at("l2_bytes_per_s") ==
          Approx(p->total[Metric::lts_t_bytes] / (p->total[Metric::gpu_time_duration] * 1e-9)).epsilon(1e-12));
}
