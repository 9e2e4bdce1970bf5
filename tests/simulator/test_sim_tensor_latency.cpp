// The tensor pipe's latency limit (Calibration::tensor_flops_per_cycle_per_warp): an SM's tensor
// rate is min(throughput, resident warps x per-warp rate). Off (0) by default, and then every
// result is bit-identical to a limit too high to bind.
#include <catch2/catch.hpp>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {

Prediction run(const Launch& l, const Hardware& hw) { return test::run({l}, hw); }

}  // namespace

TEST_CASE("tensor latency limit off: bit-identical to a limit that never binds", "[sim][tensor_latency]") {
    Hardware off = test::test_gpu();
    REQUIRE(off.calibration.tensor_flops_per_cycle_per_warp == 0.0);  // the default is no limit
    Hardware loose = off;
    loose.calibration.tensor_flops_per_cycle_per_warp = 1e12;  // far above the SM's peak
    for (const Launch& l : {test::tensor_launch(132, 64, 4e6), test::tensor_launch(5000, 256, 1e6, 5)}) {
        const Prediction a = run(l, off), b = run(l, loose);
        REQUIRE(a.launches.size() == b.launches.size());
        CHECK(a.total.values == b.total.values);
        const auto& ta = a.launches[0].timeline;
        const auto& tb = b.launches[0].timeline;
        REQUIRE(ta.size() == tb.size());
        for (std::size_t i = 0; i < ta.size(); ++i) {
            CHECK(ta[i].start_ns == tb[i].start_ns);
            CHECK(ta[i].end_ns == tb[i].end_ns);
        }
    }
}

TEST_CASE("tensor latency limit: a compute-bound block of few warps runs at warps x per-warp rate",
          "[sim][tensor_latency]") {
    Hardware hw = test::test_gpu();
    hw.hbm_latency_ns = hw.l2_latency_ns = 0;
    const double flops = 64e6;  // per iteration: compute dwarfs the 4 KiB load
    const Launch l = test::tensor_launch(132, 64, flops, 1);  // one 2-warp block per SM
    const double peak_per_ns = 989e12 / 132 * 1e-9;
    const double t_off = run(l, hw).total[Metric::gpu_time_duration];
    CHECK(t_off == Approx(flops / peak_per_ns).epsilon(0.03));  // + the small load and store

    const double per_warp = 256;  // FLOP per cycle per warp; 2 warps -> 512 < peak 4270 / cycle
    hw.calibration.tensor_flops_per_cycle_per_warp = per_warp;
    const double t_on = run(l, hw).total[Metric::gpu_time_duration];
    // Only the compute part changes: from flops / peak to flops / (2 warps x per-warp rate).
    CHECK(t_on - t_off == Approx(flops / (2 * per_warp * hw.sm_clock_hz * 1e-9) - flops / peak_per_ns).epsilon(1e-6));
    CHECK(t_on > 5 * t_off);

    // Eight times the blocks (8 per SM resident, 16 warps): the SM runs 8x the work in the same
    // time, since 16 x 256 FLOP/cycle still does not reach the peak.
    const Launch many = test::tensor_launch(132 * 8, 64, flops, 1);
    const double t_many = run(many, hw).total[Metric::gpu_time_duration];
    CHECK(t_many == Approx(t_on).epsilon(0.02));
    // Enough warps: the limit stops binding and the throughput limit is back.
    const Launch wide = test::tensor_launch(132, 1024, flops, 1);  // 32 warps x 256 > peak per cycle
    Hardware hw_off = hw;
    hw_off.calibration.tensor_flops_per_cycle_per_warp = 0;
    CHECK(run(wide, hw).total[Metric::gpu_time_duration] == run(wide, hw_off).total[Metric::gpu_time_duration]);
}

TEST_CASE("tensor latency limit: profile field is optional, round-trips, and rejects negatives",
          "[sim][tensor_latency][profile]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    const std::string without = hardware_to_json(hw);
    CHECK(without.find("tensor_flops_per_cycle_per_warp") == std::string::npos);
    hw.calibration.tensor_flops_per_cycle_per_warp = 96.5;
    auto back = parse_hardware(hardware_to_json(hw), "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.tensor_flops_per_cycle_per_warp == 96.5);
    hw.calibration.tensor_flops_per_cycle_per_warp = -1;
    CHECK_FALSE(sim::simulate(test::test_workload(), {test::tensor_launch(1, 64, 1e3)}, hw, sim::Options{}).ok());
}
