// The L2 request coalescer (Calibration::lrc_in_step_one_block, lrc_in_step_several_blocks,
// lrc_lock_loss_per_iteration). Laws: off by default (no merged bytes, no coalescer output); a
// load that joins another block's request for the same region in flight merges p x exp(-loss i)
// of its bytes, exactly, and those bytes leave lts__t_bytes and nothing else; requests merge in
// pairs; private data never merges; with the L2 off nothing merges.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {

Hardware lrc_gpu(double one, double several, double loss) {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.lrc_in_step_one_block = one;
    hw.calibration.lrc_in_step_several_blocks = several;
    hw.calibration.lrc_lock_loss_per_iteration = loss;
    return hw;
}

// `blocks` blocks that each load 8 x 4 KiB, the same offsets (shared) or their own (private).
Launch reader(std::int64_t blocks, bool shared, int threads = 128) {
    test::SimpleLaunch s;
    s.blocks = blocks;
    s.threads = threads;
    s.iterations = 8;
    s.load_bytes = 4096;
    s.fp32_flops = 2e4;
    s.same_data = shared;
    return test::make_simple_launch(s);
}

double coalesced(const Prediction& p) {
    const auto& extra = p.launches.at(0).extra;
    const auto it = extra.find("l2_coalesced_bytes");
    return it == extra.end() ? -1.0 : it->second;
}

}  // namespace

TEST_CASE("without the coalescer fields nothing merges and nothing changes", "[sim][lrc]") {
    const Hardware off = lrc_gpu(0, 0, 0);
    const Prediction p = test::run({reader(2, true)}, off);
    CHECK(coalesced(p) == -1.0);  // not reported
    // The loss alone does not switch the model on.
    const Prediction q = test::run({reader(2, true)}, lrc_gpu(0, 0, 0.5));
    for (const Metric m : {Metric::gpu_time_duration, Metric::lts_t_bytes, Metric::dram_bytes_read})
        CHECK(q.total[m] == p.total[m]);
}

TEST_CASE("two blocks reading the same tiles in step: one of each pair merges p exp(-loss i)", "[sim][lrc]") {
    const Launch l = reader(2, true);
    const Prediction off = test::run({l}, lrc_gpu(0, 0, 0));
    for (const double p : {1.0, 0.3}) {
        for (const double loss : {0.0, 0.25}) {
            INFO("p = " << p << ", loss = " << loss);
            const Prediction on = test::run({l}, lrc_gpu(p, 0.9, loss));
            double expected = 0;
            for (int i = 0; i < 8; ++i) expected += 4096.0 * p * std::exp(-loss * i);
            CHECK(coalesced(on) == Approx(expected).epsilon(1e-12));
            // Merged requests never reach an L2 slice; HBM traffic is unchanged.
            CHECK(off.total[Metric::lts_t_bytes] - on.total[Metric::lts_t_bytes] == Approx(expected).epsilon(1e-12));
            CHECK(on.total[Metric::dram_bytes_read] == off.total[Metric::dram_bytes_read]);
            CHECK(on.total[Metric::dram_bytes_write] == off.total[Metric::dram_bytes_write]);
        }
    }
}

// Change 49: with lrc_block_distance D a join of two blocks d apart in launch order merges a
// further exp(-d / D); the two blocks of `reader(2, ...)` are neighbours (d = 1).
TEST_CASE("lrc_block_distance: a join of blocks d apart merges a further exp(-d / D)", "[sim][lrc][change49]") {
    const Launch l = reader(2, true);
    const Prediction plain = test::run({l}, lrc_gpu(1, 0.9, 0.25));
    REQUIRE(coalesced(plain) > 0);
    for (const double d : {0.5, 2.0, 8.0}) {
        Hardware hw = lrc_gpu(1, 0.9, 0.25);
        hw.calibration.lrc_block_distance = d;
        INFO("D = " << d);
        CHECK(coalesced(test::run({l}, hw)) == Approx(coalesced(plain) * std::exp(-1.0 / d)).epsilon(1e-12));
    }
    // Many blocks in step: the farther the partners may be, the less merges; 0 = no factor.
    const Launch many = reader(132, true);
    double last = coalesced(test::run({many}, lrc_gpu(1, 1, 0)));
    for (const double d : {64.0, 8.0, 1.0}) {
        Hardware hw = lrc_gpu(1, 1, 0);
        hw.calibration.lrc_block_distance = d;
        const double now = coalesced(test::run({many}, hw));
        CHECK(now < last);
        last = now;
    }
}

TEST_CASE("requests merge in pairs: of many blocks in step at most half merge", "[sim][lrc]") {
    const Launch l = reader(132, true);  // one block per SM, all reading the same tiles
    const Prediction on = test::run({l}, lrc_gpu(1, 1, 0));
    const double requested = 132.0 * 8 * 4096;
    CHECK(coalesced(on) <= 0.5 * requested);
    CHECK(coalesced(on) >= 0.4 * requested);
}

TEST_CASE("blocks reading their own data never merge", "[sim][lrc]") {
    const Launch l = reader(264, false);
    const Prediction off = test::run({l}, lrc_gpu(0, 0, 0));
    const Prediction on = test::run({l}, lrc_gpu(1, 1, 0));
    CHECK(coalesced(on) == 0.0);
    CHECK(on.total[Metric::lts_t_bytes] == off.total[Metric::lts_t_bytes]);
    CHECK(on.total[Metric::gpu_time_duration] == off.total[Metric::gpu_time_duration]);
}

TEST_CASE("several blocks per SM use lrc_in_step_several_blocks", "[sim][lrc]") {
    // 2 x 132 x 4 blocks of 64 threads: several resident per SM.
    const Launch l = reader(1056, true, 64);
    const Prediction one = test::run({l}, lrc_gpu(1, 0.5, 0));
    const Prediction other = test::run({l}, lrc_gpu(0.2, 0.5, 0));
    CHECK(one.launches.at(0).facts.blocks_per_sm > 1);
    CHECK(coalesced(one) > 0);
    CHECK(coalesced(other) == coalesced(one));  // p for one block per SM plays no part
    const Prediction half = test::run({l}, lrc_gpu(1, 0.25, 0));
    CHECK(coalesced(half) == Approx(0.5 * coalesced(one)).epsilon(1e-12));
}

TEST_CASE("with the L2 off the coalescer merges nothing", "[sim][lrc]") {
    sim::Options o;
    o.l2 = false;
    const Launch l = reader(2, true);
    auto on = sim::simulate(test::test_workload(), {l}, lrc_gpu(1, 1, 0), o);
    auto off = sim::simulate(test::test_workload(), {l}, lrc_gpu(0, 0, 0), o);
    REQUIRE(on.ok());
    REQUIRE(off.ok());
    CHECK(on->total[Metric::lts_t_bytes] == off->total[Metric::lts_t_bytes]);
    CHECK(on->launches.at(0).extra.count("l2_coalesced_bytes") == 0);
}

TEST_CASE("coalescer fields round-trip through a profile and are range-checked", "[sim][lrc][profile]") {
    Hardware hw = lrc_gpu(0, 0, 0);
    CHECK(hardware_to_json(hw).find("lrc_") == std::string::npos);  // optional: not written at 0
    hw.calibration.lrc_in_step_one_block = 1.0;
    hw.calibration.lrc_in_step_several_blocks = 0.52;
    hw.calibration.lrc_lock_loss_per_iteration = 0.014;
    const std::string text = hardware_to_json(hw);
    auto back = parse_hardware(text, "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.lrc_in_step_one_block == 1.0);
    CHECK(back->calibration.lrc_in_step_several_blocks == 0.52);
    CHECK(back->calibration.lrc_lock_loss_per_iteration == 0.014);
    for (const auto& [field, bad_value] : {std::pair{"lrc_in_step_one_block", "1.5"},
                                           std::pair{"lrc_in_step_several_blocks", "-0.1"},
                                           std::pair{"lrc_lock_loss_per_iteration", "-1"}}) {
        std::string bad = text;
        const std::string key = std::string("\"") + field + "\":";
        const auto at = bad.find(key);
        REQUIRE(at != std::string::npos);
        const auto end = bad.find_first_of(",}", at);
        bad.replace(at, end - at, key + bad_value);
        auto r = parse_hardware(bad, "test");
        INFO(field);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find(field) != std::string::npos);
    }
    // A hand-built profile out of range is refused by the simulator, naming the field.
    hw.calibration.lrc_in_step_one_block = 2;
    auto bad = sim::simulate(test::test_workload(), {reader(2, true)}, hw, sim::Options{});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("lrc_in_step_one_block") != std::string::npos);
}
