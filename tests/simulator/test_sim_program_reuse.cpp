// Options::reuse_programs (Launch::repeat_of) is a speed-up only: with it on and off the
// simulator gives the same prediction, bit for bit (every metric of every launch, the extras, the
// timeline and the samples), for every kernel family over a fixed-seed random set of shapes and
// tiles, on the calibrated H100 profile (warp model, L1, coalescer on) and the datasheet one.
#include <catch2/catch.hpp>

#include <random>

#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;
using test::random_spec;

namespace {

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
            for (int attempt = 0; attempt < 200 && checked < 4; ++attempt) {
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
