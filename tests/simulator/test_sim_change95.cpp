// docs/validation change 95: Calibration::sm_share_resident 2. As 1 (change 84: an mma launch's
// block runs at most at 1/R of its SM, R the SM's slots holding a block), except that a block
// waiting out its mma iteration's fixed wait (the power law's comp_latency_ns) is not counted in
// R until its work joins the SM, so the other resident blocks' work fills that wait, as the GEMM
// kernel's 64x64 blocks do on the GPU (change 87). A block waiting out its block overhead still
// keeps its share.
#include <catch2/catch.hpp>

#include <string>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {

// No memory latencies; the warp model's fixed iteration wait (warp_iteration_ns)
// kept a wait (warp_wait_shared 0), so it delays each iteration's work before it joins the SM.
Hardware wait_gpu(double share, double iteration_ns, double overhead_ns) {
    Hardware hw = test::test_gpu();
    hw.hbm_latency_ns = hw.l2_latency_ns = 0;
    hw.calibration.calibrated = true;
    hw.calibration.block_start_spread = 1;
    hw.calibration.block_overhead_ns = overhead_ns;
    hw.calibration.warp_iteration_ns = iteration_ns;
    // k warps per sub-partition deliver k^0.5: a block may take more than 1/B of its SM (the
    // per-job cap (k / k_b)^0.5 / B), so the 1/R cap of sm_share_resident binds.
    hw.calibration.warp_overlap_exponent = 0.5;
    hw.calibration.sm_share_resident = share;
    return hw;
}

double duration(const Launch& l, const Hardware& hw) { return test::run({l}, hw).total[Metric::gpu_time_duration]; }

constexpr double kFlops = 2e7;  // about 2.7 us of an SM's tensor pipe per iteration

}  // namespace

TEST_CASE("sm_share_resident 2: other blocks' work fills a block's iteration wait", "[sim][change95]") {
    // 4 blocks per SM, 6 waves, 8 iterations each, a wait of about the iteration's work.
    const Launch l = test::tensor_launch(132 * 4 * 6, 256, kFlops, 8);
    REQUIRE(l.counts.flops_tensor > 0);
    // A block overhead, so that later waves start out of step (block_start_spread); blocks in
    // step would all wait together and nothing could fill their waits.
    const double wait = 3000, overhead = 5000;
    const double none = duration(l, wait_gpu(0, wait, overhead));
    const double held = duration(l, wait_gpu(1, wait, overhead));
    const double released = duration(l, wait_gpu(2, wait, overhead));
    const double no_wait = duration(l, wait_gpu(1, 0, overhead));
    INFO("no cap " << none << " ns, 1/R held " << held << " ns, released while waiting " << released
                   << " ns, no wait " << no_wait << " ns");
    // Holding the share, every iteration pays its wait: wait + 4 x work per iteration.
    CHECK(held > 1.05 * released);
    // Released, the wait hides behind the other blocks' work, though never below the pipe's time.
    CHECK(released >= 0.999 * no_wait);
    CHECK(released >= 0.999 * none);
    CHECK(released < held);
}

TEST_CASE("sm_share_resident 2: equal to 1 without iteration waits and for a block's overhead",
          "[sim][change95]") {
    const Launch l = test::tensor_launch(132 * 4 * 4, 256, kFlops, 4);
    // No iteration wait: nothing to release; a block overhead is still held.
    CHECK(duration(l, wait_gpu(2, 0, 20000)) == Approx(duration(l, wait_gpu(1, 0, 20000))).epsilon(1e-12));
    // The wait made SM work (warp_wait_shared 1): no phase waits, 2 is 1.
    Hardware a = wait_gpu(1, 3000, 0), b = wait_gpu(2, 3000, 0);
    a.calibration.warp_wait_shared = b.calibration.warp_wait_shared = 1;
    CHECK(duration(l, b) == Approx(duration(l, a)).epsilon(1e-12));
    // One block per SM: R is 1 whether or not it waits.
    Launch one = test::tensor_launch(132 * 3, 1024, kFlops, 4);
    one.registers_per_thread = 64;
    CHECK(duration(one, wait_gpu(2, 3000, 0)) == Approx(duration(one, wait_gpu(1, 3000, 0))).epsilon(1e-12));
}

TEST_CASE("sm_share_resident: 0, 1 or 2, fingerprinted", "[sim][change95]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.sm_share_resident = 1;
    const std::string one = profile_fingerprint(hw);
    hw.calibration.sm_share_resident = 2;
    CHECK(profile_fingerprint(hw) != one);
    auto back = parse_hardware(hardware_to_json(hw), "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back);
    CHECK(back->calibration.sm_share_resident == 2);
    hw.calibration.sm_share_resident = 3;
    auto bad = parse_hardware(hardware_to_json(hw), "test");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.find("sm_share_resident") != std::string::npos);
}
