// Calibration::smem_fill_bypass (docs/validation change 40): tiles that cp.async writes into
// shared memory (StepKind::smem_fill) either take the shared-memory pipe's time like every other
// shared-memory byte (0, the default) or arrive beside it (1). Laws: the lowerings mark GEMM's and
// the fused kernels' tile fills, and nothing else, as fills; the flag never changes a byte count
// (smem__bytes_write.sum still counts the fills); a launch whose pipe binds gets faster by at
// most the fills' share of the pipe and never slower; 0 predicts what the model always did.
#include <catch2/catch.hpp>

#include <string>

#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;
using tilescope::test::predict;

namespace {

Workload gemm(int tm, int tn) {
    WorkloadSpec s;
    s.kernel = "gemm";
    s.m = s.n = 2048;
    s.k = 1024;
    s.tile_m = tm;
    s.tile_n = tn;
    s.tile_k = 32;
    s.stages = 3;
    s.warps = 8;
    auto w = make_workload(s);
    REQUIRE(w.ok());
    return *w;
}

Workload flash(const std::string& kernel) {
    WorkloadSpec s;
    s.kernel = kernel;
    s.batch = 2;
    s.heads = 4;
    s.seq = 1024;
    s.head_dim = 64;
    s.tile_m = 64;
    s.tile_n = 64;
    auto w = make_workload(s);
    REQUIRE(w.ok());
    return *w;
}

struct SmemSteps {
    double fill = 0, write = 0, read = 0;
};

SmemSteps smem_steps(const Workload& w, const Hardware& hw) {
    auto launches = lower(w, hw);
    REQUIRE(launches.ok());
    std::vector<Step> steps;
    (*launches)[0].program(0, steps);
    SmemSteps s;
    for (const Step& st : steps) {
        if (st.kind == StepKind::smem_fill) s.fill += st.amount;
        if (st.kind == StepKind::smem_write) s.write += st.amount;
        if (st.kind == StepKind::smem_read) s.read += st.amount;
    }
    return s;
}

}  // namespace

TEST_CASE("smem fills: GEMM's tiles are all fills, flash1's epilogue and l/m stay st.shared writes", "[sim][smem_fill]") {
    const Hardware hw = test::test_gpu();
    const SmemSteps g = smem_steps(gemm(64, 64), hw);
    // 1024 / 32 = 32 k-steps of a 64 x 32 A tile and a 32 x 64 B tile, fp16: 8 KiB each step.
    CHECK(g.fill == 32 * 8192.0);
    CHECK(g.write == 0.0);
    const SmemSteps f2 = smem_steps(flash("attention-flash2"), hw);
    CHECK(f2.fill > 0);
    CHECK(f2.write == 0.0);
    const SmemSteps f1 = smem_steps(flash("attention-flash1"), hw);
    CHECK(f1.fill > 0);
    CHECK(f1.write > 0);  // the O tile written back through shared memory, and l, m
}

TEST_CASE("smem fills: the flag moves time, never bytes, and only where the pipe binds", "[sim][smem_fill]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    Hardware by = hw;
    by.calibration.smem_fill_bypass = 1.0;
    for (const Workload& w : {gemm(64, 64), gemm(128, 128), flash("attention-flash2"), flash("attention-flash1")}) {
        INFO(describe(w));
        const Prediction a = predict(w, hw);
        const Prediction b = predict(w, by);
        for (Metric m : {Metric::dram_bytes_read, Metric::dram_bytes_write, Metric::lts_t_bytes,
                         Metric::smem_bytes_read, Metric::smem_bytes_write})
            CHECK(b.total[m] == a.total[m]);
        CHECK(b.total[Metric::gpu_time_duration] <= a.total[Metric::gpu_time_duration] * (1 + 1e-12));
    }
    // The uncalibrated test GPU runs GEMM at the pipes' rates: 64 x 64 is shared-memory bound, so
    // taking its fills (8 KiB of the 32.6 KiB per k-step) off the pipe makes it faster.
    const Workload w = gemm(64, 64);
    CHECK(predict(w, by).total[Metric::gpu_time_duration] < predict(w, hw).total[Metric::gpu_time_duration]);
    Hardware zero = hw;
    zero.calibration.smem_fill_bypass = 0.0;
    CHECK(predict(w, zero).total[Metric::gpu_time_duration] == predict(w, hw).total[Metric::gpu_time_duration]);
    // The profile keeps the flag; anything but 0 or 1 is refused by name.
    CHECK(hardware_to_json(by).find("\"smem_fill_bypass\"") != std::string::npos);
    auto text = hardware_to_json(by);
    const auto at = text.find("\"smem_fill_bypass\"");
    REQUIRE(at != std::string::npos);
    const auto colon = text.find(':', at);
    const auto end = text.find_first_of(",}", colon);
    text.replace(colon + 1, end - colon - 1, " 0.5");
    auto bad = parse_hardware(text, "bad.json");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("smem_fill_bypass") != std::string::npos);
}
