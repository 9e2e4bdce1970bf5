// Options::reuse_programs (Launch::repeat_of) is a speed-up only: with it on and off the
// simulator gives the same prediction, bit for bit (every metric of every launch, the extras, the
// timeline and the samples), for every kernel family over a fixed-seed random set of shapes and
// tiles, on the calibrated H100 profile (warp model, L1, coalescer on) and the datasheet one.
#include <catch2/catch.hpp>

#include <random>

#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "simulator/simulate.hpp"

using namespace tilescope;

namespace {

WorkloadSpec random_spec(const std::string& kernel, std::mt19937_64& rng) {
    auto pick = [&](std::initializer_list<std::int64_t> xs) {
        std::vector<std::int64_t> v(xs);
        return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
    };
    auto between = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
    WorkloadSpec s;
    s.kernel = kernel;
    s.dtype = between(0, 1) ? "fp16" : "bf16";
    s.persistent = between(0, 3) == 0;
    if (kernel.rfind("attention", 0) == 0) {
        s.batch = between(1, 3);
        s.heads = between(1, 4);
        s.seq = between(100, 1200);
        s.causal = between(0, 1) == 1;
        if (!*s.causal && between(0, 1) == 1) s.seq_kv = between(100, 1200);
        s.head_dim = pick({64, 128});
        s.tile_m = pick({32, 64, 128});
        s.tile_n = pick({32, 64});
        if (kernel == "attention-naive") s.variant = between(0, 1) ? "safe" : "online";
        if (kernel != "attention-flash1") s.stages = between(1, 2);
        s.warps = pick({2, 4, 8});
    } else if (kernel == "gemm") {
        s.m = between(100, 900);
        s.n = between(100, 900);
        s.k = between(32, 600);
        s.tile_m = pick({64, 128});
        s.tile_n = pick({64, 128});
        s.tile_k = 32;
        s.stages = between(1, 3);
        s.warps = pick({4, 8});
        s.raster = between(0, 1) ? "row" : "column";
    } else {
        s.rows = between(100, 5000);
        s.cols = between(100, 4000);
        s.tile_m = pick({1, 2, 4});
        s.tile_n = pick({256, 512, 1024});
        s.variant = between(0, 1) ? "safe" : "online";
        s.warps = pick({1, 2, 4});
    }
    return s;
}

void require_same(const Prediction& a, const Prediction& b) {
    REQUIRE(a.launches.size() == b.launches.size());
    for (std::size_t i = 0; i < a.launches.size(); ++i) {
        const LaunchResult& x = a.launches[i];
        const LaunchResult& y = b.launches[i];
        INFO("launch " << x.name);
        for (std::size_t m = 0; m < kMetricCount; ++m) {
            INFO(metric_name(static_cast<Metric>(m)));
            CHECK(x.metrics.values[m] == y.metrics.values[m]);
        }
        CHECK(x.bound == y.bound);
        CHECK(x.extra == y.extra);
        CHECK(x.start_ns == y.start_ns);
        REQUIRE(x.timeline.size() == y.timeline.size());
        for (std::size_t k = 0; k < x.timeline.size(); ++k) {
            const BlockSpan& s = x.timeline[k];
            const BlockSpan& t = y.timeline[k];
            CHECK((s.block == t.block && s.sm == t.sm && s.slot == t.slot && s.start_ns == t.start_ns &&
                   s.end_ns == t.end_ns && s.hbm_bytes == t.hbm_bytes && s.l2_bytes == t.l2_bytes &&
                   s.smem_bytes == t.smem_bytes && s.wave == t.wave));
        }
        REQUIRE(x.samples.size() == y.samples.size());
        for (std::size_t k = 0; k < x.samples.size(); ++k) {
            CHECK(x.samples[k].t_ns == y.samples[k].t_ns);
            CHECK(x.samples[k].hbm_bytes_per_s == y.samples[k].hbm_bytes_per_s);
            CHECK(x.samples[k].l2_bytes_per_s == y.samples[k].l2_bytes_per_s);
            CHECK(x.samples[k].bound == y.samples[k].bound);
        }
    }
    for (std::size_t m = 0; m < kMetricCount; ++m) CHECK(a.total.values[m] == b.total.values[m]);
    CHECK(a.bound == b.bound);
    CHECK(a.extra == b.extra);
}

}  // namespace

TEST_CASE("reusing a twin's program changes nothing in the prediction", "[sim][reuse]") {
    for (const char* profile : {"calibrated/h100-sxm", "h100-sxm"}) {
        auto hw = load_hardware(profile);
        REQUIRE(hw.ok());
        std::mt19937_64 rng(20261127);
        for (const std::string kernel : {"attention-naive", "attention-flash1", "attention-flash2", "gemm", "softmax"}) {
            int checked = 0;
            for (int attempt = 0; attempt < 100 && checked < 4; ++attempt) {
                auto w = make_workload(random_spec(kernel, rng));
                if (!w) continue;
                auto launches = lower(*w, *hw);
                if (!launches) continue;  // illegal tile on this GPU
                INFO(profile << ": " << describe(*w));
                sim::Options on;
                on.phase_budget = attempt % 2 ? 20000 : 200000;  // coarsened programs too
                sim::Options off = on;
                off.reuse_programs = false;
                auto a = sim::simulate(*w, *launches, *hw, on);
                auto b = sim::simulate(*w, *launches, *hw, off);
                REQUIRE(a.ok());
                REQUIRE(b.ok());
                require_same(*a, *b);
                ++checked;
            }
            INFO(kernel);
            CHECK(checked == 4);
        }
    }
}
