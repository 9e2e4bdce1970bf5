// With the L2 switched off, the simulator's bytes equal analytic() exactly, for every kernel
// family over a fixed-seed random set of shapes and tiles (ragged edges, causal, persistent).
#include <catch2/catch.hpp>
#include <random>

#include "core/analytic.hpp"
#include "core/lower.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;
using test::random_spec;

TEST_CASE("L2 off: simulator bytes == analytic bytes, every family", "[sim][analytic]") {
    const Hardware hw = test::test_gpu();
    const std::vector<Metric> exact = {Metric::dram_bytes_read, Metric::dram_bytes_write, Metric::lts_t_bytes,
                                       Metric::smem_bytes_read, Metric::smem_bytes_write};
    const std::vector<Metric> work = {Metric::flops, Metric::flops_tensor, Metric::flops_fp32, Metric::sfu_ops};
    std::mt19937_64 rng(20240601);
    for (const std::string kernel : {"attention-naive", "attention-flash1", "attention-flash2", "gemm", "softmax"}) {
        int checked = 0;
        for (int attempt = 0; attempt < 200 && checked < 12; ++attempt) {
            const WorkloadSpec spec = random_spec(kernel, rng);
            auto w = make_workload(spec);
            if (!w) continue;
            auto launches = lower(*w, hw);
            if (!launches) continue;  // illegal tile for this GPU
            const Prediction a = analytic(*w, *launches, hw);
            sim::Options opt;
            opt.l2 = false;
            opt.timeline = false;
            auto p = sim::simulate(*w, *launches, hw, opt);
            INFO(describe(*w));
            INFO((p ? std::string() : p.error().message));
            REQUIRE(p.ok());
            REQUIRE(p->launches.size() == a.launches.size());
            for (std::size_t i = 0; i < a.launches.size(); ++i) {
                INFO("launch " << a.launches[i].name);
                for (Metric m : exact) {
                    INFO(metric_name(m));
                    CHECK(p->launches[i].metrics[m] == a.launches[i].metrics[m]);
                }
                for (Metric m : work) {
                    INFO(metric_name(m));
                    CHECK(p->launches[i].metrics[m] == Approx(a.launches[i].metrics[m]).epsilon(1e-12));
                }
            }
            for (Metric m : exact) CHECK(p->total[m] == a.total[m]);
            // With the L2 on, requests reaching L2 are unchanged and HBM never exceeds them
            // by more than sector rounding.
            opt.l2 = true;
            auto q = sim::simulate(*w, *launches, hw, opt);
            REQUIRE(q.ok());
            CHECK(q->total[Metric::lts_t_bytes] == a.total[Metric::lts_t_bytes]);
            CHECK(q->total[Metric::smem_bytes_read] == a.total[Metric::smem_bytes_read]);
            ++checked;
        }
        INFO(kernel);
        CHECK(checked >= 8);
    }
}
