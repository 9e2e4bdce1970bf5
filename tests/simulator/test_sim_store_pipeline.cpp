// docs/validation changes 35-37: the fragment stores' own path (issue on the SM, drain on a
// GPU-wide server of their own), the order of a pipelined loop's top (wait, then issue) and the
// DRAM pages that narrow row segments open; change 63: a serial pipeline (pipeline_serial).
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {

double time_ns(const Launch& l, const Hardware& hw, std::int64_t phase_budget = 200000) {
    sim::Options opt;
    opt.phase_budget = phase_budget;
    auto p = sim::simulate(test::test_workload(), {l}, hw, opt);
    INFO((p ? std::string() : p.error().message));
    REQUIRE(p.ok());
    return p->total[Metric::gpu_time_duration];
}

Hardware no_latency_gpu() {
    Hardware hw = test::test_gpu();
    hw.hbm_latency_ns = hw.l2_latency_ns = 0;
    hw.calibration.calibrated = true;
    return hw;
}

// `blocks` blocks that each store `bytes` as mma fragments (16-byte row segments) and nothing else.
Launch fragment_store_launch(std::int64_t blocks, std::int64_t bytes) {
    test::SimpleLaunch s;
    s.blocks = blocks;
    s.store_bytes = bytes;
    Launch l = test::make_simple_launch(s);
    l.fragment_store_row_bytes = 16;
    return l;
}

// Times of a launch whose 132 blocks each store `bytes` with plain (not fragment) stores, with the
// calibration field at 0 and at `value`: a fragment-store term must leave them equal.
std::pair<double, double> plain_store_times(Hardware hw, double Calibration::*field, double value, double bytes) {
    Launch plain = fragment_store_launch(132, static_cast<std::int64_t>(bytes));
    plain.fragment_store_row_bytes = 0;
    hw.calibration.*field = 0;
    const double without = time_ns(plain, hw);
    hw.calibration.*field = value;
    return {without, time_ns(plain, hw)};
}

}  // namespace

TEST_CASE("fragment stores with their own drain: the drain or the L2's sectors bind, not their sum",
          "[sim][stores][change35]") {
    Hardware hw = no_latency_gpu();
    hw.calibration.fragment_store_bytes_per_s = 0.5e12;
    hw.calibration.fragment_store_own_drain = 1;
    // 1056 blocks x 32 KiB = 33 MiB of fragments, L2-resident.
    const Launch l = fragment_store_launch(1056, 32 * 1024);
    const double bytes = 1056.0 * 32 * 1024;
    // The drain (0.5 TB/s) binds: the sectors (2 x bytes) at the 5.5 TB/s L2 take 5.5x less.
    CHECK(time_ns(l, hw) == Approx(bytes / 0.5e12 * 1e9).epsilon(0.05));
    // A drain faster than the L2: the sectors bind at the L2's own rate.
    hw.calibration.fragment_store_bytes_per_s = 50e12;
    CHECK(time_ns(l, hw) == Approx(2 * bytes / 5.5e12 * 1e9).epsilon(0.05));
}

TEST_CASE("with their own drain, fragment stores overlap other blocks' L2 loads", "[sim][stores][change35]") {
    Hardware hw = no_latency_gpu();
    hw.calibration.fragment_store_bytes_per_s = 0.5e12;
    // 1056 blocks, one per SM at a time (1024 threads x 64 registers): 8 waves. Each reads the
    // same 64 KiB (L2 hits after the first) and stores 32 KiB of fragments; the stores are posted,
    // so a wave's drain can overlap the next wave's loads.
    test::SimpleLaunch s;
    s.blocks = 1056;
    s.threads = 1024;
    s.regs = 64;
    s.load_bytes = 64 * 1024;
    s.same_data = true;
    s.store_bytes = 32 * 1024;
    Launch both = test::make_simple_launch(s);
    both.fragment_store_row_bytes = 16;
    s.store_bytes = 0;
    const Launch loads_only = test::make_simple_launch(s);
    s.load_bytes = 0;
    s.store_bytes = 32 * 1024;
    Launch stores_only = test::make_simple_launch(s);
    stores_only.fragment_store_row_bytes = 16;
    const double shared_both = time_ns(both, hw);
    hw.calibration.fragment_store_own_drain = 1;
    const double loads = time_ns(loads_only, hw), stores = time_ns(stores_only, hw), own = time_ns(both, hw);
    // Own drain: the larger of the two parts (the drain), not their sum.
    CHECK(own == Approx(std::max(loads, stores)).epsilon(0.10));
    CHECK(own < stores + 0.5 * loads);
    // The old law (one L2 server for both) pays them one after the other.
    CHECK(shared_both > own + 0.5 * loads);
}

TEST_CASE("fragment-store issue is work on the SM, shared by its blocks", "[sim][stores][change35]") {
    Hardware hw = no_latency_gpu();
    hw.calibration.fragment_store_bytes_per_s = 50e12;  // a drain that never binds
    hw.calibration.fragment_store_own_drain = 1;
    const double bytes = 32 * 1024;
    const double issue = 0.0632;  // ns per byte: 15.8 GB/s per SM (tilescope-store-path-probe)
    // One block per SM, then four blocks per SM (132 x 4, all resident at once: 128 threads,
    // 32 registers): the SM issues its blocks' stores one after another.
    for (const std::int64_t per_sm : {1, 4}) {
        const Launch l = fragment_store_launch(132 * per_sm, static_cast<std::int64_t>(bytes));
        hw.calibration.fragment_store_issue_ns_per_byte = 0;
        const double without = time_ns(l, hw);
        hw.calibration.fragment_store_issue_ns_per_byte = issue;
        const double with = time_ns(l, hw);
        INFO("blocks per SM " << per_sm);
        CHECK(with - without == Approx(static_cast<double>(per_sm) * bytes * issue).epsilon(0.05));
    }
    // A launch without fragment stores does not pay it.
    const auto [plain_without, plain_with] =
        plain_store_times(hw, &Calibration::fragment_store_issue_ns_per_byte, issue, bytes);
    CHECK(plain_with == Approx(plain_without));
}

TEST_CASE("fragment_store_own_drain needs a drain rate", "[sim][stores][change35]") {
    Hardware hw = no_latency_gpu();
    hw.calibration.fragment_store_own_drain = 1;
    hw.calibration.fragment_store_bytes_per_s = 0;
    auto p = sim::simulate(test::test_workload(), {fragment_store_launch(4, 1024)}, hw, sim::Options{});
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("calibration.fragment_store_own_drain") != std::string::npos);
    CHECK(p.error().message.find("fragment_store_bytes_per_s > 0") != std::string::npos);
}

namespace {

// The loop of the tests below: one block, `stages` stages, 4 KiB of fresh data loaded and 5e4 FP32
// FLOP per iteration; its time per iteration as the difference between 96 and 32 iterations over
// 64 (the fixed costs cancel).
double lone_loop_iteration_ns(const Hardware& hw, int stages, bool after_wait, std::int64_t budget) {
    double t[2];
    int i = 0;
    for (const std::int64_t iterations : {32, 96}) {
        test::SimpleLaunch s;
        s.blocks = 1;
        s.stages = stages;
        s.iterations = iterations;
        s.load_bytes = 4096;
        s.fp32_flops = 5e4;
        Launch l = test::make_simple_launch(s);
        l.loads_after_wait = after_wait;
        t[i++] = time_ns(l, hw, budget);
    }
    return (t[1] - t[0]) / 64.0;
}

}  // namespace

// A lone block (one SM) whose s-stage loop loads 4 KiB of fresh (HBM-missing) data per iteration
// and computes c = 5e4 FP32 FLOP (98.5 ns at the test GPU's 507.6 FLOP/ns per SM) on it, with an
// HBM latency of 600 ns: latency-bound. A load's round trip L is that latency plus its 4 KiB
// through one SM's L2 port (64 B per clock: 36.5 ns). Per iteration, measured as the difference
// between 96 and 32 iterations over 64 (the fixed costs cancel): flash2's order (issue, then wait)
// takes (L + c) / s; the GEMM kernel's (wait, then issue) L / (s - 1).
TEST_CASE("a loop that waits before it issues keeps s-1 iterations' loads in flight", "[sim][pipeline][change36]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    const double L = hw.hbm_latency_ns + 4096 / (hw.calibration.sm_l2_bytes_per_cycle * hw.sm_clock_hz * 1e-9);
    const double c = 5e4 / (hw.fp32_flops_per_s / hw.sm_count * 1e-9);
    auto per_iteration = [&](int stages, bool after_wait, bool flag, std::int64_t budget) {
        hw.calibration.pipeline_wait_then_issue = flag ? 1 : 0;
        return lone_loop_iteration_ns(hw, stages, after_wait, budget);
    };
    for (const std::int64_t budget : {std::int64_t{200000}, std::int64_t{8}}) {  // event by event; coarsened
        INFO("phase budget " << budget);
        for (const int s : {2, 3}) {
            INFO("stages " << s);
            const double old_law = (L + c) / s, new_law = L / (s - 1);
            CHECK(per_iteration(s, true, true, budget) == Approx(new_law).epsilon(0.03));
            // Without the flag, or for a launch that issues first (flash2), the old law.
            CHECK(per_iteration(s, true, false, budget) == Approx(old_law).epsilon(0.03));
            CHECK(per_iteration(s, false, true, budget) == Approx(old_law).epsilon(0.03));
        }
    }
    // One stage: no pipeline; the flag changes nothing (load, then compute: L + c).
    CHECK(per_iteration(1, true, true, 200000) == Approx(per_iteration(1, true, false, 200000)));
}

TEST_CASE("a compute-bound loop is unchanged by the order of its top", "[sim][pipeline][change36]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    test::SimpleLaunch s;
    s.blocks = 1;
    s.stages = 3;
    s.iterations = 64;
    s.load_bytes = 4096;
    s.fp32_flops = 1e6;  // 1970 ns per iteration, far above L / 2 = 300 ns
    Launch l = test::make_simple_launch(s);
    l.loads_after_wait = true;
    const double before = time_ns(l, hw);
    hw.calibration.pipeline_wait_then_issue = 1;
    const double after = time_ns(l, hw);
    CHECK(after == Approx(before).epsilon(0.02));
    CHECK(after == Approx(64 * 1e6 / (hw.fp32_flops_per_s / hw.sm_count * 1e-9)).epsilon(0.05));
}

// Change 63: with pipeline_serial a wait-then-issue block's loads wait for its own compute, so the
// same lone-block loop takes its round trip plus its compute per iteration (L + c), as with one
// stage, whatever its stages; a loop that issues first (flash2), or a profile without the field,
// keeps the pipelined law. Its shared memory, and so its blocks per SM, are the launch's.
TEST_CASE("a serial wait-then-issue loop pays its loads' round trip and its compute in turn", "[sim][pipeline][change63]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.pipeline_wait_then_issue = 1;
    const double L = hw.hbm_latency_ns + 4096 / (hw.calibration.sm_l2_bytes_per_cycle * hw.sm_clock_hz * 1e-9);
    const double c = 5e4 / (hw.fp32_flops_per_s / hw.sm_count * 1e-9);
    bool serial_all = false;
    auto per_iteration = [&](int stages, bool after_wait, bool serial, std::int64_t budget) {
        hw.calibration.pipeline_serial = serial ? (serial_all ? 2 : 1) : 0;
        return lone_loop_iteration_ns(hw, stages, after_wait, budget);
    };
    for (const std::int64_t budget : {std::int64_t{200000}, std::int64_t{8}}) {  // event by event; coarsened
        INFO("phase budget " << budget);
        for (const int s : {2, 3}) {
            INFO("stages " << s);
            CHECK(per_iteration(s, true, true, budget) == Approx(L + c).epsilon(0.03));
            CHECK(per_iteration(s, true, false, budget) == Approx(L / (s - 1)).epsilon(0.03));
            CHECK(per_iteration(s, false, true, budget) == Approx((L + c) / s).epsilon(0.03));
            // 2: every pipelined loop, the issue-first one too.
            hw.calibration.pipeline_serial = 2;
            serial_all = true;
            CHECK(per_iteration(s, false, true, budget) == Approx(L + c).epsilon(0.03));
            CHECK(per_iteration(s, true, true, budget) == Approx(L + c).epsilon(0.03));
            serial_all = false;
        }
    }
}

// Change 64: with pipeline_additive a block's loads stand still while it computes, so the same
// lone-block loop keeps its stages' loads in flight and adds its compute: L / (s - 1) + c per
// iteration for the wait-then-issue order, L / s + c for the issue-first one (2 only), where the
// pipelined law takes L / (s - 1) and (L + c) / s and the serial law L + c. Loads-only period plus
// compute is what the loop overlap probe measured on the H200.
TEST_CASE("an additive loop adds its compute to its pipelined loads' period", "[sim][pipeline][change64]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.pipeline_wait_then_issue = 1;
    const double L = hw.hbm_latency_ns + 4096 / (hw.calibration.sm_l2_bytes_per_cycle * hw.sm_clock_hz * 1e-9);
    const double c = 5e4 / (hw.fp32_flops_per_s / hw.sm_count * 1e-9);
    auto per_iteration = [&](int stages, bool after_wait, int additive, std::int64_t budget) {
        hw.calibration.pipeline_additive = additive;
        return lone_loop_iteration_ns(hw, stages, after_wait, budget);
    };
    for (const std::int64_t budget : {std::int64_t{200000}, std::int64_t{8}}) {  // event by event; coarsened
        INFO("phase budget " << budget);
        for (const int s : {2, 3}) {
            INFO("stages " << s);
            CHECK(per_iteration(s, true, 1, budget) == Approx(L / (s - 1) + c).epsilon(0.03));
            CHECK(per_iteration(s, true, 2, budget) == Approx(L / (s - 1) + c).epsilon(0.03));
            CHECK(per_iteration(s, false, 2, budget) == Approx(L / s + c).epsilon(0.03));
            // 1 leaves the issue-first loop pipelined; 0 is the pipelined law.
            CHECK(per_iteration(s, false, 1, budget) == Approx((L + c) / s).epsilon(0.03));
            CHECK(per_iteration(s, true, 0, budget) == Approx(L / (s - 1)).epsilon(0.03));
        }
        // A one-stage loop already waits for its compute: unchanged.
        CHECK(per_iteration(1, false, 2, budget) == Approx(per_iteration(1, false, 0, budget)));
    }
}

// The law moves no bytes of a launch whose blocks read their own data (in shared-tile launches the
// bytes move as far as the new timing changes the L2's order), and a compute-bound loop (c well
// above L / (s - 1)) is still its compute plus what its loads add: slower than the pipelined one.
TEST_CASE("an additive loop moves the same bytes and is never faster than the pipelined one", "[sim][pipeline][change64]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    test::SimpleLaunch s;
    s.blocks = 3 * hw.sm_count;
    s.stages = 3;
    s.iterations = 24;
    s.load_bytes = 8192;
    s.fp32_flops = 4e5;
    Launch l = test::make_simple_launch(s);
    l.loads_after_wait = true;
    hw.calibration.pipeline_additive = 0;
    auto base = sim::simulate(test::test_workload(), {l}, hw, sim::Options{});
    hw.calibration.pipeline_additive = 1;
    auto add = sim::simulate(test::test_workload(), {l}, hw, sim::Options{});
    REQUIRE(base.ok());
    REQUIRE(add.ok());
    CHECK(add->total[Metric::dram_bytes_read] == base->total[Metric::dram_bytes_read]);
    CHECK(add->total[Metric::lts_t_bytes] == base->total[Metric::lts_t_bytes]);
    CHECK(add->total[Metric::gpu_time_duration] > base->total[Metric::gpu_time_duration]);
}

TEST_CASE("a serial loop keeps the blocks per SM its stages' shared memory allows", "[sim][pipeline][change63]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.pipeline_wait_then_issue = 1;
    test::SimpleLaunch s;
    s.blocks = 4 * hw.sm_count;
    s.stages = 3;
    s.iterations = 16;
    s.load_bytes = 4096;
    s.fp32_flops = 5e4;
    Launch l = test::make_simple_launch(s);
    l.loads_after_wait = true;
    l.smem_bytes_per_block = hw.smem_per_sm_bytes / 2 - hw.smem_reserved_per_block_bytes;  // two blocks per SM
    Launch one_stage = l;
    one_stage.stages = 1;
    hw.calibration.pipeline_serial = 1;
    auto p = sim::simulate(test::test_workload(), {l}, hw, sim::Options{});
    REQUIRE(p.ok());
    REQUIRE(p->launches.size() == 1);
    CHECK(p->launches[0].facts.blocks_per_sm == 2);
    // The same loop lowered with one stage (and the same shared memory) takes exactly as long.
    CHECK(time_ns(l, hw) == Approx(time_ns(one_stage, hw)));
}

// 1024 blocks, each loading 128 rows x `row_bytes` of a matrix whose rows are 4 KiB apart (naive
// attention's P V reads 64 B of each row of P per k-tile), every byte once: all misses. With
// row_bytes = 4096 the same bytes are contiguous.
Launch row_segment_launch(std::int64_t row_bytes) {
    const std::int64_t blocks = 1024, rows = 128, pitch = 4096;
    const std::int64_t per_row = pitch / row_bytes;  // blocks that share a group of rows
    Launch l;
    l.name = "segments";
    l.grid_x = blocks;
    l.threads_per_block = 256;
    l.registers_per_thread = 32;
    l.work_items = blocks;
    const std::int64_t x_bytes = blocks / per_row * rows * pitch;
    l.buffers = {Buffer{"X", x_bytes, false}};
    l.counts.global_load_bytes = static_cast<double>(blocks * rows * row_bytes);
    l.program = [=](std::int64_t block, std::vector<Step>& out) {
        Step ld;
        ld.kind = StepKind::load;
        ld.iteration = 0;
        ld.region = Region{0, (block / per_row) * rows * pitch + (block % per_row) * row_bytes, row_bytes, rows, pitch};
        ld.amount = static_cast<double>(ld.region.bytes());
        out.push_back(ld);
    };
    return l;
}

TEST_CASE("narrow row segments are bound by the DRAM pages they open, contiguous reads are not",
          "[sim][hbm][change37]") {
    Hardware hw = no_latency_gpu();
    const double pages_per_s = 1e10;
    const double narrow_pages = 1024.0 * 128;  // one per 64-byte segment
    const Launch narrow = row_segment_launch(64), contiguous = row_segment_launch(4096);
    const double narrow_free = time_ns(narrow, hw), contiguous_free = time_ns(contiguous, hw);
    hw.calibration.hbm_activations_per_s = pages_per_s;
    // 131072 pages at 1e10 per second: 13.1 us, five times the 8 MiB's time at 3.35 TB/s.
    CHECK(time_ns(narrow, hw) == Approx(narrow_pages / pages_per_s * 1e9).epsilon(0.05));
    CHECK(time_ns(narrow, hw) > 3 * narrow_free);
    // The same bytes as 4 KiB rows open a page per KiB (16384 pages, 1.6 us): bandwidth binds.
    CHECK(time_ns(contiguous, hw) == Approx(contiguous_free));
}

// docs/validation change 60: a block that writes mma fragments keeps its slot while its warps
// issue the stores (tilescope-qk-timeline-probe: 0.079 ns per stored byte, whatever the SM's
// other blocks do), a wait of its own that the SM's other blocks overlap. The tests use 1 ns per
// byte and 4 KiB stores, so that the wait (4.1 us a block) dwarfs the stores' drain through the L2
// (a few hundred ns): a launch then takes its waves of waits, and the drain fits inside them.
TEST_CASE("fragment-store hold: a block's own wait per stored byte, overlapped by the SM's other blocks",
          "[sim][stores][change60]") {
    Hardware hw = no_latency_gpu();
    const double bytes = 4096, hold = 1.0;
    // Blocks of 128 threads and 32 registers: up to 16 per SM at once on the test GPU, so 1, 2 and
    // 4 blocks per SM all run in one wave and their waits overlap: paid once.
    for (const std::int64_t blocks : {132, 264, 528}) {
        const Launch l = fragment_store_launch(blocks, static_cast<std::int64_t>(bytes));
        hw.calibration.fragment_store_hold_ns_per_byte = 0;
        const double without = time_ns(l, hw);
        hw.calibration.fragment_store_hold_ns_per_byte = hold;
        const double with = time_ns(l, hw);
        INFO("blocks " << blocks << ": " << without << " ns without the hold, " << with << " with it");
        CHECK(without < 0.2 * bytes * hold);
        CHECK(with >= bytes * hold);
        CHECK(with <= bytes * hold + without);
    }
    // A launch whose stores are not fragments does not wait.
    const auto [plain_without, plain_with] =
        plain_store_times(hw, &Calibration::fragment_store_hold_ns_per_byte, hold, bytes);
    CHECK(plain_with == Approx(plain_without));
}

TEST_CASE("fragment-store hold: one block per SM, its slot's next block starts after the wait",
          "[sim][stores][change60]") {
    Hardware hw = no_latency_gpu();
    const double bytes = 4096, hold = 1.0;
    // 1024 threads x 64 registers: one block per SM; 132 x 3 blocks run as three waves in turn,
    // each behind the last one's waits.
    test::SimpleLaunch s;
    s.blocks = 132 * 3;
    s.threads = 1024;
    s.regs = 64;
    s.store_bytes = static_cast<std::int64_t>(bytes);
    Launch l = test::make_simple_launch(s);
    l.fragment_store_row_bytes = 16;
    const double without = time_ns(l, hw);
    hw.calibration.fragment_store_hold_ns_per_byte = hold;
    const double with = time_ns(l, hw);
    INFO(without << " ns without the hold, " << with << " with it");
    CHECK(with >= 3 * bytes * hold);
    CHECK(with <= 3 * bytes * hold + without);
}

TEST_CASE("fragment_store_hold_ns_per_byte must be a number >= 0", "[sim][stores][change60]") {
    Hardware hw = no_latency_gpu();
    hw.calibration.fragment_store_hold_ns_per_byte = -0.1;
    auto p = sim::simulate(test::test_workload(), {fragment_store_launch(4, 1024)}, hw, sim::Options{});
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("fragment_store_hold_ns_per_byte") != std::string::npos);
}

namespace {

// Blocks that load, compute and then store `store_bytes` as mma fragments; `per_sm` 1 (1024
// threads x 64 registers) or 2 (1024 x 32) blocks at once on each of the test GPU's 132 SMs, four
// waves of them. Small loads and little arithmetic: the blocks' time is their latencies, which is
// what standing still lengthens (a bandwidth-bound launch moves its bytes at the bandwidth anyway).
Launch loop_then_fragment_store_launch(int per_sm, std::int64_t store_bytes) {
    test::SimpleLaunch s;
    s.blocks = 132 * per_sm * 4;
    s.threads = 1024;
    s.regs = per_sm == 1 ? 64 : 32;
    s.iterations = 4;
    s.load_bytes = 1024;
    s.fp32_flops = 1.0e4;
    s.store_bytes = store_bytes;
    Launch l = test::make_simple_launch(s);
    l.fragment_store_row_bytes = 16;
    return l;
}

}  // namespace

TEST_CASE("fragment-store load wait: the SM's other blocks stand still for their share of its store waits",
          "[sim][stores][change61]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    const double bytes = 4096, hold = 0.5;
    const Launch two = loop_then_fragment_store_launch(2, static_cast<std::int64_t>(bytes));
    hw.calibration.fragment_store_hold_ns_per_byte = hold;
    hw.calibration.fragment_store_load_wait = 0;
    const double off = time_ns(two, hw);
    hw.calibration.fragment_store_load_wait = 0.5;
    const double half = time_ns(two, hw);
    hw.calibration.fragment_store_load_wait = 1;
    const double full = time_ns(two, hw);
    INFO("2 blocks per SM: " << off << " ns with no wait, " << half << " at 0.5, " << full << " at 1");
    CHECK(half > off * 1.01);
    CHECK(full > half * 1.01);
    // A slot's jobs wait at most for the other slot's store waits: four waves of them.
    CHECK(full - off <= 4 * bytes * hold);

    // One block per SM: no other block's stores to wait for.
    const Launch one = loop_then_fragment_store_launch(1, static_cast<std::int64_t>(bytes));
    hw.calibration.fragment_store_load_wait = 0;
    const double one_off = time_ns(one, hw);
    hw.calibration.fragment_store_load_wait = 1;
    CHECK(time_ns(one, hw) == Approx(one_off));

    // Without the change-60 store wait there is nothing to stand still for.
    hw.calibration.fragment_store_hold_ns_per_byte = 0;
    hw.calibration.fragment_store_load_wait = 0;
    const double no_hold = time_ns(two, hw);
    hw.calibration.fragment_store_load_wait = 1;
    CHECK(time_ns(two, hw) == Approx(no_hold));
}

TEST_CASE("fragment_store_load_wait must be a share from 0 to 1", "[sim][stores][change61]") {
    for (const double bad : {-0.1, 1.5}) {
        Hardware hw = no_latency_gpu();
        hw.calibration.fragment_store_load_wait = bad;
        auto p = sim::simulate(test::test_workload(), {fragment_store_launch(4, 1024)}, hw, sim::Options{});
        REQUIRE_FALSE(p.ok());
        CHECK(p.error().message.find("fragment_store_load_wait") != std::string::npos);
    }
}

// docs/validation change 62: a miss on narrow row segments (rows a DRAM page or more apart) takes
// Calibration::hbm_narrow_segment_ns x min(1, 64 / row bytes) longer to come back
// (tilescope-segment-stream-probe: 64-byte segments 140-215 ns longer than contiguous reads of
// the same bytes in flight with 2 stages, 128-byte ones 65-115 ns). Contiguous rows never pay it.
// 16 blocks (one wave), each reading 16 rows x `row_bytes` per iteration, 8 iterations one after
// another, the rows `pitch` bytes apart (pitch = row_bytes: the iteration's 16 rows contiguous):
// a latency-bound loop of misses.
Launch narrow_loop_launch(std::int64_t row_bytes, std::int64_t pitch) {
    const std::int64_t blocks = 16, rows = 16, iterations = 8;
    Launch l;
    l.name = "narrow-loop";
    l.grid_x = blocks;
    l.threads_per_block = 128;
    l.registers_per_thread = 32;
    l.work_items = blocks;
    const bool dense = pitch == row_bytes;
    l.buffers = {Buffer{"X", blocks * rows * std::max(pitch, iterations * row_bytes), false}};
    l.counts.global_load_bytes = static_cast<double>(blocks * iterations * rows * row_bytes);
    l.program = [=](std::int64_t block, std::vector<Step>& out) {
        for (std::int64_t it = 0; it < iterations; ++it) {
            Step ld;
            ld.kind = StepKind::load;
            ld.iteration = static_cast<std::int32_t>(it);
            ld.region = dense ? Region{0, (block * iterations + it) * rows * row_bytes, rows * row_bytes, 1, rows * row_bytes}
                              : Region{0, block * rows * pitch + it * row_bytes, row_bytes, rows, pitch};
            ld.amount = static_cast<double>(ld.region.bytes());
            out.push_back(ld);
        }
    };
    return l;
}

TEST_CASE("narrow row segments' misses come back hbm_narrow_segment_ns later, contiguous rows do not",
          "[sim][hbm][change62]") {
    Hardware hw = no_latency_gpu();
    const double extra = 1000;
    const Launch narrow = narrow_loop_launch(64, 4096), wider = narrow_loop_launch(128, 4096);
    const Launch contiguous = narrow_loop_launch(64, 64), close_rows = narrow_loop_launch(64, 512);
    const double narrow_off = time_ns(narrow, hw), wider_off = time_ns(wider, hw);
    const double contiguous_off = time_ns(contiguous, hw), close_off = time_ns(close_rows, hw);
    hw.calibration.hbm_narrow_segment_ns = extra;
    const double narrow_on = time_ns(narrow, hw), wider_on = time_ns(wider, hw);
    INFO("64 B: " << narrow_off << " -> " << narrow_on << " ns; 128 B: " << wider_off << " -> " << wider_on);
    // Eight round trips one after another, each 1000 ns longer.
    CHECK(narrow_on - narrow_off == Approx(8 * extra).epsilon(0.02));
    // 128-byte segments pay half of it per round trip.
    CHECK(wider_on - wider_off == Approx(4 * extra).epsilon(0.02));
    // Contiguous rows, and rows closer than a DRAM page, pay nothing.
    CHECK(time_ns(contiguous, hw) == Approx(contiguous_off));
    CHECK(time_ns(close_rows, hw) == Approx(close_off));
}

TEST_CASE("hbm_narrow_segment_ns must be a number >= 0", "[sim][hbm][change62]") {
    Hardware hw = no_latency_gpu();
    hw.calibration.hbm_narrow_segment_ns = -1;
    auto p = sim::simulate(test::test_workload(), {row_segment_launch(64)}, hw, sim::Options{});
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("hbm_narrow_segment_ns") != std::string::npos);
}

TEST_CASE("pipeline_serial is optional, round-trips, is 0, 1 or 2 and enters the fingerprint",
          "[sim][pipeline][profile][change63]") {
    test::check_flag012_field("pipeline_serial", &Calibration::pipeline_serial);
}

TEST_CASE("pipeline_additive is optional, round-trips, is 0, 1 or 2 and enters the fingerprint",
          "[sim][pipeline][profile][change64]") {
    test::check_flag012_field("pipeline_additive", &Calibration::pipeline_additive);
}
