// Calibration::load_latency_scale: the exposed latency of a tile load as a multiple of the
// pointer-chase latencies. Law: a profile with scale k predicts exactly what the same profile
// with scale 1 and both latencies (hbm_latency_ns, l2_latency_ns) multiplied by k predicts.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;
using tilescope::test::predict;

namespace {

Workload flash1_small() {
    WorkloadSpec s;
    s.kernel = "attention-flash1";
    s.batch = 1;
    s.heads = 8;
    s.seq = 512;
    s.head_dim = 64;
    s.tile_m = 32;
    s.tile_n = 32;
    auto w = make_workload(s);
    INFO((w ? std::string() : w.error().message));
    REQUIRE(w.ok());
    return *w;
}

// One block of 128 threads, one pipeline stage, block-private data: 8 iterations each load 4096
// B (32 B per thread) and then compute; every iteration waits for its load, nothing overlaps.
Launch lone_block_eight_loads() {
    test::SimpleLaunch s;
    s.blocks = 1;
    s.threads = 128;
    s.iterations = 8;
    s.load_bytes = 4096;
    s.fp32_flops = 1e5;
    return test::make_simple_launch(s);
}

}  // namespace

TEST_CASE("load latency scale k equals latencies multiplied by k", "[sim][latency]") {
    Hardware base = test::test_gpu();
    base.calibration.calibrated = true;
    const Workload w = flash1_small();
    for (const double k : {0.5, 2.0, 3.7}) {
        Hardware scaled = base;
        scaled.calibration.load_latency_scale = k;
        Hardware by_hand = base;
        by_hand.hbm_latency_ns *= k;
        by_hand.l2_latency_ns *= k;
        const Prediction a = predict(w, scaled);
        const Prediction b = predict(w, by_hand);
        for (const Metric m : {Metric::gpu_time_duration, Metric::dram_bytes_read, Metric::dram_bytes_write,
                               Metric::lts_t_bytes}) {
            INFO("k = " << k << ", metric " << static_cast<int>(m));
            CHECK(a.total[m] == Approx(b.total[m]).epsilon(1e-12));
        }
    }
}

TEST_CASE("load latency scale lengthens a latency-bound kernel and leaves its bytes alone", "[sim][latency]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    // flash1 has one pipeline stage: every inner step waits for its loads.
    const Workload w = flash1_small();
    const Prediction one = predict(w, hw);
    hw.calibration.load_latency_scale = 3.0;
    const Prediction three = predict(w, hw);
    CHECK(three.total[Metric::gpu_time_duration] > 1.2 * one.total[Metric::gpu_time_duration]);
    CHECK(three.total[Metric::lts_t_bytes] == one.total[Metric::lts_t_bytes]);
    CHECK(three.total[Metric::dram_bytes_read] == one.total[Metric::dram_bytes_read]);
}

TEST_CASE("load latency scale is optional in a profile, round-trips, and must be positive",
          "[sim][latency][profile]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    CHECK(hardware_to_json(hw).find("load_latency_scale") == std::string::npos);
    hw.calibration.load_latency_scale = 2.5;
    const std::string text = hardware_to_json(hw);
    auto back = parse_hardware(text, "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.load_latency_scale == 2.5);

    for (const char* bad_value : {"0", "-1"}) {
        std::string bad = text;
        const auto at = bad.find("\"load_latency_scale\":");
        REQUIRE(at != std::string::npos);
        const auto end = bad.find_first_of(",}", at);
        bad.replace(at, end - at, std::string("\"load_latency_scale\":") + bad_value);
        auto r = parse_hardware(bad, "test");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find("load_latency_scale") != std::string::npos);
    }
}

TEST_CASE("load latency per byte adds bytes per thread x ns per byte to each exposed load", "[sim][latency]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    const Launch l = lone_block_eight_loads();
    const double before = test::run({l}, hw).total[Metric::gpu_time_duration];
    hw.calibration.load_latency_ns_per_byte = 2.0;
    const Prediction after = test::run({l}, hw);
    // 8 loads of 4096 B over 128 threads = 32 B per thread each: 8 x 2 x 32 = 512 ns more.
    CHECK(after.total[Metric::gpu_time_duration] - before == Approx(512.0).margin(1e-6));
    CHECK(hardware_to_json(hw).find("\"load_latency_ns_per_byte\"") != std::string::npos);
    hw.calibration.load_latency_ns_per_byte = -1;
    auto bad = sim::simulate(test::test_workload(), {l}, hw, sim::Options{});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("load_latency_ns_per_byte") != std::string::npos);
}

TEST_CASE("fragment stores drain at the profile's fragment-store rate", "[sim][stores]") {
    Hardware hw = test::test_gpu();
    hw.hbm_latency_ns = hw.l2_latency_ns = 0;
    hw.calibration.calibrated = true;
    // 1056 blocks that only store 32 KiB each: 33 MiB, which stays in the 50 MiB L2.
    test::SimpleLaunch s;
    s.blocks = 1056;
    s.store_bytes = 32 * 1024;
    Launch l = test::make_simple_launch(s);
    const double unflagged_plain = test::run({l}, hw).total[Metric::gpu_time_duration];
    l.fragment_store_row_bytes = 16;
    const double bytes = 1056.0 * 32 * 1024;
    const double plain = test::run({l}, hw).total[Metric::gpu_time_duration];
    // Without a rate, 16-byte row segments cost their 32-byte sectors at the L2: twice the work
    // of whole-sector stores (this launch is bound by the L2's bandwidth).
    CHECK(plain == Approx(2 * unflagged_plain).epsilon(0.02));
    hw.calibration.fragment_store_bytes_per_s = 0.5e12;  // 11x slower than the 5.5 TB/s L2
    const double slow = test::run({l}, hw).total[Metric::gpu_time_duration];
    CHECK(slow == Approx(bytes / 0.5e12 * 1e9).epsilon(0.05));
    CHECK(slow > 4 * plain);
    // A launch without fragment stores ignores the rate.
    l.fragment_store_row_bytes = 0;
    const double unflagged = test::run({l}, hw).total[Metric::gpu_time_duration];
    CHECK(unflagged == Approx(unflagged_plain));
}

TEST_CASE("stores are posted: the next block starts while a block's stores drain, the launch ends when they have",
          "[sim][stores]") {
    Hardware hw = test::test_gpu();
    hw.hbm_latency_ns = hw.l2_latency_ns = 0;
    hw.calibration.calibrated = true;
    hw.calibration.fragment_store_bytes_per_s = 0.5e12;
    // Two waves of 132 x 16 blocks (128 threads, 32 registers: 16 per SM). Each block computes
    // for 6.3 us and then stores 8 KiB as fragments: one wave's stores, 17.3 MB, take 35 us to
    // drain at 0.5 TB/s, five times its compute.
    test::SimpleLaunch s;
    s.blocks = 132 * 16 * 2;
    s.fp32_flops = 2e5;  // 16 blocks x 2e5 FLOP at the test GPU's 0.5 TFLOP/s per SM: 6.3 us
    s.store_bytes = 8 * 1024;
    Launch l = test::make_simple_launch(s);
    l.fragment_store_row_bytes = 16;
    const Prediction p = test::run({l}, hw);
    const auto& tl = p.launches[0].timeline;
    REQUIRE(tl.size() == static_cast<std::size_t>(s.blocks));
    double first_end = 1e300, second_start = 1e300, last_end = 0;
    for (const BlockSpan& b : tl) {
        if (b.wave == 0) first_end = std::min(first_end, b.end_ns);
        if (b.wave == 1) second_start = std::min(second_start, b.start_ns);
        last_end = std::max(last_end, b.end_ns);
    }
    const double wave_drain_ns = 132.0 * 16 * 8 * 1024 / 0.5e12 * 1e9;
    // The second wave starts as soon as the first wave's compute is done, not after its drain.
    CHECK(second_start == Approx(first_end).margin(1.0));
    CHECK(second_start < wave_drain_ns / 2);
    // The launch still waits for every store: its time covers both waves' drain.
    const double t = p.launches[0].metrics[Metric::gpu_time_duration];
    CHECK(t >= 2 * wave_drain_ns);
    CHECK(t > last_end + wave_drain_ns / 4);
}

// Latency overlaps queueing (simulator/launch_engine.cpp Engine::part_served): a load is back at
// max(served, issue + uncontended transfer + latency). Bound-and-bottleneck law: with N blocks
// each keeping b bytes in flight and one stage (no prefetch), a step takes
// max(latency + b / per-block rate, N b / bandwidth), not their sum.
TEST_CASE("latency overlaps queueing: bandwidth-bound short loads reach the bandwidth, a lone block pays the latency",
          "[sim][latency]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.l2_bytes = 1 << 20;  // block-private data streams from HBM (no reuse in the L2)
    test::SimpleLaunch s;
    s.threads = 128;
    s.regs = 32;
    s.stages = 1;
    s.iterations = 64;
    s.load_bytes = 2048;  // 16 B per thread per step, like a softmax step

    // 16 blocks per SM: 2112 x 2 KiB = 4.3 MB in flight, 1.3 us at 3.35 TB/s, twice the 600 ns
    // HBM latency. The sum would make each step 1.9 us; the overlap leaves the bandwidth time.
    s.blocks = 132 * 16;
    const Launch many = test::make_simple_launch(s);
    const double bytes = static_cast<double>(s.blocks * s.iterations * s.load_bytes);
    const double ideal = bytes / hw.hbm_bandwidth_bytes_per_s * 1e9;
    const double t_many = test::run({many}, hw, false).total[Metric::gpu_time_duration];
    // (The HBM never idles: each block issues its next load the moment its last one is back.)
    CHECK(t_many >= ideal * (1 - 1e-9));
    CHECK(t_many < ideal * 1.02);
    // A longer latency does not slow it while the queue is longer than the latency...
    Hardware slower = hw;
    slower.hbm_latency_ns = 1000;
    CHECK(test::run({many}, slower, false).total[Metric::gpu_time_duration] == Approx(t_many).epsilon(0.03));
    // ...and makes it latency-bound once it is longer: 64 steps of (latency + a little).
    slower.hbm_latency_ns = 4000;
    const double t_latency = test::run({many}, slower, false).total[Metric::gpu_time_duration];
    CHECK(t_latency >= 64 * 4000.0);
    CHECK(t_latency < 64 * 4000.0 * 1.1);

    // One block: nothing to queue behind, every step pays transfer + latency (unchanged).
    s.blocks = 1;
    const Launch one = test::make_simple_launch(s);
    const double t_one = test::run({one}, hw, false).total[Metric::gpu_time_duration];
    CHECK(t_one >= 64 * hw.hbm_latency_ns);
    CHECK(t_one < 64 * (hw.hbm_latency_ns + 50.0));
}

// Calibration::load_latency_ns_per_tbps (docs/validation change 27): the round trip grows by c ns
// per TB/s that the loads in flight move; with B bytes in flight, L = L0 + (c / 1000) B / L.
TEST_CASE("queueing latency: a lone block's loads wait L solved from L = L0 + c B / L", "[sim][latency]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    // Every iteration misses to HBM and waits alone, so B is its own 4096 bytes.
    const Launch launch = lone_block_eight_loads();
    const double before = test::run({launch}, hw).total[Metric::gpu_time_duration];
    const double c = 150.0;  // ns per TB/s
    hw.calibration.load_latency_ns_per_tbps = c;
    const double after = test::run({launch}, hw).total[Metric::gpu_time_duration];
    const double l0 = hw.hbm_latency_ns;
    const double q = c * 1e-3 * 4096;
    const double l = 0.5 * (l0 + std::sqrt(l0 * l0 + 4 * q));
    CHECK(l > l0);
    CHECK(after - before == Approx(8 * (l - l0)).margin(1e-6));
    // The profile keeps the field; a negative value is refused by name.
    CHECK(hardware_to_json(hw).find("\"load_latency_ns_per_tbps\"") != std::string::npos);
    hw.calibration.load_latency_ns_per_tbps = -1;
    auto bad = sim::simulate(test::test_workload(), {launch}, hw, sim::Options{});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("load_latency_ns_per_tbps") != std::string::npos);
}

TEST_CASE("queueing latency: more blocks in flight wait longer, the bytes stay the same, 0 changes nothing",
          "[sim][latency]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.l2_bytes = 1 << 20;
    // Latency-bound: 16-byte-per-lane steps, few blocks, far from the bandwidth.
    auto launch = [](std::int64_t blocks) {
        test::SimpleLaunch s;
        s.blocks = blocks;
        s.threads = 32;
        s.iterations = 32;
        s.load_bytes = 512;
        return test::make_simple_launch(s);
    };
    auto time_per_iteration_increase = [&](std::int64_t blocks) {
        Hardware h0 = hw, h1 = hw;
        h1.calibration.load_latency_ns_per_tbps = 150;
        const Prediction p0 = test::run({launch(blocks)}, h0);
        const Prediction p1 = test::run({launch(blocks)}, h1);
        CHECK(p1.total[Metric::dram_bytes_read] == p0.total[Metric::dram_bytes_read]);
        CHECK(p1.total[Metric::lts_t_bytes] == p0.total[Metric::lts_t_bytes]);
        return (p1.total[Metric::gpu_time_duration] - p0.total[Metric::gpu_time_duration]) / 32;
    };
    const double few = time_per_iteration_increase(132);
    const double more = time_per_iteration_increase(132 * 8);
    CHECK(few > 0);
    CHECK(more > few);
    // Without the field the prediction is the one of a profile that never had it (bit for bit).
    Hardware zero = hw;
    zero.calibration.load_latency_ns_per_tbps = 0;
    CHECK(test::run({launch(132)}, zero).total[Metric::gpu_time_duration] ==
          test::run({launch(132)}, hw).total[Metric::gpu_time_duration]);
}

namespace {
// The profile the burst-term laws (changes 53, 54) are tested on: a 3 ns/B drain and a 1.1 ns/B
// load-issue cost, so that the two burst terms differ.
Hardware burst_drain_gpu() {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.load_latency_ns_per_byte = 3.0;
    hw.calibration.warp_load_issue_ns_per_byte = 1.1;
    return hw;
}

// Two blocks on each of the test GPU's 132 SMs: one wave, shared SMs, exposed first fills.
test::SimpleLaunch burst_launch(int stages) {
    test::SimpleLaunch s;
    s.blocks = 264;
    s.threads = 128;
    s.iterations = 8;
    s.load_bytes = 4096;
    s.fp32_flops = 1e5;
    s.stages = stages;
    return s;
}
}  // namespace

TEST_CASE("pipelined load burst at the issue cost: stages >= 2 use warp_load_issue_ns_per_byte, stages 1 keep "
          "the drain term",
          "[sim][latency][change53]") {
    const Hardware drain = burst_drain_gpu();
    Hardware flag = drain;
    flag.calibration.pipelined_load_burst_issue = 1.0;
    // What the flag means for a pipelined launch, written by hand: the drain term at the issue cost.
    Hardware by_hand = drain;
    by_hand.calibration.load_latency_ns_per_byte = 1.1;

    for (const int stages : {1, 2, 3}) {
        const Launch l = test::make_simple_launch(burst_launch(stages));
        const Prediction d = test::run({l}, drain);
        const Prediction f = test::run({l}, flag);
        const Prediction h = test::run({l}, by_hand);
        INFO("stages " << stages);
        for (const Metric m : {Metric::gpu_time_duration, Metric::dram_bytes_read, Metric::lts_t_bytes}) {
            if (stages == 1) CHECK(f.total[m] == d.total[m]);
            else CHECK(f.total[m] == h.total[m]);
        }
        // Not vacuous: with two stages a block's exposed fills wait less with the flag than with
        // the 3 ns/B drain (three stages hide this launch's loads either way).
        if (stages == 2) CHECK(f.total[Metric::gpu_time_duration] < d.total[Metric::gpu_time_duration]);
    }
}

TEST_CASE("pipelined_load_burst_issue = 2 paces the burst by issue only in loops that issue before they wait",
          "[sim][latency][change54]") {
    const Hardware drain = burst_drain_gpu();
    Hardware every = drain;
    every.calibration.pipelined_load_burst_issue = 1.0;
    Hardware issue_first = drain;
    issue_first.calibration.pipelined_load_burst_issue = 2.0;

    for (const int stages : {1, 2, 3}) {
        for (const bool after_wait : {false, true}) {
            Launch l = test::make_simple_launch(burst_launch(stages));
            l.loads_after_wait = after_wait;
            const Prediction d = test::run({l}, drain);
            const Prediction e = test::run({l}, every);
            const Prediction i = test::run({l}, issue_first);
            INFO("stages " << stages << ", loads_after_wait " << after_wait);
            // Issue-then-wait pipelined loops (FlashAttention-2's order) predict what 1 predicts;
            // wait-then-issue loops (the GEMM kernel's) and one-stage launches what 0 predicts.
            const Prediction& want = (stages >= 2 && !after_wait) ? e : d;
            for (const Metric m : {Metric::gpu_time_duration, Metric::dram_bytes_read, Metric::lts_t_bytes})
                CHECK(i.total[m] == want.total[m]);
            // Not vacuous: at two stages 1 and 0 differ for this launch in either loop order.
            if (stages == 2) CHECK(e.total[Metric::gpu_time_duration] < d.total[Metric::gpu_time_duration]);
        }
    }
}

TEST_CASE("pipelined_load_burst_issue is optional, round-trips, is 0, 1 or 2 and enters the fingerprint",
          "[sim][latency][profile][change53][change54]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.load_latency_ns_per_byte = 3.0;
    const std::string off = hardware_to_json(hw);
    CHECK(off.find("pipelined_load_burst_issue") == std::string::npos);
    const std::string fp_off = profile_fingerprint(hw);
    hw.calibration.pipelined_load_burst_issue = 1.0;
    const std::string text = hardware_to_json(hw);
    auto back = parse_hardware(text, "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.pipelined_load_burst_issue == 1.0);
    CHECK(profile_fingerprint(*back) != fp_off);
    auto two = parse_hardware(test::with_field(text, "pipelined_load_burst_issue", "2"), "test");
    INFO((two ? std::string() : two.error().message));
    REQUIRE(two.ok());
    CHECK(two->calibration.pipelined_load_burst_issue == 2.0);
    CHECK(profile_fingerprint(*two) != fp_off);
    CHECK(profile_fingerprint(*two) != profile_fingerprint(*back));
    for (const char* bad : {"3", "0.5", "-1"}) {
        auto r = parse_hardware(test::with_field(text, "pipelined_load_burst_issue", bad), "test");
        INFO(bad);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find("pipelined_load_burst_issue") != std::string::npos);
        CHECK(r.error().message.find("0, 1 or 2") != std::string::npos);
    }
}
