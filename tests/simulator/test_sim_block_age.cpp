// How an SM shares its pipes among its resident blocks (simulator/launch_engine.cpp start_comp,
// simulator/ps_server.hpp per-job mode): a block alone on an SM has every pipe to itself
// (the warp model's per-block cap bounds only its warps' work), and with
// Calibration::block_age_weight < 1 older blocks get more of the SM, so identical blocks that
// start together no longer finish together and a last, partial wave spreads over the SMs
// (bench/results/h100_tail_series_2026-11-25.jsonl).
#include <catch2/catch.hpp>

#include <set>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;
using tilescope::test::make_simple_launch;
using tilescope::test::SimpleLaunch;

namespace {

double duration(const Launch& l, const Hardware& hw) {
    return test::run({l}, hw).total[Metric::gpu_time_duration];
}

// Two blocks per SM (by registers) of pure FP32 work, `extra` blocks past the first full wave.
Launch two_per_sm(std::int64_t extra) {
    SimpleLaunch s;
    s.blocks = 264 + extra;
    s.threads = 512;
    s.regs = 64;
    s.fp32_flops = 1e6;
    s.iterations = 4;
    return make_simple_launch(s);
}

}  // namespace

TEST_CASE("block age: a tail spreads over the SMs only when older blocks are favoured", "[sim][block_age]") {
    Hardware hw = test::test_gpu();
    const double block_ns = 4e6 / (hw.fp32_flops_per_s / 132) * 1e9;  // alone on an SM
    for (const double weight : {1.0, 0.5}) {
        hw.calibration.block_age_weight = weight;
        const Prediction p = test::run({two_per_sm(66)}, hw);
        const LaunchResult& l = p.launches[0];
        REQUIRE(l.timeline.size() == 330);
        std::set<int> tail_sms;
        for (const BlockSpan& b : l.timeline) {
            if (b.block >= 264) tail_sms.insert(b.sm);
        }
        INFO("block_age_weight " << weight);
        if (weight == 1.0) {
            // Fair sharing: the two blocks of every SM finish together at 2 x block_ns, and the
            // 66 tail blocks fill both slots of 33 SMs: another 2 x block_ns.
            CHECK(tail_sms.size() == 33);
            CHECK(l.metrics[Metric::gpu_time_duration] == Approx(4 * block_ns).epsilon(1e-6));
        } else {
            // Shares 2/3 and 1/3: the older block of every SM finishes first, at 1.5 x block_ns
            // (the younger has done half its work), so the first 132 slots to free are one per
            // SM and the tail takes one each. The younger old block, now the older, gets 2/3 and
            // ends at 2.25 x block_ns; the tail block has done a quarter by then and the rest
            // alone: done at 3 x block_ns (fair sharing: 4).
            CHECK(tail_sms.size() == 66);
            CHECK(l.metrics[Metric::gpu_time_duration] == Approx(3 * block_ns).epsilon(1e-6));
        }
        // Whatever the weight, a full wave's work is the same: two blocks per SM take 2 x block_ns.
        CHECK(duration(two_per_sm(0), hw) == Approx(2 * block_ns).epsilon(1e-6));
    }
}

TEST_CASE("block age: a pipe-bound block alone on an SM runs at the pipes' full rate", "[sim][block_age]") {
    // Warp model on with fast warps (the tensor pipe binds, not the warps' serial time); eight
    // blocks of 8 warps per SM. The first block of every SM runs `long_its` iterations, the other
    // seven `short_its`: fair sharing gives each 1/8 of the SM until the seven finish at
    // 8 x short_its x p (p: one iteration at the full tensor rate), then the long block is alone
    // and runs at the full rate: done at (8 x short_its + long_its - short_its) x p. Before
    // change 20 its whole job was capped at the warp model's job_cap ((k / k_b)^(1-g) / B =
    // 8^0.5 / 8 = 0.35 here), so its lone iterations took p / 0.35.
    Hardware hw = test::quiet_gpu();
    hw.calibration.tensor_flops_per_cycle_per_warp = 4096;
    hw.calibration.warp_overlap_exponent = 0.5;
    const double flops = 4e7;
    const std::int64_t long_its = 12, short_its = 4;
    Launch l;
    l.name = "lone";
    l.grid_x = 8 * 132;
    l.threads_per_block = 256;
    l.registers_per_thread = 32;
    l.work_items = l.grid_x;
    l.buffers = {Buffer{"X", 1, false}};
    l.counts.flops_tensor = flops * static_cast<double>(132 * long_its + 7 * 132 * short_its);
    l.program = [=](std::int64_t block, std::vector<Step>& out) {
        const std::int64_t its = block < 132 ? long_its : short_its;
        for (std::int64_t it = 0; it < its; ++it) {
            Step c;
            c.kind = StepKind::compute;
            c.unit = Unit::tensor;
            c.iteration = static_cast<std::int32_t>(it);
            c.amount = flops;
            out.push_back(c);
        }
    };
    const Prediction p = test::run({l}, hw);
    REQUIRE(p.launches[0].facts.blocks_per_sm == 8);
    const double it_ns = flops / (hw.tensor_fp16_flops_per_s / 132) * 1e9;
    for (const BlockSpan& b : p.launches[0].timeline) {
        if (b.block < 132) CHECK(b.end_ns == Approx((8 * short_its + long_its - short_its) * it_ns).epsilon(1e-6));
        else CHECK(b.end_ns == Approx(8 * short_its * it_ns).epsilon(1e-6));
    }
}

TEST_CASE("block age: the weight must be in (0, 1]", "[sim][block_age]") {
    Hardware hw = test::test_gpu();
    for (const double bad : {0.0, -0.5, 1.5}) {
        hw.calibration.block_age_weight = bad;
        auto p = sim::simulate(test::test_workload(), {two_per_sm(0)}, hw, sim::Options{});
        REQUIRE_FALSE(p.ok());
        CHECK(p.error().message.find("block_age_weight") != std::string::npos);
    }
}
