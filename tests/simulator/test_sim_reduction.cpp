// Calibration::block_reduction_ns (docs/validation change 29): the softmax kernel reduces each
// row's max and sum across its block (kernels/softmax block_reduce), and every warp waits for the
// reduction before the next pass can load. Laws: the safe and the online variant both reduce
// twice per row, so a block alone on the GPU takes exactly 2 x rows x the field longer; the bytes
// never change; 0 predicts what a profile without the field predicts, bit for bit.
#include <catch2/catch.hpp>

#include <string>

#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;
using tilescope::test::predict;

namespace {

Workload softmax(const std::string& variant, std::int64_t rows, std::int64_t cols, int warps) {
    return test::softmax_workload(variant, rows, cols, warps);
}

int reductions_per_row(const Workload& w, const Hardware& hw) {
    auto launches = lower(w, hw);
    REQUIRE(launches.ok());
    std::vector<Step> steps;
    (*launches)[0].program(0, steps);
    double n = 0;
    for (const Step& s : steps)
        if (s.kind == StepKind::reduction) n += s.amount;
    return static_cast<int>(n);
}

}  // namespace

TEST_CASE("block reductions: the softmax program reduces a row twice, safe and online", "[sim][reduction]") {
    const Hardware hw = test::test_gpu();
    CHECK(reductions_per_row(softmax("safe", 4, 4096, 4), hw) == 2);
    CHECK(reductions_per_row(softmax("online", 4, 4096, 4), hw) == 2);
    CHECK(reductions_per_row(softmax("safe", 4, 256, 1), hw) == 2);  // one step per pass
}

TEST_CASE("block reductions: a lone block waits 2 x the field per row, bytes unchanged", "[sim][reduction]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    for (const char* variant : {"safe", "online"}) {
        for (int warps : {1, 4}) {
            INFO(variant << " " << warps << " warps");
            const Workload w = softmax(variant, 1, 8192, warps);
            const Prediction before = predict(w, hw);
            Hardware h = hw;
            h.calibration.block_reduction_ns = 250.0;
            const Prediction after = predict(w, h);
            CHECK(after.total[Metric::gpu_time_duration] - before.total[Metric::gpu_time_duration] ==
                  Approx(2 * 250.0).margin(1e-6));
            CHECK(after.total[Metric::dram_bytes_read] == before.total[Metric::dram_bytes_read]);
            CHECK(after.total[Metric::lts_t_bytes] == before.total[Metric::lts_t_bytes]);
        }
    }
}

TEST_CASE("block reductions: other blocks hide part of the wait, 0 changes nothing, negative refused",
          "[sim][reduction]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    // Many rows per SM: the wait is paid per row, but other resident blocks work during it, so
    // the launch grows by less than 2 x rows per slot x the wait, and by something.
    const Workload w = softmax("safe", 4096, 1024, 4);
    const Prediction p0 = predict(w, hw);
    Hardware h = hw;
    h.calibration.block_reduction_ns = 250.0;
    const Prediction p1 = predict(w, h);
    CHECK(p1.total[Metric::gpu_time_duration] > p0.total[Metric::gpu_time_duration]);
    Hardware zero = hw;
    zero.calibration.block_reduction_ns = 0;
    CHECK(predict(w, zero).total[Metric::gpu_time_duration] == p0.total[Metric::gpu_time_duration]);
    // GEMM has no reduction step: the field leaves it alone.
    const Workload gw = test::small_gemm_workload();
    CHECK(predict(gw, h).total[Metric::gpu_time_duration] == predict(gw, hw).total[Metric::gpu_time_duration]);
    // The profile keeps the field; a negative value is refused by name.
    CHECK(hardware_to_json(h).find("\"block_reduction_ns\"") != std::string::npos);
    h.calibration.block_reduction_ns = -1;
    auto launches = lower(w, h);
    REQUIRE(launches.ok());
    auto bad = sim::simulate(w, *launches, h, sim::Options{});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("block_reduction_ns") != std::string::npos);
}
