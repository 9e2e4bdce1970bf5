// docs/validation change 43: a load that hits an L2 chunk whose fill from HBM is still in flight
// gets its data with that fill (Calibration::l2_fill_in_flight).
#include <catch2/catch.hpp>

#include <string>

#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {

Prediction predict_one(const Launch& l, const Hardware& hw) {
    auto p = sim::simulate(test::test_workload(), {l}, hw, sim::Options{});
    INFO((p ? std::string() : p.error().message));
    REQUIRE(p.ok());
    return *p;
}

// `blocks` blocks (one per SM), each loading 4 KiB per iteration with no compute (s = 1: load,
// then the next): with `shared`, every block reads the same fresh 4 KiB in step, else its own.
Launch stream_launch(std::int64_t blocks, bool shared, std::int64_t iterations = 64) {
    test::SimpleLaunch s;
    s.blocks = blocks;
    s.iterations = iterations;
    s.load_bytes = 4096;
    s.same_data = shared;
    return test::make_simple_launch(s);
}

// A one-wave GEMM (one block per SM of the test GPU's 132: 11 x 12 tiles of 64 x 64, K = 4096)
// whose blocks read each k-tile of A and B with the 11 or 12 others of their row or column.
Workload one_wave_gemm(int stages) {
    WorkloadSpec s;
    s.kernel = "gemm";
    s.m = 11 * 64;
    s.n = 12 * 64;
    s.k = 4096;
    s.tile_m = s.tile_n = 64;
    s.tile_k = 32;
    s.stages = stages;
    s.warps = 8;
    auto w = make_workload(s);
    REQUIRE(w.ok());
    return *w;
}

}  // namespace

// Eight blocks read each new tile together. Without the law the first block to ask misses and the
// others hit at the L2's latency (200 ns on the test GPU), so the blocks take turns paying the
// miss; with it every block waits for the fill (600 ns), like a lone block on private data.
TEST_CASE("blocks that read a tile in step all wait for its fill", "[sim][l2][change43]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    const double base = predict_one(stream_launch(8, true), hw).total[Metric::gpu_time_duration];
    hw.calibration.l2_fill_in_flight = 1;
    const auto with = predict_one(stream_launch(8, true), hw);
    const double lone = predict_one(stream_launch(8, false), hw).total[Metric::gpu_time_duration];
    const double t = with.total[Metric::gpu_time_duration];
    CHECK(t > 1.2 * base);
    CHECK(t == Approx(lone).epsilon(0.05));
    CHECK(t > 64 * hw.hbm_latency_ns);
    // Bytes are counted as before: the law changes only the time.
    hw.calibration.l2_fill_in_flight = 0;
    const auto without = predict_one(stream_launch(8, true), hw);
    for (const Metric m : {Metric::dram_bytes_read, Metric::lts_t_bytes})
        CHECK(with.total[m] == Approx(without.total[m]));
}

// Nothing shared in flight, nothing changes: private data, or re-reads of data long since filled.
TEST_CASE("the fill-in-flight law leaves private and settled data alone", "[sim][l2][change43]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    const double priv = predict_one(stream_launch(8, false), hw).total[Metric::gpu_time_duration];
    // One block re-reading 4 KiB (x_bytes = 4 KiB): only the first iteration misses.
    test::SimpleLaunch s;
    s.blocks = 1;
    s.iterations = 64;
    s.load_bytes = 4096;
    s.x_bytes = 4096;
    const Launch reread = test::make_simple_launch(s);
    const double r0 = predict_one(reread, hw).total[Metric::gpu_time_duration];
    hw.calibration.l2_fill_in_flight = 1;
    CHECK(predict_one(stream_launch(8, false), hw).total[Metric::gpu_time_duration] == priv);
    CHECK(predict_one(reread, hw).total[Metric::gpu_time_duration] == r0);
}

// The iteration series of docs/validation change 42: a 2-stage GEMM waits for each k-tile's round
// trip, and the tiles' first reads miss. With both laws (change 36's order, this fill clock) a
// 2-stage iteration takes at least the HBM latency, and a 3-stage one half of it; with either law
// alone the other blocks' hits at the L2's latency make it far shorter.
TEST_CASE("a one-wave 2-stage GEMM waits for its tiles' fills", "[sim][l2][change43]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    auto per_iteration = [&](int stages, bool fill, bool order) {
        hw.calibration.l2_fill_in_flight = fill ? 1 : 0;
        hw.calibration.pipeline_wait_then_issue = order ? 1 : 0;
        return test::predict(one_wave_gemm(stages), hw).total[Metric::gpu_time_duration] / 128.0;
    };
    const double two = per_iteration(2, true, true), three = per_iteration(3, true, true);
    CHECK(two > hw.hbm_latency_ns);
    CHECK(two > 1.15 * three);
    // The test GPU's light compute leaves both latency-bound: s-1 round trips in flight.
    CHECK(three == Approx(two / 2).epsilon(0.05));
    for (const bool fill : {false, true}) {
        INFO("fill clock " << fill);
        CHECK(per_iteration(2, fill, !fill) < 0.95 * two);
    }
}
