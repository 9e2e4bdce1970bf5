// Calibration::block_dispatch_ns: an SM starts at most one block per block_dispatch_ns. Laws: off
// (0) changes nothing; waves of blocks that do almost nothing take blocks-per-SM x dispatch; a lone
// block starts one dispatch later. (Blocks of a wave no longer start in lock-step, which can make
// a launch of long blocks faster: their loads and compute interleave.)
#include <catch2/catch.hpp>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {
Hardware dispatch_gpu(double ns) {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.block_dispatch_ns = ns;
    return hw;
}
Launch tiny_blocks(std::int64_t blocks, int threads) {
    test::SimpleLaunch s;
    s.blocks = blocks;
    s.threads = threads;
    s.fp32_flops = 64;  // next to nothing
    return test::make_simple_launch(s);
}
double time_of(const Launch& l, const Hardware& hw) { return test::run({l}, hw).total[Metric::gpu_time_duration]; }
}  // namespace

TEST_CASE("block dispatch: off changes nothing", "[sim][dispatch]") {
    const Launch l = tiny_blocks(132 * 32 * 4, 32);
    CHECK(time_of(l, dispatch_gpu(0)) == time_of(l, test::test_gpu()));
}

TEST_CASE("block dispatch: short blocks, 32 per SM, take blocks per SM x dispatch", "[sim][dispatch]") {
    const double d = 80;
    const std::int64_t per_sm = 32 * 4;  // 4 full waves of 32 one-warp blocks on 132 SMs
    const Launch l = tiny_blocks(132 * per_sm, 32);
    const double off = time_of(l, dispatch_gpu(0));
    const double on = time_of(l, dispatch_gpu(d));
    CHECK(on >= static_cast<double>(per_sm) * d);
    CHECK(on - off >= static_cast<double>(per_sm) * d * 0.9);
}

TEST_CASE("block dispatch: a lone block starts one dispatch later", "[sim][dispatch]") {
    test::SimpleLaunch s;
    s.blocks = 1;
    s.threads = 256;
    s.iterations = 4;
    s.load_bytes = 1 << 14;
    s.fp32_flops = 1e6;
    const Launch l = test::make_simple_launch(s);
    const double d = 80;
    CHECK(time_of(l, dispatch_gpu(d)) - time_of(l, dispatch_gpu(0)) == Approx(d).epsilon(1e-9));
}
