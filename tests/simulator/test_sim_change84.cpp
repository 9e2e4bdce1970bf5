// docs/validation change 84: Calibration::sm_share_resident, off by default. With it, an mma
// launch's SM server shares the SM among the blocks resident on it (slots holding a block, one
// waiting out its block overhead included), not only among the blocks with work in the server: a
// block's work runs at most at 1/R of the SM. So the other blocks no longer fill a block's waits
// with their work, and a fixed wait per block costs every wave its full length, as the QK^T probe
// measured at 4 blocks per SM (change 83); a block left alone on its SM (the last wave) still
// runs at the full rate.
#include <catch2/catch.hpp>

#include <string>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {

// No latencies and no warp model: a block's compute is tensor-pipe work on its SM's server, which
// the blocks with work share (a block alone takes the whole SM); later waves' starts spread, as
// in the bundled profiles, so blocks drift out of step.
Hardware share_gpu(bool resident, double overhead_ns) {
    Hardware hw = test::test_gpu();
    hw.hbm_latency_ns = hw.l2_latency_ns = 0;
    hw.calibration.calibrated = true;
    hw.calibration.block_start_spread = 1;
    hw.calibration.block_overhead_ns = overhead_ns;
    hw.calibration.sm_share_resident = resident ? 1 : 0;
    return hw;
}

double duration(const Launch& l, const Hardware& hw) { return test::run({l}, hw).total[Metric::gpu_time_duration]; }

// Compute-bound blocks: two iterations of 2e8 tensor FLOP (about 27 us of an SM's tensor pipe each).
constexpr double kFlops = 2e8;

}  // namespace

TEST_CASE("sm_share_resident: a block's fixed wait costs every wave its length at 4 blocks per SM",
          "[sim][change84]") {
    // 4 blocks per SM (256 threads of 32 registers), 10 waves of them.
    const std::int64_t waves = 10;
    const Launch l = test::tensor_launch(132 * 4 * waves, 256, kFlops, 2);
    REQUIRE(l.counts.flops_tensor > 0);
    const double overhead = 50000;
    // Without the law the other three blocks take over the SM while a slot waits out its block
    // overhead, so after the first wave (which waits it out together) the waits are mostly
    // hidden; with it each block keeps to 1/4 of the SM and the SM idles a quarter while a slot
    // waits, so later waves pay a good part of an overhead each (302 and 147 us when written:
    // some waits still overlap the last wave's tail and one another).
    const double hidden = duration(l, share_gpu(false, overhead)) - duration(l, share_gpu(false, 0));
    const double paid = duration(l, share_gpu(true, overhead)) - duration(l, share_gpu(true, 0));
    INFO("overhead per launch: hidden " << hidden << " ns, with the law " << paid << " ns");
    CHECK(hidden >= overhead);  // the first wave's, never hidden
    CHECK(paid > 1.8 * hidden);
    CHECK(paid >= 0.5 * waves * overhead);
    CHECK(paid <= 1.05 * waves * overhead);
    // With no overhead the SM is never idle and the blocks share it alike either way.
    CHECK(duration(l, share_gpu(true, 0)) == Approx(duration(l, share_gpu(false, 0))).epsilon(0.01));
}

TEST_CASE("sm_share_resident: one block per SM, a block alone and launches without mma are unchanged",
          "[sim][change84]") {
    // One block per SM (1024 threads of 64 registers fill the register file): R is 1.
    Launch one = test::tensor_launch(132 * 3, 1024, kFlops, 2);
    one.registers_per_thread = 64;
    CHECK(duration(one, share_gpu(true, 5000)) == Approx(duration(one, share_gpu(false, 5000))).epsilon(1e-9));
    // A grid of one block per SM where 4 fit: each block is alone on its SM, R is 1.
    const Launch lone = test::tensor_launch(132, 256, kFlops, 2);
    CHECK(duration(lone, share_gpu(true, 5000)) == Approx(duration(lone, share_gpu(false, 5000))).epsilon(1e-9));
    // A launch with no tensor work keeps processor sharing among the blocks with work.
    test::SimpleLaunch s;
    s.blocks = 132 * 4 * 6;
    s.threads = 256;
    s.iterations = 3;
    s.load_bytes = 4096;
    s.fp32_flops = 4e7;
    const Launch scalar = test::make_simple_launch(s);
    REQUIRE(scalar.counts.flops_tensor == 0);
    CHECK(duration(scalar, share_gpu(true, 5000)) == Approx(duration(scalar, share_gpu(false, 5000))).epsilon(1e-9));
}

TEST_CASE("sm_share_resident: the field is a flag, optional and fingerprinted", "[sim][change84]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.warp_iteration_ns = 250;
    CHECK(hardware_to_json(hw).find("sm_share_resident") == std::string::npos);
    const std::string before = profile_fingerprint(hw);
    hw.calibration.sm_share_resident = 1;
    CHECK(profile_fingerprint(hw) != before);
    auto back = parse_hardware(hardware_to_json(hw), "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back);
    CHECK(back->calibration.sm_share_resident == 1);
    hw.calibration.sm_share_resident = 0.5;
    auto bad = parse_hardware(hardware_to_json(hw), "test");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.find("sm_share_resident") != std::string::npos);
}
