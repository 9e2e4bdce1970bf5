// docs/validation change 81: an L2 hit's round trip grows with the load traffic too, at its own
// slope, under the DRAM-only queueing of change 65 (both optional, off by default).
//  * Calibration::load_latency_queue_l2_hits: 0 a hit's round trip does not grow; 1 it grows with
//    every load byte in flight; 2 with the hits' bytes in flight only.
//  * Calibration::load_latency_l2_hit_ns_per_tbps: the hits' slope (0: load_latency_ns_per_tbps).
//  * Calibration::load_latency_queue_shared_path: a miss grows at the hits' slope with every byte
//    in flight and at the rest of its slope with the bytes that missed.
#include <catch2/catch.hpp>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {

// Each block reads its own bytes: every load misses.
Launch own_reads(std::int64_t blocks) {
    test::SimpleLaunch s;
    s.blocks = blocks;
    s.threads = 128;
    s.iterations = 8;
    s.load_bytes = 4096;
    return test::make_simple_launch(s);
}

Hardware hit_gpu(double hits, double hit_slope, double dram_only = 1.0, double shared = 0.0) {
    Hardware hw = test::test_gpu();
    hw.calibration.load_latency_queue_shared_path = shared;
    hw.calibration.calibrated = true;
    hw.calibration.load_latency_ns_per_tbps = 150;
    hw.calibration.load_latency_queue_dram = dram_only;
    hw.calibration.load_latency_queue_l2_hits = hits;
    hw.calibration.load_latency_l2_hit_ns_per_tbps = hit_slope;
    return hw;
}

double time_of(const Launch& l, const Hardware& hw) { return test::run({l}, hw).total[Metric::gpu_time_duration]; }

}  // namespace

TEST_CASE("L2 hit queueing: hits queue at their own slope, between none and the plain term", "[sim][change81]") {
    const Launch hits = test::shared_reads(132 * 8);
    const double none = time_of(hits, hit_gpu(0, 0));      // change 65: hits do not queue
    const double at43 = time_of(hits, hit_gpu(1, 43));
    const double at150 = time_of(hits, hit_gpu(1, 0));     // the hits' slope defaults to the misses'
    const double plain = time_of(hits, hit_gpu(0, 0, 0.0));  // change 28: every load queues at 150
    CHECK(at43 > none * 1.01);
    CHECK(at150 > at43 * 1.01);
    CHECK(at150 == Approx(plain).epsilon(0.02));  // all hits: both forms count the same bytes
    // A slope given without the flag changes nothing.
    CHECK(time_of(hits, hit_gpu(0, 43)) == none);
    // With only hits in flight, counting all bytes or the hits' gives the same round trips, nearly.
    CHECK(time_of(hits, hit_gpu(2, 43)) == Approx(at43).epsilon(0.02));
}

TEST_CASE("L2 hit queueing: misses keep the DRAM-only term", "[sim][change81]") {
    const Launch miss = own_reads(132);
    const double dram_only = time_of(miss, hit_gpu(0, 0));
    CHECK(time_of(miss, hit_gpu(1, 43)) == Approx(dram_only).epsilon(1e-9));
    CHECK(time_of(miss, hit_gpu(2, 43)) == Approx(dram_only).epsilon(1e-9));
}

TEST_CASE("L2 hit queueing, shared path: all-miss and all-hit traffic keep their own slopes", "[sim][change81]") {
    // Every load misses: the bytes in flight are all misses, so the shared path's two parts add up
    // to the misses' slope.
    const Launch miss = own_reads(132);
    const double miss_apart = time_of(miss, hit_gpu(1, 43));
    CHECK(time_of(miss, hit_gpu(1, 43, 1.0, 1.0)) == Approx(miss_apart).epsilon(1e-6));
    CHECK(miss_apart > time_of(miss, hit_gpu(1, 43, 1.0, 0.0)) * 0.999);
    // Only hits after the first touches: the few misses see the hits' bytes too, so the launch is
    // no faster, and nearly the same.
    const Launch hits = test::shared_reads(132 * 8);
    const double apart = time_of(hits, hit_gpu(1, 43));
    const double shared = time_of(hits, hit_gpu(1, 43, 1.0, 1.0));
    CHECK(shared >= apart * (1 - 1e-9));
    CHECK(shared == Approx(apart).epsilon(0.02));
}

TEST_CASE("L2 hit queueing: the flags without what they need are refused by name", "[sim][change81]") {
    // Without load_latency_queue_dram every load already queues (change 28's plain term), so the
    // hits' flag would mean nothing: an error naming both fields, not a silent no-op.
    const Launch hits = test::shared_reads(132 * 8);
    auto r = sim::simulate(test::test_workload(), {hits}, hit_gpu(1, 43, 0.0), sim::Options{});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("load_latency_queue_l2_hits") != std::string::npos);
    CHECK(r.error().message.find("load_latency_queue_dram") != std::string::npos);
    // The shared path needs the hits to queue with every byte (mode 1).
    for (const double mode : {0.0, 2.0}) {
        auto s = sim::simulate(test::test_workload(), {hits}, hit_gpu(mode, 43, 1.0, 1.0), sim::Options{});
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().message.find("load_latency_queue_shared_path") != std::string::npos);
    }
}

TEST_CASE("L2 hit queueing: fields kept in the profile and the fingerprint, refused out of range", "[sim][change81]") {
    test::check_optional_field("load_latency_queue_l2_hits", &Calibration::load_latency_queue_l2_hits, 1.0,
                               {"3", "0.5", "-1"});
    test::check_optional_field("load_latency_l2_hit_ns_per_tbps", &Calibration::load_latency_l2_hit_ns_per_tbps, 43.0,
                               {"-1"});
    test::check_optional_field("load_latency_queue_shared_path", &Calibration::load_latency_queue_shared_path, 1.0,
                               {"2", "0.5"});
}
