// docs/validation change 96: Calibration::wait_then_issue_block_ns. A block of a wait-then-issue
// launch (Launch::loads_after_wait with pipeline_wait_then_issue on and 2+ stages: the GEMM
// kernel, so naive attention's QK^T and P V too) starts that much after its slot is given, on top
// of block_overhead_ns: the kernel's prologue and accumulator epilogue, which change 87 timed at
// a fixed 2.3-2.9 us per block. Other launches do not pay it.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {

Hardware gpu(double wait_then_issue, double extra_ns) {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.block_overhead_ns = 400;
    hw.calibration.pipeline_wait_then_issue = wait_then_issue;
    hw.calibration.wait_then_issue_block_ns = extra_ns;
    return hw;
}

double duration(const Workload& w, const Hardware& hw) {
    return test::predict(w, hw).total[Metric::gpu_time_duration];
}

// FlashAttention-2 (its loop issues before it waits), 64 x 64 tiles, 2 stages, 4 warps.
Workload flash2_workload() {
    WorkloadSpec f;
    f.kernel = "attention-flash2";
    f.batch = 2;
    f.heads = 4;
    f.seq = 1024;
    f.head_dim = 64;
    f.tile_m = f.tile_n = 64;
    f.stages = 2;
    f.warps = 4;
    auto w = make_workload(f);
    INFO((w ? std::string() : w.error().message));
    REQUIRE(w.ok());
    return *w;
}

}  // namespace

TEST_CASE("wait_then_issue_block_ns: a GEMM block starts later by the field", "[sim][change96]") {
    // 512^3 in 64 x 64 tiles: 64 blocks, one wave on the test GPU, each alone on its SM.
    const Workload w = test::small_gemm_workload(512);
    const double base = duration(w, gpu(1, 0));
    const double later = duration(w, gpu(1, 2000));
    INFO("without " << base << " ns, with 2000 ns " << later << " ns");
    CHECK(later - base == Approx(2000).margin(50));
    // 2048^3: 1024 blocks, several per SM. Every block starts later, but while one waits the
    // SM's other blocks work, so the launch grows by at least one delay and at most one per
    // block of its busiest SM (ceil(1024 / 132) = 8).
    const Workload big = test::small_gemm_workload(2048);
    const double big_base = duration(big, gpu(1, 0));
    const double big_later = duration(big, gpu(1, 2000));
    INFO("2048^3: without " << big_base << " ns, with " << big_later << " ns");
    CHECK(big_later - big_base >= 2000 - 50);
    CHECK(big_later - big_base <= 8 * 2000 + 50);
}

TEST_CASE("wait_then_issue_block_ns: nothing without the wait-then-issue loop", "[sim][change96]") {
    // The law off: the GEMM kernel's loop is not read as wait-then-issue, so it pays nothing.
    const Workload g = test::small_gemm_workload(512);
    CHECK(duration(g, gpu(0, 2000)) == Approx(duration(g, gpu(0, 0))).epsilon(1e-12));
    // Softmax (no pipelined loop) and FlashAttention-2 (issues before it waits) never pay it.
    const Workload s = test::softmax_workload("online", 4096, 2048, 4);
    CHECK(duration(s, gpu(1, 2000)) == Approx(duration(s, gpu(1, 0))).epsilon(1e-12));
    const Workload fw = flash2_workload();
    CHECK(duration(fw, gpu(1, 2000)) == Approx(duration(fw, gpu(1, 0))).epsilon(1e-12));
}

TEST_CASE("wait_then_issue_block_ns: optional, non-negative, fingerprinted", "[sim][change96]") {
    test::check_optional_field("wait_then_issue_block_ns", &Calibration::wait_then_issue_block_ns, 1000.0,
                               {"-1", "\"x\""});
}

namespace {

// The bundled H100 profile with the GEMM kernel's wait kept a wait (warp_wait_shared 2) and
// released while it waits (sm_share_resident 2), or shared (warp_wait_shared 1).
Hardware split_gpu(double wait_shared, double part) {
    auto hw = load_hardware("calibrated/h100-sxm");
    INFO((hw ? std::string() : hw.error().message));
    REQUIRE(hw.ok());
    hw->calibration.warp_wait_shared = wait_shared;
    hw->calibration.sm_share_resident = 2;
    hw->calibration.warp_wait_shared_part = part;
    return *hw;
}

}  // namespace

TEST_CASE("warp_wait_shared_part: the GEMM kernel's wait split into shared SM work and a wait", "[sim][change96]") {
    // The data set's GEMM kernel configuration, 2048 x 2048 x 512: 3 stages, 8 warps (3 blocks per
    // SM on the H100).
    const Workload g = test::small_gemm_workload(2048, 512, 3, 8);
    const double waited = duration(g, split_gpu(2, 0));
    const double shared = duration(g, split_gpu(1, 0));
    const double all_shared = duration(g, split_gpu(2, 1));
    const double half = duration(g, split_gpu(2, 0.5));
    INFO("all a wait " << waited << " ns, half " << half << " ns, all shared " << all_shared
                       << " ns, warp_wait_shared 1 " << shared << " ns");
    // All of it shared is warp_wait_shared 1 for this launch.
    CHECK(all_shared == Approx(shared).epsilon(1e-12));
    // The split changes the launch, and lands between the two ends.
    CHECK(half != Approx(waited).epsilon(1e-6));
    CHECK(half >= 0.999 * std::min(waited, all_shared));
    CHECK(half <= 1.001 * std::max(waited, all_shared));
    // Launches whose wait warp_wait_shared 2 already shares (softmax has none; FlashAttention-2
    // issues before it waits) do not move.
    const Workload fw = flash2_workload();
    CHECK(duration(fw, split_gpu(2, 0.7)) == Approx(duration(fw, split_gpu(2, 0))).epsilon(1e-12));
}

TEST_CASE("warp_wait_shared_part: optional, a fraction, fingerprinted", "[sim][change96]") {
    test::check_optional_field("warp_wait_shared_part", &Calibration::warp_wait_shared_part, 0.4, {"-0.1", "1.5"});
}
