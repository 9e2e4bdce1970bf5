// Calibration::issue_efficiency (docs/validation change 59): the softmax kernel's lowering carries
// the warp-instructions its compiled code executes (compiled_softmax_instructions: per warp and
// row, plus per 256 columns), and the simulator floors a launch at
//   warp-instructions / (SMs x sub-partitions x clock x issue_efficiency) + launch overhead.
// Laws: the issue steps of a row sum to the fitted count for every warp count; bf16 (no counts)
// and GEMM carry none; 0 predicts exactly what a profile without the field predicts; a floor that
// binds sets the launch's time to itself plus the overhead and its bound to "issue"; a value
// outside [0, 1] is refused by name.
#include <catch2/catch.hpp>

#include <string>

#include "core/hardware.hpp"
#include "core/kernel_registers.hpp"
#include "core/lower.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;
using tilescope::test::predict;

namespace {

Workload softmax(const std::string& variant, std::int64_t rows, std::int64_t cols, int warps,
                 const std::string& dtype = "fp16") {
    return test::softmax_workload(variant, rows, cols, warps, dtype);
}

// Warp-instructions of one block's program (item 0: one row) of the launch at `index`.
double issued(const Workload& w, const Hardware& hw, std::size_t index = 0) {
    auto launches = lower(w, hw);
    REQUIRE(launches.ok());
    REQUIRE(launches->size() > index);
    std::vector<Step> steps;
    (*launches)[index].program(0, steps);
    double n = 0;
    for (const Step& s : steps)
        if (s.kind == StepKind::issue) n += s.amount;
    return n;
}

}  // namespace

TEST_CASE("issue: a softmax row's issue steps sum to the compiled kernel's count", "[sim][issue_floor]") {
    const Hardware hw = test::test_gpu();
    for (const auto variant : {SoftmaxVariant::safe, SoftmaxVariant::online}) {
        const auto inst = compiled_softmax_instructions(variant, DType::fp16);
        REQUIRE(inst.has_value());
        const std::string name = variant == SoftmaxVariant::safe ? "safe" : "online";
        for (int warps : {1, 2, 4}) {
            for (std::int64_t cols : {512, 2048, 8192}) {
                INFO(name << " " << warps << " warps, " << cols << " columns");
                // Every warp pays its row overhead; the columns cost the same however they are
                // split (at 512 columns four warps leave two idle in the loop, not in the count).
                CHECK(issued(softmax(name, 8, cols, warps), hw) ==
                      Approx(warps * inst->per_warp_row + inst->per_256_columns * static_cast<double>(cols) / 256.0));
            }
        }
    }
    // Nsight Compute's counts (bench/results/h200_softmax_w_2026-11-28.tgz) within 3%.
    CHECK(issued(softmax("online", 8, 2048, 2), hw) == Approx(1938).epsilon(0.03));
    CHECK(issued(softmax("safe", 8, 512, 4), hw) == Approx(956).epsilon(0.03));
    // No counts for bf16; naive attention's softmax launch (the same kernel, 4 warps) has them.
    CHECK(issued(softmax("safe", 8, 2048, 2, "bf16"), hw) == 0);
    WorkloadSpec a;
    a.kernel = "attention-naive";
    a.batch = 1;
    a.heads = 1;
    a.seq = 512;
    a.head_dim = 64;
    a.tile_m = a.tile_n = 64;
    a.tile_k = 32;
    a.stages = 2;
    a.warps = 8;
    auto aw = make_workload(a);
    REQUIRE(aw.ok());
    const auto safe = compiled_softmax_instructions(SoftmaxVariant::safe, DType::fp16);
    CHECK(issued(*aw, hw, 1) == Approx(4 * safe->per_warp_row + safe->per_256_columns * 2.0));
    CHECK(issued(*aw, hw, 0) == 0);  // QK^T
}

TEST_CASE("issue: the floor binds a launch at its instructions over the SMs' issue rate", "[sim][issue_floor]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    const Workload w = softmax("online", 4096, 1024, 2);
    const Prediction off = predict(w, hw);
    // 0 is the default and writes nothing into the profile.
    CHECK(hardware_to_json(hw).find("issue_efficiency") == std::string::npos);
    CHECK(off.launches[0].extra.count("issue_floor_ns") == 0);

    // A share small enough that the floor binds.
    Hardware h = hw;
    h.calibration.issue_efficiency = 0.01;
    const Prediction on = predict(w, h);
    const auto inst = compiled_softmax_instructions(SoftmaxVariant::online, DType::fp16);
    const double per_row = 2 * inst->per_warp_row + inst->per_256_columns * 4.0;
    const double floor_ns = 4096 * per_row / (hw.sm_count * 4 * hw.sm_clock_hz * 1e-9 * 0.01);
    REQUIRE(on.launches[0].extra.count("issue_floor_ns") == 1);
    CHECK(on.launches[0].extra.at("issue_floor_ns") == Approx(floor_ns));
    CHECK(floor_ns > off.total[Metric::gpu_time_duration]);
    CHECK(on.total[Metric::gpu_time_duration] == Approx(floor_ns + hw.calibration.launch_overhead_ns));
    CHECK(on.launches[0].bound == "issue");
    // Bytes are the simulated run's.
    CHECK(on.total[Metric::dram_bytes_read] == off.total[Metric::dram_bytes_read]);
    CHECK(on.total[Metric::lts_t_bytes] == off.total[Metric::lts_t_bytes]);

    // A share at which the floor does not bind changes nothing.
    Hardware loose = hw;
    loose.calibration.issue_efficiency = 1.0;
    const Prediction l = predict(w, loose);
    if (l.launches[0].extra.at("issue_floor_ns") < off.total[Metric::gpu_time_duration] - hw.calibration.launch_overhead_ns)
        CHECK(l.total[Metric::gpu_time_duration] == off.total[Metric::gpu_time_duration]);

    // GEMM carries no counts: the field leaves it alone.
    const Workload gw = test::small_gemm_workload();
    CHECK(predict(gw, h).total[Metric::gpu_time_duration] == predict(gw, hw).total[Metric::gpu_time_duration]);

    // The profile keeps the field and reads it back; a value above 1 is refused by name.
    const std::string json = hardware_to_json(h);
    CHECK(json.find("\"issue_efficiency\"") != std::string::npos);
    auto back = parse_hardware(json, "test");
    REQUIRE(back.ok());
    CHECK(back->calibration.issue_efficiency == 0.01);
    Hardware bad = hw;
    bad.calibration.issue_efficiency = 1.5;
    auto launches = lower(w, bad);
    REQUIRE(launches.ok());
    auto r = sim::simulate(w, *launches, bad, sim::Options{});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("issue_efficiency") != std::string::npos);
}

// Calibration::issue_phase_work (docs/validation change 72): a phase's warp-instructions are work
// on its SM server, at least instructions / (sub-partitions x clock x issue_efficiency) of the SM,
// shared with the SM's other blocks, a block using at most min(1, warps / sub-partitions) of it.
// Laws: a block alone on the GPU whose issue dominates takes its instructions at a quarter of the
// SM with one warp and the whole SM with four; a GPU full of one-warp blocks shares each SM, so
// the launch takes the instructions over the SMs' rate (not four times that); GEMM (no issue
// steps) is unchanged; 0 writes nothing and predicts as before; 1 needs an issue rate.
TEST_CASE("issue: issue_phase_work charges a phase's instructions to its SM", "[sim][issue_floor]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.issue_efficiency = 0.001;  // issue dominates every phase (loads' latencies < 1%)
    Hardware on = hw;
    on.calibration.issue_phase_work = 1;
    const auto inst = compiled_softmax_instructions(SoftmaxVariant::online, DType::fp16);
    REQUIRE(inst.has_value());
    const double ns_per_inst = 1e9 / (4 * hw.sm_clock_hz * 0.001);
    const double overhead = hw.calibration.launch_overhead_ns;
    const auto row = [&](int warps) { return warps * inst->per_warp_row + inst->per_256_columns * 8.0; };

    // One row, one block: 2048 columns, 1 and 4 warps.
    const Prediction one = predict(softmax("online", 1, 2048, 1), on);
    const Prediction four = predict(softmax("online", 1, 2048, 4), on);
    const double one_ns = row(1) * ns_per_inst / 0.25, four_ns = row(4) * ns_per_inst;
    CHECK(one.total[Metric::gpu_time_duration] >= one_ns + overhead);
    CHECK(one.total[Metric::gpu_time_duration] == Approx(one_ns + overhead).epsilon(0.02));
    CHECK(four.total[Metric::gpu_time_duration] >= four_ns + overhead);
    CHECK(four.total[Metric::gpu_time_duration] == Approx(four_ns + overhead).epsilon(0.02));
    // Without the law the same blocks are far shorter (only the launch floor, which one block on
    // a GPU of many SMs does not reach).
    CHECK(predict(softmax("online", 1, 2048, 1), hw).total[Metric::gpu_time_duration] < 0.5 * one_ns);

    // Every SM full of one-warp blocks (32 resident per SM, two waves): they share the SM, so
    // the launch takes the GPU's issue time for all its instructions, as the floor says.
    const std::int64_t rows = 64LL * hw.sm_count;
    const Prediction full = predict(softmax("online", rows, 2048, 1), on);
    const double all_ns = static_cast<double>(rows) * row(1) * ns_per_inst / hw.sm_count;
    CHECK(full.total[Metric::gpu_time_duration] == Approx(all_ns + overhead).epsilon(0.02));

    // GEMM carries no issue steps: unchanged.
    const Workload gw = test::small_gemm_workload();
    CHECK(predict(gw, on).total[Metric::gpu_time_duration] == predict(gw, hw).total[Metric::gpu_time_duration]);

    // 0 is the default and writes nothing; 1 is kept and read back.
    CHECK(hardware_to_json(hw).find("issue_phase_work") == std::string::npos);
    auto back = parse_hardware(hardware_to_json(on), "test");
    REQUIRE(back.ok());
    CHECK(back->calibration.issue_phase_work == 1);
    CHECK(predict(softmax("online", 1, 2048, 1), *back).total[Metric::gpu_time_duration] ==
          one.total[Metric::gpu_time_duration]);

    // 1 without an issue rate is refused by name.
    Hardware bad = on;
    bad.calibration.issue_efficiency = 0;
    const Workload w = softmax("online", 8, 2048, 1);
    auto launches = lower(w, bad);
    REQUIRE(launches.ok());
    auto r = sim::simulate(w, *launches, bad, sim::Options{});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("issue_phase_work") != std::string::npos);
}
