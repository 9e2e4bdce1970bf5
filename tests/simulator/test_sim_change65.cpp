// docs/validation change 65: two optional laws, off by default.
//  * Calibration::block_start_spread a: a block that replaces a retired one starts after
//    block_overhead_ns x (1 + a (2u - 1)), u in [0, 1) a hash of its index; the first wave starts
//    together, the mean wait is unchanged.
//  * Calibration::load_latency_queue_dram: the queueing term of the load latency
//    (load_latency_ns_per_tbps) counts the bytes in flight that missed in the L2 and lengthens a
//    miss's round trip only.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {

// One block per SM (1024 threads x 64 registers fill the register file), compute only, four
// waves on the test GPU's 132 SMs: nothing is shared, so a block takes its start wait + its work.
test::SimpleLaunch compute_waves() {
    test::SimpleLaunch s;
    s.blocks = 132 * 4;
    s.threads = 1024;
    s.regs = 64;
    s.iterations = 4;
    s.fp32_flops = 1e6;
    return s;
}

Hardware spread_gpu(double a) {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.block_overhead_ns = 1000;
    hw.calibration.block_start_spread = a;
    return hw;
}

std::vector<double> durations(const Prediction& p, bool first_wave) {
    std::vector<double> d;
    for (const BlockSpan& b : p.launches.at(0).timeline)
        if ((b.block < 132) == first_wave) d.push_back(b.end_ns - b.start_ns);
    return d;
}

}  // namespace

TEST_CASE("block start spread: the first wave starts together and later blocks spread about the same mean",
          "[sim][change65]") {
    const Launch launch = test::make_simple_launch(compute_waves());
    const Prediction p0 = test::run({launch}, spread_gpu(0));
    const Prediction p1 = test::run({launch}, spread_gpu(1));
    REQUIRE(p0.launches.at(0).timeline.size() == 528);
    REQUIRE(p1.launches.at(0).timeline.size() == 528);

    // Without the spread every block takes the same time.
    const auto all0 = durations(p0, false);
    const double work_and_wait = all0.front();
    for (double d : all0) CHECK(d == Approx(work_and_wait).epsilon(1e-12));
    const double work = work_and_wait - 1000;
    CHECK(work > 0);

    // With it, the first wave is unchanged...
    for (double d : durations(p1, true)) CHECK(d == Approx(work_and_wait).epsilon(1e-12));
    // ...and every later block waits between 0 and twice the overhead, 1000 ns on average.
    const auto later = durations(p1, false);
    REQUIRE(later.size() == 396);
    double sum = 0;
    for (double d : later) {
        CHECK(d - work >= -1e-6);
        CHECK(d - work <= 2000 + 1e-6);
        sum += d - work;
    }
    CHECK(sum / static_cast<double>(later.size()) == Approx(1000).epsilon(0.08));
    const auto [lo, hi] = std::minmax_element(later.begin(), later.end());
    CHECK(*hi - *lo > 1500);  // spread over most of [0, 2000]
    // The bytes and work are the same; the launch ends about when it did.
    CHECK(p1.total[Metric::flops_fp32] == p0.total[Metric::flops_fp32]);
    CHECK(p1.total[Metric::gpu_time_duration] == Approx(p0.total[Metric::gpu_time_duration]).epsilon(0.1));
    // Reproducible: the spread is a hash of the block index, not a random draw.
    CHECK(test::run({launch}, spread_gpu(1)).total[Metric::gpu_time_duration] ==
          p1.total[Metric::gpu_time_duration]);
}

TEST_CASE("block start spread: kept in the profile between 0 and 1 and absent from the fingerprint at 0", "[sim][change65]") {
    test::check_optional_field("block_start_spread", &Calibration::block_start_spread, 0.5, {"1.5", "-0.1"});
}

namespace {

Hardware queue_gpu(double c, bool dram_only) {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.load_latency_ns_per_tbps = c;
    hw.calibration.load_latency_queue_dram = dram_only ? 1.0 : 0.0;
    return hw;
}

double time_of(const Launch& l, const Hardware& hw) { return test::run({l}, hw).total[Metric::gpu_time_duration]; }

}  // namespace

TEST_CASE("DRAM-only queueing: L2 hits do not queue and misses queue as before", "[sim][change65]") {
    // Hits: the DRAM-only term leaves them at the L2 latency; the plain term lengthens them.
    const Launch hits = test::shared_reads(132 * 8);
    const double none = time_of(hits, queue_gpu(0, false));
    const double all = time_of(hits, queue_gpu(150, false));
    const double dram = time_of(hits, queue_gpu(150, true));
    CHECK(all > none * 1.05);
    CHECK(dram < all);
    CHECK(dram == Approx(none).epsilon(0.02));  // only the first touches miss

    // Misses: a lone block whose every load misses has the same bytes in flight either way.
    test::SimpleLaunch s;
    s.blocks = 1;
    s.threads = 128;
    s.iterations = 8;
    s.load_bytes = 4096;
    const Launch miss = test::make_simple_launch(s);
    CHECK(time_of(miss, queue_gpu(150, true)) == time_of(miss, queue_gpu(150, false)));
    CHECK(time_of(miss, queue_gpu(150, true)) > time_of(miss, queue_gpu(0, true)));
    // Without the queueing term the flag changes nothing.
    CHECK(time_of(hits, queue_gpu(0, true)) == none);
}

TEST_CASE("DRAM-only queueing: a 0 or 1 field kept in the profile and the fingerprint", "[sim][change65]") {
    test::check_optional_field("load_latency_queue_dram", &Calibration::load_latency_queue_dram, 1.0, {"2", "0.5"});
}
