// docs/validation change 96: Calibration::wait_then_issue_block_ns. A block of a wait-then-issue
// launch (Launch::loads_after_wait with pipeline_wait_then_issue on and 2+ stages: the GEMM
// kernel, so naive attention's QK^T and P V too) starts that much after its slot is given, on top
// of block_overhead_ns: the kernel's prologue and accumulator epilogue, which change 87 timed at
// a fixed 2.3-2.9 us per block. Other launches do not pay it.
#include <catch2/catch.hpp>

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
    WorkloadSpec f;
    f.kernel = "attention-flash2";
    f.batch = 2;
    f.heads = 4;
    f.seq = 1024;
    f.head_dim = 64;
    f.tile_m = 64;
    f.tile_n = 64;
    f.stages = 2;
    f.warps = 4;
    auto fw = make_workload(f);
    INFO((fw ? std::string() : fw.error().message));
    REQUIRE(fw.ok());
    CHECK(duration(*fw, gpu(1, 2000)) == Approx(duration(*fw, gpu(1, 0))).epsilon(1e-12));
}

TEST_CASE("wait_then_issue_block_ns: optional, non-negative, fingerprinted", "[sim][change96]") {
    test::check_optional_field("wait_then_issue_block_ns", &Calibration::wait_then_issue_block_ns, 1000.0,
                               {"-1", "\"x\""});
}
