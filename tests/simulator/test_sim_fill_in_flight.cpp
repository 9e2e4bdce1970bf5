// docs/validation change 43: a load that hits an L2 chunk whose fill from HBM is still in flight
// gets its data with that fill (Calibration::l2_fill_in_flight).
#include <catch2/catch.hpp>

#include <string>

#include "core/hardware.hpp"
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
