// The warp model (Calibration::warp_iteration_ns, warp_load_issue_ns_per_byte,
// warp_smem_read_ns_per_byte, warp_op_ns, warp_overlap_exponent; simulator/launch_engine.cpp
// WarpModel): an iteration of a block takes at least one warp's serial issue time
//   t_issue = tensor / warps / per-warp rate + issue x load bytes / threads
//             + smem_read x shared-memory bytes read / warps + op x (FP32 + SFU ops) / threads,
// stretched by k^(1 - exponent) for k resident warps per SM sub-partition, plus the block's
// fixed wait warp_iteration_ns (barriers, cp.async wait). The wait comes before the iteration's
// work, which then joins the SM's shared server: other blocks' work fills a block's wait, but
// blocks that start together stay in step, so B of them take wait + B x work per iteration
// (measured on the H100 for a one-wave GEMM, docs/validation change 17).
#include <catch2/catch.hpp>

#include <array>
#include <functional>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {

Prediction run(const Launch& l, const Hardware& hw) { return test::run({l}, hw); }

// Adds, after every tensor step, a shared-memory read of `smem_read` bytes and `fp32` FP32
// operations (block-wide amounts) to the same iteration.
Launch with_smem_and_ops(Launch l, double smem_read, double fp32) {
    auto base = l.program;
    l.program = [base, smem_read, fp32](std::int64_t block, std::vector<Step>& out) {
        base(block, out);
        std::vector<Step> with;
        for (const Step& st : out) {
            with.push_back(st);
            if (st.kind != StepKind::compute || st.unit != Unit::tensor) continue;
            Step r;
            r.kind = StepKind::smem_read;
            r.iteration = st.iteration;
            r.amount = smem_read;
            with.push_back(r);
            Step c;
            c.kind = StepKind::compute;
            c.unit = Unit::fp32;
            c.iteration = st.iteration;
            c.amount = fp32;
            with.push_back(c);
        }
        out = std::move(with);
    };
    return l;
}

double duration(const Launch& l, const Hardware& hw) { return run(l, hw).total[Metric::gpu_time_duration]; }

// No latencies, no overheads: a block's time is its compute (and the tiny load and store).
Hardware quiet_gpu() {
    Hardware hw = test::test_gpu();
    hw.hbm_latency_ns = hw.l2_latency_ns = 0;
    hw.calibration.calibrated = true;
    return hw;
}

// A 0-or-1 field of the warp model's power-law form (`name`, at `field`): absent from a profile
// that leaves it 0, fingerprinted and round-tripped when 1, on its own enough to turn the warp
// model on, 0.5 refused, and refused (by the parser and the simulator, naming it) beside the
// issue or queue form.
void check_power_law_flag(double Calibration::*field, const std::string& name) {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.warp_iteration_ns = 250;
    CHECK(hardware_to_json(hw).find(name) == std::string::npos);
    const std::string before = profile_fingerprint(hw);
    hw.calibration.*field = 1;
    CHECK(profile_fingerprint(hw) != before);
    auto back = parse_hardware(hardware_to_json(hw), "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.*field == 1);
    Calibration only;
    only.*field = 1;
    CHECK(only.warp_model());

    auto half = parse_hardware(test::with_field(hardware_to_json(hw), name, "0.5"), "test");
    REQUIRE_FALSE(half.ok());
    CHECK(half.error().message.find(name) != std::string::npos);
    hw.calibration.warp_overlap_exponent = 1;
    for (double Calibration::*form : {&Calibration::warp_issue_model, &Calibration::warp_queue_model}) {
        Hardware f = hw;
        f.calibration.*form = 1;
        auto parsed = parse_hardware(hardware_to_json(f), "test");
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.error().message.find(name) != std::string::npos);
        auto r = sim::simulate(test::test_workload(), {test::tensor_launch(1, 64, 1e3)}, f, sim::Options{});
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find(name) != std::string::npos);
    }
}

// A non-negative amount of the warp model's power-law form (`name`, at `field`, set to `value`):
// absent from a profile that leaves it 0, fingerprinted and round-tripped when set, on its own
// enough to turn the warp model on, a negative value refused (by the parser and the simulator,
// naming it), and refused by the simulator beside the issue or queue form.
void check_power_law_amount(double Calibration::*field, const std::string& name, double value) {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.warp_iteration_ns = 250;
    CHECK(hardware_to_json(hw).find(name) == std::string::npos);
    const std::string before = profile_fingerprint(hw);
    hw.calibration.*field = value;
    CHECK(profile_fingerprint(hw) != before);
    auto back = parse_hardware(hardware_to_json(hw), "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.*field == value);
    Calibration only;
    only.*field = value;
    CHECK(only.warp_model());

    auto neg_json = parse_hardware(test::with_field(hardware_to_json(hw), name, "-1"), "test");
    REQUIRE_FALSE(neg_json.ok());
    CHECK(neg_json.error().message.find(name) != std::string::npos);
    Hardware neg_hw = hw;
    neg_hw.calibration.*field = -0.5;
    auto neg = sim::simulate(test::test_workload(), {test::tensor_launch(1, 64, 1e3)}, neg_hw, sim::Options{});
    REQUIRE_FALSE(neg.ok());
    CHECK(neg.error().message.find(name) != std::string::npos);
    hw.calibration.warp_overlap_exponent = 1;
    for (double Calibration::*form : {&Calibration::warp_issue_model, &Calibration::warp_queue_model}) {
        Hardware f = hw;
        f.calibration.*form = 1;
        auto r = sim::simulate(test::test_workload(), {test::tensor_launch(1, 64, 1e3)}, f, sim::Options{});
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find(name + " needs the power-law warp model") != std::string::npos);
    }
}

}  // namespace

TEST_CASE("warp model: the defaults leave it off", "[sim][warp_model]") {
    const Calibration c;
    CHECK_FALSE(c.warp_model());
    Calibration on = c;
    on.warp_overlap_exponent = 0.5;
    CHECK(on.warp_model());
}

TEST_CASE("warp model: a serial-bound block takes iterations x (t_issue x k^(1-g) + wait)", "[sim][warp_model]") {
    Hardware hw = quiet_gpu();
    // Tensor FLOP per iteration of a block, each with a 4 KiB load: the compute is ~300x the
    // load's bandwidth time, so the loads shift the totals by well under the 1% tolerance.
    const double flops = 4e7;
    const std::int64_t iters = 4;
    hw.calibration.tensor_flops_per_cycle_per_warp = 64;  // slow warps: serial time binds
    hw.calibration.warp_iteration_ns = 300;
    hw.calibration.warp_load_issue_ns_per_byte = 0.5;
    hw.calibration.warp_overlap_exponent = 0.5;
    const double per_warp_flops_per_ns = 64 * hw.sm_clock_hz * 1e-9;

    // 132 blocks of 8 warps: one per SM, 4 sub-partitions -> k = k_b = 2.
    const Launch one = test::tensor_launch(132, 256, flops, iters);
    const double t_issue8 = flops / 8 / per_warp_flops_per_ns + 0.5 * 4096.0 / 256;
    const double t1 = duration(one, hw);
    CHECK(t1 == Approx(iters * (t_issue8 * std::sqrt(2.0) + 300)).epsilon(0.01));

    // 132 blocks of 2 warps: one per SM, k = k_b = 1 (two sub-partitions idle): no stretch.
    const Launch narrow = test::tensor_launch(132, 64, flops, iters);
    const double t_issue2 = flops / 2 / per_warp_flops_per_ns + 0.5 * 4096.0 / 64;
    CHECK(duration(narrow, hw) == Approx(iters * (t_issue2 + 300)).epsilon(0.01));

    // Four times the 8-warp blocks: 4 resident per SM, k = 8. Each block's iterations stretch by
    // (8 / 2)^(1/2) = 2 relative to a block alone, and the four run side by side; their 300 ns
    // waits hide behind each other's work.
    const Launch four = test::tensor_launch(4 * 132, 256, flops, iters);
    CHECK(duration(four, hw) == Approx(2.0 * iters * t_issue8 * std::sqrt(2.0)).epsilon(0.01));

    // Exponent 1 (perfect overlap): the four blocks cost no more than one (but their 4x loads).
    hw.calibration.warp_overlap_exponent = 1.0;
    CHECK(duration(four, hw) == Approx(duration(one, hw)).epsilon(0.02));
}

TEST_CASE("warp model: shared-memory reads per warp and scalar ops per thread add exactly their serial time",
          "[sim][warp_model]") {
    Hardware hw = quiet_gpu();
    const double flops = 4e7;
    const std::int64_t iters = 4;
    hw.calibration.tensor_flops_per_cycle_per_warp = 64;
    hw.calibration.warp_iteration_ns = 300;
    hw.calibration.warp_overlap_exponent = 0.5;
    const double per_warp_flops_per_ns = 64 * hw.sm_clock_hz * 1e-9;
    // 132 blocks of 8 warps (k = 2): 64 KiB of fragments read per iteration (8 KiB per warp) and
    // 100 FP32 operations per thread; the smem and FP32 pipes need well under 1% of the serial time.
    const Launch l = with_smem_and_ops(test::tensor_launch(132, 256, flops, iters), 65536.0, 256.0 * 100);
    const double t_issue = flops / 8 / per_warp_flops_per_ns;
    CHECK(duration(l, hw) == Approx(iters * (t_issue * std::sqrt(2.0) + 300)).epsilon(0.01));
    // Off (0, the default) they change nothing: the same as the launch without the extra steps.
    const Launch plain = test::tensor_launch(132, 256, flops, iters);
    CHECK(duration(l, hw) == Approx(duration(plain, hw)).epsilon(0.005));

    hw.calibration.warp_smem_read_ns_per_byte = 0.5;  // 8 KiB per warp: +4096 ns
    CHECK(duration(l, hw) == Approx(iters * ((t_issue + 4096) * std::sqrt(2.0) + 300)).epsilon(0.01));
    hw.calibration.warp_op_ns = 2;                    // 100 ops per thread: +200 ns
    CHECK(duration(l, hw) == Approx(iters * ((t_issue + 4096 + 200) * std::sqrt(2.0) + 300)).epsilon(0.01));
    // Per warp, not per block: with twice the warps (same block-wide amounts) each warp reads
    // and computes half as much.
    const Launch wide = with_smem_and_ops(test::tensor_launch(132, 512, flops, iters), 65536.0, 256.0 * 100);
    const double t_issue16 = flops / 16 / per_warp_flops_per_ns + 2048 + 100;
    CHECK(duration(wide, hw) == Approx(iters * (t_issue16 * std::pow(4.0, 0.5) + 300)).epsilon(0.01));
    // Either alone switches the warp model on.
    Calibration c;
    c.warp_op_ns = 1;
    CHECK(c.warp_model());
    c = Calibration{};
    c.warp_smem_read_ns_per_byte = 1;
    CHECK(c.warp_model());
}

TEST_CASE("warp model: pipe throughput still bounds a block with many fast warps", "[sim][warp_model]") {
    Hardware hw = quiet_gpu();
    const double flops = 64e6;
    const Launch l = test::tensor_launch(132, 1024, flops, 1);  // 32 warps per SM
    const double t_off = duration(l, hw);
    hw.calibration.tensor_flops_per_cycle_per_warp = 1e6;  // warps never the limit
    hw.calibration.warp_iteration_ns = 1;
    hw.calibration.warp_overlap_exponent = 0.9;
    // One block per SM and one iteration: only its 1 ns wait comes on top of the pipe time.
    CHECK(duration(l, hw) == Approx(t_off + 1).epsilon(1e-9));
}

TEST_CASE("warp model: each term adds time, blocks in step each pay the wait, more warps never speed a block up",
          "[sim][warp_model]") {
    Hardware hw = quiet_gpu();
    hw.calibration.tensor_flops_per_cycle_per_warp = 128;
    hw.calibration.warp_overlap_exponent = 0.6;
    const Launch l = test::tensor_launch(264, 128, 2e6, 8);  // 2 blocks per SM
    const Launch alone = test::tensor_launch(132, 128, 2e6, 8);  // 1 block per SM
    const double base = duration(l, hw), base_alone = duration(alone, hw);
    Hardware more = hw;
    more.calibration.warp_iteration_ns = 200;
    // A block alone on its SM waits 200 ns per iteration. Two blocks that start together wait
    // together, then share the SM for their work: they stay in step and pay the wait too (the
    // form before 2026-11-25 served the work during the wait and hid it: with_iteration == base).
    CHECK(duration(alone, more) == Approx(base_alone + 8 * 200).epsilon(1e-6));
    const double with_iteration = duration(l, more);
    CHECK(with_iteration == Approx(base + 8 * 200).epsilon(1e-6));
    more.calibration.warp_load_issue_ns_per_byte = 1;
    const double with_issue = duration(l, more);
    CHECK(with_issue > with_iteration);
    // Per block, a wider resident set costs at least as much per iteration: the whole grid of
    // twice the blocks takes between 1x and 2x the time.
    const Launch twice = test::tensor_launch(528, 128, 2e6, 8);
    const double t2 = duration(twice, more);
    CHECK(t2 >= with_issue);
    CHECK(t2 <= 2.0 * with_issue * 1.001);
}

TEST_CASE("warp model: profile fields are optional, round-trip, and are range-checked",
          "[sim][warp_model][profile]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    const std::string without = hardware_to_json(hw);
    CHECK(without.find("warp_iteration_ns") == std::string::npos);
    CHECK(without.find("warp_overlap_exponent") == std::string::npos);
    hw.calibration.warp_iteration_ns = 250;
    hw.calibration.warp_load_issue_ns_per_byte = 0.75;
    hw.calibration.warp_overlap_exponent = 0.4;
    auto back = parse_hardware(hardware_to_json(hw), "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.warp_iteration_ns == 250);
    CHECK(back->calibration.warp_load_issue_ns_per_byte == 0.75);
    CHECK(back->calibration.warp_overlap_exponent == 0.4);

    auto bad = parse_hardware(test::with_field(hardware_to_json(hw), "warp_overlap_exponent", "1.5"), "test");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("warp_overlap_exponent") != std::string::npos);

    hw.calibration.warp_smem_read_ns_per_byte = 0.0625;
    hw.calibration.warp_op_ns = 0.375;
    back = parse_hardware(hardware_to_json(hw), "test");
    REQUIRE(back.ok());
    CHECK(back->calibration.warp_smem_read_ns_per_byte == 0.0625);
    CHECK(back->calibration.warp_op_ns == 0.375);
    hw.calibration.warp_op_ns = -0.5;
    auto neg_op = sim::simulate(test::test_workload(), {test::tensor_launch(1, 64, 1e3)}, hw, sim::Options{});
    REQUIRE_FALSE(neg_op.ok());
    CHECK(neg_op.error().message.find("warp_op_ns") != std::string::npos);
    hw.calibration.warp_op_ns = 0;

    hw.calibration.warp_iteration_ns = -1;
    auto neg = sim::simulate(test::test_workload(), {test::tensor_launch(1, 64, 1e3)}, hw, sim::Options{});
    REQUIRE_FALSE(neg.ok());
    CHECK(neg.error().message.find("warp_iteration_ns") != std::string::npos);
}

TEST_CASE("warp model: a one-wave grid of B blocks per SM takes wait + B x work per iteration",
          "[sim][warp_model]") {
    // The law behind change 17 (H100, GEMM 64 x 64: 537, 667, 797 ns per iteration for 1, 2, 3
    // blocks per SM). Pipe-bound work (a per-warp rate that never binds), 16 iterations, the same
    // blocks on 132 SMs with 1, 2 and 3 of them per SM: each extra block per SM adds its work to
    // every iteration, and the wait is paid once per iteration whatever B is.
    Hardware hw = quiet_gpu();
    const double flops = 8e6;
    const std::int64_t iterations = 16;
    hw.calibration.tensor_flops_per_cycle_per_warp = 1e6;
    hw.calibration.warp_overlap_exponent = 0.9;
    std::array<double, 3> no_wait{}, with_wait{};
    for (int b = 1; b <= 3; ++b) {
        const Launch l = test::tensor_launch(132 * b, 256, flops, iterations);
        no_wait[b - 1] = duration(l, hw);
        Hardware w = hw;
        w.calibration.warp_iteration_ns = 300;
        with_wait[b - 1] = duration(l, w);
    }
    const double work = (no_wait[2] - no_wait[0]) / 2.0 / iterations;  // per block and iteration
    REQUIRE(work > 0);
    for (int b = 0; b < 3; ++b) CHECK(with_wait[b] == Approx(no_wait[b] + iterations * 300.0).epsilon(1e-6));
    CHECK(with_wait[1] - with_wait[0] == Approx(iterations * work).epsilon(0.02));
    CHECK(with_wait[2] - with_wait[1] == Approx(iterations * work).epsilon(0.02));
}

// The issue form (Calibration::warp_issue_model = 1, docs/validation change 23): one warp's
// iteration splits into issue I (load issue + shared-memory reads + scalar ops, queued behind the
// other k - 1 warps of its sub-partition) and latency L (its mma chain + warp_iteration_ns,
// overlapped by their issue); the B blocks of an SM finish an iteration together in k I + L.
namespace {

// The issue and queue forms' tests share this GPU: 64 FLOP per cycle per warp, 300 ns fixed, 400
// ns per loaded byte per thread (4 KiB per block and iteration), with `form` (a flag) set.
Hardware form_gpu(double Calibration::*form) {
    Hardware hw = quiet_gpu();
    hw.calibration.*form = 1;
    hw.calibration.tensor_flops_per_cycle_per_warp = 64;
    hw.calibration.warp_iteration_ns = 300;
    hw.calibration.warp_load_issue_ns_per_byte = 400;
    return hw;
}

Hardware issue_gpu() { return form_gpu(&Calibration::warp_issue_model); }

// The terms of form_gpu() for blocks of `warps` warps doing `flops` tensor FLOP per iteration:
// a warp's mma chain (its share of the FLOP at 64 FLOP per cycle), its latency L (the chain +
// warp_iteration_ns) and its issue I (400 ns per byte x 4096 B over the block's threads).
struct FormTerms {
    double chain, L, I;
};
FormTerms form_terms(const Hardware& hw, double flops, int warps) {
    const double per_warp_flops_per_ns = 64 * hw.sm_clock_hz * 1e-9;
    const double chain = flops / warps / per_warp_flops_per_ns;
    return {chain, chain + 300, 400.0 * 4096 / (32 * warps)};
}

}  // namespace

TEST_CASE("warp model, issue form: B blocks per SM take iterations x (k I + L)", "[sim][warp_model][issue]") {
    Hardware hw = issue_gpu();
    const double flops = 4e7;  // per block and iteration; the SM's tensor pipe needs 5.3 us of it
    const std::int64_t iters = 4;
    // 8 warps per block, 4 sub-partitions: k = 2 B. I = 400 ns/B x 4096 B / 256 threads.
    const auto [chain, L, I] = form_terms(hw, flops, 8);
    for (int b = 1; b <= 3; ++b) {
        INFO("blocks per SM " << b);
        const Launch l = test::tensor_launch(132 * b, 256, flops, iters);
        CHECK(duration(l, hw) == Approx(iters * (2.0 * b * I + L)).epsilon(0.01));
    }
    // The law is linear in B with slope 2I per iteration: the power law (exponent 0.5, the same
    // terms) gives another answer, so the flag is what chose the form.
    Hardware power = hw;
    power.calibration.warp_issue_model = 0;
    power.calibration.warp_overlap_exponent = 0.5;
    const Launch three = test::tensor_launch(3 * 132, 256, flops, iters);
    CHECK(std::abs(duration(three, power) / duration(three, hw) - 1.0) > 0.05);

    // Shared-memory reads (per warp) and scalar ops (per thread) are issue: k times each.
    const Launch extra = with_smem_and_ops(test::tensor_launch(2 * 132, 256, flops, iters), 65536.0, 256.0 * 100);
    hw.calibration.warp_smem_read_ns_per_byte = 0.5;  // 8 KiB per warp: +4096 ns
    hw.calibration.warp_op_ns = 2;                    // 100 ops per thread: +200 ns
    CHECK(duration(extra, hw) == Approx(iters * (4.0 * (I + 4096 + 200) + L)).epsilon(0.01));
}

TEST_CASE("warp model, issue form: a block alone on its SM takes k_b I + L (the tail)", "[sim][warp_model][issue]") {
    Hardware hw = issue_gpu();
    const double flops = 4e7;
    const std::int64_t iters = 4;
    // 32-warp blocks: at most 2 per SM (2048 threads). One SM (so where the blocks go is not in
    // question) and 3 blocks: two in step (k = 16), then the third alone (k_b = 8).
    hw.sm_count = 1;
    const auto [chain, L, I] = form_terms(hw, flops, 32);
    const Launch l = test::tensor_launch(3, 1024, flops, iters);
    const double full = iters * (16 * I + L), alone = iters * (8 * I + L);
    CHECK(duration(l, hw) == Approx(full + alone).epsilon(0.01));
    // Without the cap the lone blocks would be given half of a full iteration's work and take
    // (16 I + L) / 2: a different number, so the check above can tell.
    REQUIRE(std::abs((16 * I + L) / 2 - (8 * I + L)) > 0.1 * (8 * I + L));
}

TEST_CASE("warp model, issue form: the flag is optional, 0 or 1, excludes the overlap exponent and is fingerprinted",
          "[sim][warp_model][issue][profile]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.warp_iteration_ns = 100;
    CHECK(hardware_to_json(hw).find("warp_issue_model") == std::string::npos);
    hw.calibration.warp_issue_model = 1;
    CHECK(hw.calibration.warp_model());
    auto back = parse_hardware(hardware_to_json(hw), "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.warp_issue_model == 1);

    auto bad = parse_hardware(test::with_field(hardware_to_json(hw), "warp_issue_model", "0.5"), "test");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("warp_issue_model") != std::string::npos);
    CHECK(bad.error().message.find("0 or 1") != std::string::npos);

    hw.calibration.warp_overlap_exponent = 0.6;
    auto both = sim::simulate(test::test_workload(), {test::tensor_launch(1, 64, 1e3)}, hw, sim::Options{});
    REQUIRE_FALSE(both.ok());
    CHECK(both.error().message.find("warp_overlap_exponent") != std::string::npos);
    CHECK(both.error().message.find("warp_issue_model") != std::string::npos);
    // A profile file with both is refused when it is read, naming the field's path.
    auto file = parse_hardware(hardware_to_json(hw), "both.json");
    REQUIRE_FALSE(file.ok());
    CHECK(file.error().message.find("profile both.json: $.calibration.warp_overlap_exponent: must be 1 with "
                                    "warp_issue_model 1 (got 0.6;") == 0);
}

// The queue form (Calibration::warp_queue_model = 1, docs/validation change 26): a phase of an
// mma loop waits its warp's latency L (mma chain + warp_iteration_ns), which nobody shares, and
// then its block's issue k_b I joins the SM server, which the resident blocks share. Identical
// blocks that start together stay in step, so B of them take L + B k_b I per iteration: the
// issue grows with B, the latency does not.
namespace {

Hardware queue_gpu() { return form_gpu(&Calibration::warp_queue_model); }

}  // namespace

TEST_CASE("warp model, queue form: B blocks in step take iterations x (L + B k_b I)", "[sim][warp_model][queue]") {
    Hardware hw = queue_gpu();
    const double flops = 4e7;  // per block and iteration; the SM's tensor pipe needs 5.3 us of it
    const std::int64_t iters = 4;
    // 8 warps per block on 4 sub-partitions: k_b = 2. I = 400 ns/B x 4096 B / 256 threads.
    const auto [chain, L, I] = form_terms(hw, flops, 8);
    for (int b = 1; b <= 3; ++b) {
        INFO("blocks per SM " << b);
        const Launch l = test::tensor_launch(132 * b, 256, flops, iters);
        CHECK(duration(l, hw) == Approx(iters * (L + 2.0 * b * I)).epsilon(0.01));
        // A longer chain adds its length once per iteration, whatever B: it is latency.
        const Launch longer = test::tensor_launch(132 * b, 256, 2 * flops, iters);
        CHECK(duration(longer, hw) - duration(l, hw) ==
              Approx(iters * chain).epsilon(0.01));
    }
    // When the tensor pipe needs more than the issue, the pipe is the shared work.
    Hardware slow_issue = hw;
    slow_issue.calibration.warp_load_issue_ns_per_byte = 1;  // I = 16 ns, far below the pipe's 5.3 us
    const double one = duration(test::tensor_launch(132, 256, flops, iters), slow_issue) / iters - L;
    const double two = duration(test::tensor_launch(2 * 132, 256, flops, iters), slow_issue) / iters - L;
    CHECK(one == Approx(flops / (slow_issue.tensor_fp16_flops_per_s * 1e-9 / slow_issue.sm_count)).epsilon(0.05));
    CHECK(two == Approx(2 * one).epsilon(0.01));
}

namespace {

// A warp-model form flag (0 or 1) in a profile: absent from its JSON until set, switches the
// warp model on by itself, round-trips, any other value is refused naming the field and "0 or 1",
// and simulate() refuses it, naming it, next to each setting in `conflicts`.
void check_form_flag(double Calibration::*flag, const std::string& name,
                     const std::vector<std::function<void(Calibration&)>>& conflicts) {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.warp_iteration_ns = 100;
    CHECK(hardware_to_json(hw).find(name) == std::string::npos);
    hw.calibration.*flag = 1;
    CHECK(hw.calibration.warp_model());
    Calibration only;
    only.*flag = 1;
    CHECK(only.warp_model());
    auto back = parse_hardware(hardware_to_json(hw), "test");
    REQUIRE(back.ok());
    CHECK(back->calibration.*flag == 1);
    for (const char* value : {"2", "0.5"}) {
        auto bad = parse_hardware(test::with_field(hardware_to_json(hw), name, value), "test");
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().message.find(name) != std::string::npos);
        CHECK(bad.error().message.find("0 or 1") != std::string::npos);
    }
    for (const auto& conflict : conflicts) {
        Hardware both = hw;
        conflict(both.calibration);
        auto r = sim::simulate(test::test_workload(), {test::tensor_launch(1, 64, 1e3)}, both, sim::Options{});
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find(name) != std::string::npos);
    }
}

}  // namespace

TEST_CASE("warp model, queue form: the flag is 0 or 1, excludes the issue form and the overlap exponent",
          "[sim][warp_model][queue][profile]") {
    check_form_flag(&Calibration::warp_queue_model, "warp_queue_model",
                    {[](Calibration& c) { c.warp_issue_model = 1; }, [](Calibration& c) { c.warp_overlap_exponent = 0.6; }});
}

// Serial load issue (Calibration::warp_load_issue_serial = 1, docs/validation change 33): in the
// power law, the load-issue term ld of a warp's iteration is paid by each of the k warps of a
// sub-partition in turn, the rest (t_rest) is stretched by k^(1-g): B blocks per SM do an
// iteration in t_rest k^(1-g) + k ld of SM time, a block alone on its SM in t_rest k_b^(1-g) + k_b ld.
namespace {

// quiet_gpu() with slow warps (64 FLOP per cycle), a 300 ns wait, 400 ns per loaded byte per thread
// (the 4 KiB per block and iteration of tensor_launch) and exponent 0.5, serial load issue on.
Hardware serial_gpu() {
    Hardware hw = quiet_gpu();
    hw.calibration.tensor_flops_per_cycle_per_warp = 64;
    hw.calibration.warp_iteration_ns = 300;
    hw.calibration.warp_load_issue_ns_per_byte = 400;
    hw.calibration.warp_overlap_exponent = 0.5;
    hw.calibration.warp_load_issue_serial = 1;
    return hw;
}

}  // namespace

TEST_CASE("warp model, serial load issue: k warps per sub-partition pay the load issue k times",
          "[sim][warp_model][serial_load]") {
    Hardware hw = serial_gpu();
    const double flops = 4e7;
    const std::int64_t iters = 4;
    const double per_warp_flops_per_ns = 64 * hw.sm_clock_hz * 1e-9;
    const double rest = flops / 8 / per_warp_flops_per_ns;  // 8-warp blocks: t_rest
    const double ld = 400.0 * 4096 / 256;                   // 6400 ns per warp and iteration

    // One 8-warp block per SM (k = k_b = 2): it is alone, so t_rest sqrt(2) + 2 ld + the wait.
    const Launch one = test::tensor_launch(132, 256, flops, iters);
    CHECK(duration(one, hw) == Approx(iters * (rest * std::sqrt(2.0) + 2 * ld + 300)).epsilon(0.01));
    // Four per SM (k = 8): the SM does an iteration of all four in t_rest sqrt(8) + 8 ld, and the
    // waits hide behind each other's work.
    const Launch four = test::tensor_launch(4 * 132, 256, flops, iters);
    CHECK(duration(four, hw) == Approx(iters * (rest * std::sqrt(8.0) + 8 * ld)).epsilon(0.01));

    // The power law with the same terms stretches ld with the rest: (t_rest + ld) sqrt(8), less
    // than the serial form by (8 - sqrt(8)) ld per iteration, a difference the checks above see.
    Hardware power = hw;
    power.calibration.warp_load_issue_serial = 0;
    CHECK(duration(four, power) == Approx(iters * (rest + ld) * std::sqrt(8.0)).epsilon(0.01));
    REQUIRE((8 - std::sqrt(8.0)) * ld > 0.05 * (rest * std::sqrt(8.0) + 8 * ld));
    // Without loads the two forms agree.
    Hardware no_ld = hw, no_ld_power = power;
    no_ld.calibration.warp_load_issue_ns_per_byte = no_ld_power.calibration.warp_load_issue_ns_per_byte = 0;
    no_ld.calibration.warp_iteration_ns = no_ld_power.calibration.warp_iteration_ns = 300;
    CHECK(duration(four, no_ld) == Approx(duration(four, no_ld_power)).epsilon(1e-9));
}

TEST_CASE("warp model, serial load issue: a block alone on its SM takes t_rest k_b^(1-g) + k_b ld (the tail)",
          "[sim][warp_model][serial_load]") {
    Hardware hw = serial_gpu();
    const double flops = 4e7;
    const std::int64_t iters = 4;
    // 32-warp blocks: at most 2 per SM. One SM and 3 blocks: two in step (k = 16), then the third
    // alone (k_b = 8); blocks in step pay the wait once per iteration.
    hw.sm_count = 1;
    const double per_warp_flops_per_ns = 64 * hw.sm_clock_hz * 1e-9;
    const double rest = flops / 32 / per_warp_flops_per_ns;
    const double ld = 400.0 * 4096 / 1024;
    const Launch l = test::tensor_launch(3, 1024, flops, iters);
    const double full = iters * (300 + rest * 4 + 16 * ld), alone = iters * (300 + rest * std::sqrt(8.0) + 8 * ld);
    CHECK(duration(l, hw) == Approx(full + alone).epsilon(0.01));
    // With the power law's cap, (k / k_b)^(1-g) / B, the lone block would take
    // t_rest sqrt(8) + 8 ld sqrt(2): a different number, so the check above can tell.
    REQUIRE(std::abs(iters * (300 + rest * std::sqrt(8.0) + 8 * ld * std::sqrt(2.0)) - alone) > 0.05 * alone);
}

// The store issue (Calibration::warp_store_issue_ns_per_byte, docs/validation change 76): a warp's
// global stores cost it st = c x the bytes each thread stores in the iteration, issued like its
// loads: with the serial load issue, k warps per sub-partition pay ld + st k times. Only launches
// whose stores are staged through shared memory (Launch::staged_stores: flash1, flash2).
namespace {

// tensor_launch with its one final store replaced by a 1 KiB store in every iteration, next to
// the iteration's load and mma (as FlashAttention-1 stores O_i, l_i, m_i every inner step).
Launch storing_each_iteration(std::int64_t blocks, int threads, double flops, std::int64_t iterations) {
    Launch l = test::tensor_launch(blocks, threads, flops, iterations);
    l.staged_stores = true;
    constexpr std::int64_t kBytes = 1024;
    l.buffers[1].bytes = kBytes * iterations * blocks;
    l.counts.global_store_bytes = static_cast<double>(kBytes * iterations * blocks);
    auto base = l.program;
    l.program = [base, iterations](std::int64_t block, std::vector<Step>& out) {
        base(block, out);
        std::vector<Step> with;
        for (const Step& st : out) {
            if (st.kind == StepKind::store) continue;
            with.push_back(st);
            if (st.kind != StepKind::compute || st.unit != Unit::tensor) continue;
            Step w;
            w.kind = StepKind::store;
            w.iteration = st.iteration;
            w.region = Region{1, (block * iterations + st.iteration) * kBytes, kBytes, 1, kBytes};
            w.amount = static_cast<double>(kBytes);
            with.push_back(w);
        }
        out = std::move(with);
    };
    return l;
}

}  // namespace

TEST_CASE("warp model, store issue: the warps pay their stores' issue as they pay their loads', serially",
          "[sim][warp_model][store_issue]") {
    Hardware hw = serial_gpu();
    const double flops = 4e7, c = 800;
    const std::int64_t iters = 4;
    const double per_warp_flops_per_ns = 64 * hw.sm_clock_hz * 1e-9;
    const double rest = flops / 8 / per_warp_flops_per_ns;
    // 1 KiB stored per block and iteration: 4 B per thread of a 256-thread block.
    const double ld = 400.0 * 4096 / 256, st = c * 1024 / 256;
    Hardware stores = hw;
    stores.calibration.warp_store_issue_ns_per_byte = c;
    const Launch one = storing_each_iteration(132, 256, flops, iters);
    CHECK(duration(one, stores) == Approx(iters * (rest * std::sqrt(2.0) + 2 * (ld + st) + 300)).epsilon(0.01));
    const Launch four = storing_each_iteration(4 * 132, 256, flops, iters);
    CHECK(duration(four, stores) == Approx(iters * (rest * std::sqrt(8.0) + 8 * (ld + st))).epsilon(0.01));
    REQUIRE(8 * st > 0.05 * duration(four, hw) / iters);  // the checks above can tell it is there
    // The same as loading st / (400 ns/B) more bytes per thread: one issue term.
    Hardware same = hw;
    same.calibration.warp_load_issue_ns_per_byte = 400.0 + c * 1024 / 4096;
    CHECK(duration(four, stores) == Approx(duration(four, same)).epsilon(1e-9));
    // Without the serial issue it is stretched with the rest: (t_rest + ld + st) sqrt(8).
    Hardware power = stores;
    power.calibration.warp_load_issue_serial = 0;
    CHECK(duration(four, power) == Approx(iters * (rest + ld + st) * std::sqrt(8.0)).epsilon(0.01));
    // Unstaged stores are not charged: register stores (softmax) and fragments (the GEMM kernel)
    // time as without the law.
    Launch plain = four;
    plain.staged_stores = false;
    CHECK(duration(plain, stores) == Approx(duration(plain, hw)).epsilon(1e-12));
    Launch frag = plain;
    frag.fragment_store_row_bytes = 16;
    CHECK(duration(frag, stores) == Approx(duration(frag, hw)).epsilon(1e-12));
}

TEST_CASE("warp model, store issue: the field is optional, round-trips, is fingerprinted and range-checked",
          "[sim][warp_model][store_issue][profile]") {
    check_power_law_amount(&Calibration::warp_store_issue_ns_per_byte, "warp_store_issue_ns_per_byte", 5.25);
}

TEST_CASE("warp model, serial load issue: the flag is 0 or 1, round-trips and excludes the issue and queue forms",
          "[sim][warp_model][serial_load][profile]") {
    check_form_flag(&Calibration::warp_load_issue_serial, "warp_load_issue_serial",
                    {[](Calibration& c) { c.warp_issue_model = 1; }, [](Calibration& c) { c.warp_queue_model = 1; }});
}

// The fill wait (Calibration::warp_fill_wait_ns_per_byte, docs/validation change 45): an mma
// iteration's wait grows by c x the bytes the block loads in it. A wait, not work: a block alone
// pays it every iteration, and B blocks in step pay it once per iteration, not B times (the GEMM
// residency series: a second block adds ~130 ns whatever its tiles load).
TEST_CASE("warp model, fill wait: each iteration waits c x the block's loaded bytes more, once for blocks in step",
          "[sim][warp_model][fill_wait]") {
    Hardware hw = quiet_gpu();
    hw.calibration.tensor_flops_per_cycle_per_warp = 128;
    hw.calibration.warp_overlap_exponent = 0.6;
    hw.calibration.warp_iteration_ns = 200;
    const std::int64_t iters = 8;
    const double c = 0.05, bytes = 4096;  // tensor_launch loads 4 KiB per block and iteration
    Hardware fill = hw;
    fill.calibration.warp_fill_wait_ns_per_byte = c;
    for (int b = 1; b <= 3; ++b) {
        const Launch l = test::tensor_launch(132 * b, 256, 2e6, iters);
        INFO("blocks per SM " << b);
        CHECK(duration(l, fill) == Approx(duration(l, hw) + iters * c * bytes).epsilon(1e-6));
    }
    // It is the wait's: the same as raising warp_iteration_ns by c x bytes.
    Hardware same = hw;
    same.calibration.warp_iteration_ns += c * bytes;
    const Launch two = test::tensor_launch(264, 256, 2e6, iters);
    CHECK(duration(two, fill) == Approx(duration(two, same)).epsilon(1e-9));
}

TEST_CASE("warp model, fill wait: the field is optional, round-trips, is fingerprinted and range-checked",
          "[sim][warp_model][fill_wait][profile]") {
    check_power_law_amount(&Calibration::warp_fill_wait_ns_per_byte, "warp_fill_wait_ns_per_byte", 0.015625);
}

// The shared wait (Calibration::warp_wait_shared, docs/validation change 48): the power law's
// fixed wait becomes wait / B of work on the SM server, which the B resident blocks share. Blocks
// in step take wait + B x work per iteration, exactly as when the wait comes before the work
// (change 17); blocks out of step no longer fill each other's waits.
TEST_CASE("warp model, shared wait: blocks in step take wait + B x work per iteration, as before",
          "[sim][warp_model][wait_shared]") {
    Hardware hw = quiet_gpu();
    hw.calibration.tensor_flops_per_cycle_per_warp = 1e6;
    hw.calibration.warp_overlap_exponent = 0.9;
    hw.calibration.warp_iteration_ns = 300;
    Hardware shared = hw;
    shared.calibration.warp_wait_shared = 1;
    const std::int64_t iterations = 16;
    for (int b = 1; b <= 3; ++b) {
        const Launch l = test::tensor_launch(132 * b, 256, 8e6, iterations);
        INFO("blocks per SM " << b);
        CHECK(duration(l, shared) == Approx(duration(l, hw)).epsilon(1e-9));
    }
}

namespace {

// Two blocks per SM of `iterations` mma iterations each; the second of each pair first runs a
// scalar phase (no wait) as long as half an iteration, so the pair's mma iterations are out of
// step for the whole launch.
Launch out_of_step_pair(std::int64_t iterations) {
    Launch l = test::tensor_launch(264, 256, 8e6, iterations);
    auto base = l.program;
    l.program = [base](std::int64_t block, std::vector<Step>& out) {
        base(block, out);
        if (block < 132) return;
        for (Step& s : out) s.iteration += 1;
        Step c;
        c.kind = StepKind::compute;
        c.unit = Unit::fp32;
        c.iteration = 0;
        c.amount = 3e5;
        out.insert(out.begin(), c);
    };
    l.counts.flops_fp32 = 132 * 3e5;
    return l;
}

}  // namespace

TEST_CASE("warp model, shared wait: blocks out of step no longer hide each other's waits",
          "[sim][warp_model][wait_shared]") {
    Hardware hw = quiet_gpu();
    hw.calibration.tensor_flops_per_cycle_per_warp = 1e6;
    hw.calibration.warp_overlap_exponent = 0.9;
    const std::int64_t iterations = 16;
    const double wait = 2000;
    Launch l = out_of_step_pair(iterations);
    const double no_wait = duration(l, hw);
    Hardware before = hw, shared = hw;
    before.calibration.warp_iteration_ns = wait;
    shared.calibration.warp_iteration_ns = wait;
    shared.calibration.warp_wait_shared = 1;
    const double hidden = duration(l, before), paid = duration(l, shared);
    INFO("no wait " << no_wait << ", wait before the work " << hidden << ", shared wait " << paid);
    // Shared: the SM pays every iteration's wait once, as two blocks in step do.
    CHECK(paid == Approx(no_wait + iterations * wait).epsilon(0.03));
    // Before the work (change 17): out of step, one block's work runs in the other's wait (here
    // about one wait over the launch: the offset pair drifts back into step).
    CHECK(hidden < paid - 0.25 * wait);
}

// warp_wait_shared 2 (docs/validation change 88): shared as with 1, except in a launch whose loop
// waits for its oldest loads before it issues (Launch::loads_after_wait, the GEMM kernel), which
// keeps the wait before the work (as with 0): the GEMM timeline probe timed three 64x64 blocks on
// an SM hiding each other's waits (change 87).
TEST_CASE("warp model, shared wait 2: shared in issue-first launches, a wait in wait-then-issue ones",
          "[sim][warp_model][wait_shared]") {
    Hardware hw = quiet_gpu();
    hw.calibration.tensor_flops_per_cycle_per_warp = 1e6;
    hw.calibration.warp_overlap_exponent = 0.9;
    hw.calibration.warp_iteration_ns = 2000;
    const std::int64_t iterations = 16;
    // The out-of-step pair: how the wait is paid shows in the launch's length.
    Launch l = out_of_step_pair(iterations);
    for (bool after_wait : {false, true}) {
        Launch v = l;
        v.loads_after_wait = after_wait;
        Hardware off = hw, one = hw, two = hw;
        one.calibration.warp_wait_shared = 1;
        two.calibration.warp_wait_shared = 2;
        const double t0 = duration(v, off), t1 = duration(v, one), t2 = duration(v, two);
        INFO("loads_after_wait " << after_wait << ": off " << t0 << ", 1 " << t1 << ", 2 " << t2);
        REQUIRE(t1 > t0 + 0.25 * 2000);  // the two forms differ on this launch
        CHECK(t2 == Approx(after_wait ? t0 : t1).epsilon(1e-12));
    }
}

TEST_CASE("warp model, shared wait: 2 round-trips and is fingerprinted apart from 1, and 3 is refused",
          "[sim][warp_model][wait_shared][profile]") {
    test::check_flag012_field("warp_wait_shared", &Calibration::warp_wait_shared);
}

TEST_CASE("warp model, shared wait: the flag is optional, power-law form only, and fingerprinted",
          "[sim][warp_model][wait_shared][profile]") {
    check_power_law_flag(&Calibration::warp_wait_shared, "warp_wait_shared");
}

// Sub-partition pacing (Calibration::warp_smsp_pacing, docs/validation change 52): warp slot i of
// an SM sits on sub-partition i mod 4 and a block's warps take consecutive slots, so three
// two-warp blocks load the sub-partitions 2, 2, 1, 1. With the flag, blocks 0 and 2 work with
// their own k_s = 2 and block 1 with k_s = 1, where the power law gives all three the average
// k = 1.5.
TEST_CASE("warp model, sub-partition pacing: uneven blocks of a one-wave launch take longer",
          "[sim][warp_model][smsp_pacing]") {
    Hardware hw = quiet_gpu();
    hw.calibration.tensor_flops_per_cycle_per_warp = 64;
    hw.calibration.warp_overlap_exponent = 0.5;
    Hardware paced = hw;
    paced.calibration.warp_smsp_pacing = 1;
    const std::int64_t iterations = 32;
    // 3 blocks of 2 warps per SM (one wave): sub-partitions 2, 2, 1, 1.
    const Launch uneven = test::tensor_launch(132 * 3, 64, 4e6, iterations);
    const double avg = duration(uneven, hw), own = duration(uneven, paced);
    INFO("average k " << avg << " ns, own k_s " << own << " ns");
    // The heavy blocks' work is (2 / 1.5)^0.5 = 1.155 x the average's. The SM server lends them
    // what the light block leaves, up to the per-job cap, so the launch lands between the
    // average's time and that of fully separate sub-partitions (1.155 x).
    CHECK(own > 1.05 * avg);
    CHECK(own < 1.16 * avg);
    // Blocks that load the sub-partitions evenly predict exactly as without the flag: two
    // two-warp blocks (1, 1, 1, 1), three four-warp blocks (3 each), six two-warp blocks (3 each).
    for (const auto& [blocks_per_sm, threads] : {std::pair{2, 64}, std::pair{3, 128}, std::pair{6, 64}}) {
        const Launch even = test::tensor_launch(132 * blocks_per_sm, threads, 4e6, iterations);
        INFO("blocks per SM " << blocks_per_sm << ", threads " << threads);
        CHECK(duration(even, paced) == duration(even, hw));
    }
}

TEST_CASE("warp model, sub-partition pacing: the flag is optional, 0 or 1, power-law form only, and fingerprinted",
          "[sim][warp_model][smsp_pacing][profile]") {
    check_power_law_flag(&Calibration::warp_smsp_pacing, "warp_smsp_pacing");
}

// The instruction-chain wait (Calibration::warp_chain_ns, warp_chain_ns_per_instruction, docs/
// validation change 56): an mma iteration of a launch that knows its warps' instructions per
// iteration (Launch::chain_instructions) waits a + lambda x instructions less the phase's lone-block
// work. A wait: a block alone pays it every iteration, B blocks in step once per iteration.
TEST_CASE("warp model, instruction chain: the wait grows by lambda x instructions, once for blocks in step",
          "[sim][warp_model][chain]") {
    Hardware hw = quiet_gpu();
    hw.calibration.tensor_flops_per_cycle_per_warp = 128;
    hw.calibration.warp_overlap_exponent = 0.6;
    hw.calibration.warp_iteration_ns = 200;
    const std::int64_t iters = 8;
    const double inst = 150;
    Hardware chain = hw;
    chain.calibration.warp_chain_ns = 4000;  // longer than the phase's work: the chain binds
    chain.calibration.warp_chain_ns_per_instruction = 3;
    Hardware longer = chain;
    longer.calibration.warp_chain_ns_per_instruction = 4;
    for (int b = 1; b <= 3; ++b) {
        Launch l = test::tensor_launch(132 * b, 256, 2e6, iters);
        INFO("blocks per SM " << b);
        // Without a count the launch keeps warp_iteration_ns, bit for bit.
        CHECK(duration(l, chain) == duration(l, hw));
        l.chain_instructions = inst;
        CHECK(duration(l, longer) == Approx(duration(l, chain) + iters * inst).epsilon(1e-6));
    }
    // A lone block's iteration is the chain: its wait and its work add up to a + lambda x inst,
    // so moving work into the phase does not lengthen it while the chain is longer.
    Launch lone = test::tensor_launch(132, 256, 2e6, iters);
    lone.chain_instructions = inst;
    Launch heavier = test::tensor_launch(132, 256, 4e6, iters);
    heavier.chain_instructions = inst;
    CHECK(duration(heavier, chain) == Approx(duration(lone, chain)).epsilon(1e-6));
    // A chain shorter than the work waits nothing: the same as no fixed wait at all.
    Hardware tiny = chain;
    tiny.calibration.warp_chain_ns = 0;
    tiny.calibration.warp_chain_ns_per_instruction = 1e-6;
    Hardware no_wait = hw;
    no_wait.calibration.warp_iteration_ns = 0;
    Launch plain = lone;
    plain.chain_instructions = 0;
    CHECK(duration(lone, tiny) == Approx(duration(plain, no_wait)).epsilon(1e-9));
}

TEST_CASE("warp model, instruction chain: the fields are optional, round-trip, are fingerprinted and range-checked",
          "[sim][warp_model][chain][profile]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.warp_iteration_ns = 250;
    CHECK(hardware_to_json(hw).find("warp_chain_ns") == std::string::npos);
    const std::string before = profile_fingerprint(hw);
    hw.calibration.warp_chain_ns = 71.5;
    hw.calibration.warp_chain_ns_per_instruction = 3.33;
    CHECK(profile_fingerprint(hw) != before);
    auto back = parse_hardware(hardware_to_json(hw), "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.warp_chain_ns == 71.5);
    CHECK(back->calibration.warp_chain_ns_per_instruction == 3.33);
    Calibration only;
    only.warp_chain_ns_per_instruction = 3;
    CHECK(only.warp_model());

    Launch l = test::tensor_launch(1, 64, 1e3);
    l.chain_instructions = 100;
    hw.calibration.warp_chain_ns = -1;
    auto neg = sim::simulate(test::test_workload(), {l}, hw, sim::Options{});
    REQUIRE_FALSE(neg.ok());
    CHECK(neg.error().message.find("warp_chain_ns") != std::string::npos);
    hw.calibration.warp_chain_ns = 71.5;
    hw.calibration.warp_overlap_exponent = 1;
    for (double Calibration::*form : {&Calibration::warp_issue_model, &Calibration::warp_queue_model}) {
        Hardware f = hw;
        f.calibration.*form = 1;
        auto r = sim::simulate(test::test_workload(), {l}, f, sim::Options{});
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find("warp_chain_ns_per_instruction needs the power-law warp model") != std::string::npos);
    }
}
