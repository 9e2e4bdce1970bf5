// The L1 model (Hardware::l1_smem_bytes_per_sm, Launch::l1_cached_loads): the softmax kernel's
// re-reads of a row hit the SM's L1 when the rows in flight fit in what the carve-out leaves,
// never reach the L2 (lts__t_bytes), and only then.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "core/analytic.hpp"
#include "core/lower.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

namespace {
Workload softmax(std::int64_t rows, std::int64_t cols, bool online, int warps) {
    WorkloadSpec s;
    s.kernel = "softmax";
    s.rows = rows;
    s.cols = cols;
    s.variant = online ? "online" : "safe";
    s.tile_m = 1;
    s.tile_n = warps * 256;
    s.warps = warps;
    s.stages = 1;
    auto w = make_workload(s);
    REQUIRE(w.ok());
    return *w;
}

Prediction run(const Workload& w, const Hardware& hw, bool l2 = true) {
    auto launches = lower(w, hw);
    REQUIRE(launches.ok());
    REQUIRE(launches->front().l1_cached_loads);
    sim::Options opt;
    opt.l2 = l2;
    opt.timeline = false;
    auto p = sim::simulate(w, *launches, hw, opt);
    REQUIRE(p.ok());
    return *p;
}
}  // namespace

TEST_CASE("L1: a safe softmax whose rows fit re-reads them from L1, outside lts", "[sim][l1]") {
    Hardware with = test::test_gpu();
    with.l1_smem_bytes_per_sm = 256 * 1024;
    with.l1_latency_ns = 16;
    Hardware without = with;
    without.l1_smem_bytes_per_sm = 0;
    // 4096 rows of 1024 fp16 (2 KiB each), one warp per row: 32 rows per SM are 64 KiB, well
    // inside the L1. Passes 2 and 3 re-read every row: 2 x 8 MiB from L1.
    const Workload w = softmax(4096, 1024, false, 1);
    const Prediction a = run(w, with), b = run(w, without);
    const double row_bytes = 4096.0 * 1024 * 2;
    CHECK(a.launches[0].extra.at("l1_hit_bytes") == 2 * row_bytes);
    CHECK(b.launches[0].extra.count("l1_hit_bytes") == 0);
    CHECK(b.total[Metric::lts_t_bytes] - a.total[Metric::lts_t_bytes] >= 2 * row_bytes);
    // HBM bytes do not change (the re-reads hit the L2 without an L1), time does.
    CHECK(a.total[Metric::dram_bytes_read] == b.total[Metric::dram_bytes_read]);
    CHECK(a.total[Metric::gpu_time_duration] < b.total[Metric::gpu_time_duration]);
    // The online variant reads each row twice: one re-read from L1.
    const Prediction o = run(softmax(4096, 1024, true, 1), with);
    CHECK(o.launches[0].extra.at("l1_hit_bytes") == row_bytes);
}

TEST_CASE("L1: rows that outgrow the L1 get no hits, and L2 off means no L1", "[sim][l1]") {
    Hardware hw = test::test_gpu();
    hw.l1_smem_bytes_per_sm = 256 * 1024;
    hw.l1_latency_ns = 16;
    // 32 KiB rows, 32 one-warp blocks per SM: 1 MiB streamed per SM through a 224 KiB LRU
    // between a row's passes, so every re-read misses.
    const Prediction big = run(softmax(4224, 16384, false, 1), hw);
    CHECK(big.launches[0].extra.at("l1_hit_bytes") == 0);
    // A smaller L1 (what a larger carve-out leaves) holds fewer rows: 32 one-warp blocks that
    // declare 32 B of shared memory each (plus the 1 KiB reservation) take the 64 KiB carve-out,
    // so 96 KiB of L1 leaves 32 KiB, 16 rows of 2 KiB for 32 blocks in flight.
    Hardware small = hw;
    small.l1_smem_bytes_per_sm = 96 * 1024;
    const Prediction s = run(softmax(4096, 1024, false, 1), small), l = run(softmax(4096, 1024, false, 1), hw);
    CHECK(s.launches[0].extra.at("l1_hit_bytes") < l.launches[0].extra.at("l1_hit_bytes"));
    // --l2 off: every load reaches HBM, as analytic() counts them.
    const Workload w = softmax(4096, 1024, false, 1);
    const Prediction off = run(w, hw, false);
    auto launches = lower(w, hw);
    CHECK(off.total[Metric::lts_t_bytes] == analytic(w, *launches, hw).total[Metric::lts_t_bytes]);
    CHECK(off.launches[0].extra.count("l1_hit_bytes") == 0);
}

TEST_CASE("coarsening keeps a multi-pass kernel's passes apart: re-reads still miss when rows outgrow the caches",
          "[sim][l1][coarsen]") {
    Hardware hw = test::test_gpu();  // 50 MiB L2
    hw.l1_smem_bytes_per_sm = 256 * 1024;
    hw.l1_latency_ns = 16;
    // 32 KiB rows, 16 four-warp blocks per SM: 132 x 16 x 32 KiB = 66 MiB between a row's passes,
    // more than the L2 and the L1s hold, so each of the three passes reads the rows from HBM.
    // 16896 rows x 48 iterations exceed the phase budget: runs of iterations are merged, but
    // never across a pass (Launch::reread_period), else a run would re-read its rows at once.
    const Workload w = softmax(16896, 16384, false, 4);
    auto launches = lower(w, hw);
    REQUIRE(launches.ok());
    CHECK(launches->front().reread_period == 16);
    sim::Options coarse;
    coarse.timeline = false;
    coarse.phase_budget = 16896 * 3;  // one phase per pass
    sim::Options exact = coarse;
    exact.phase_budget = 0;
    auto c = sim::simulate(w, *launches, hw, coarse);
    auto e = sim::simulate(w, *launches, hw, exact);
    REQUIRE(c.ok());
    REQUIRE(e.ok());
    CHECK(c->launches[0].extra.at("sim_iterations_per_phase") == 16.0);
    const double x_bytes = 16896.0 * 16384 * 2;
    CHECK(e->total[Metric::dram_bytes_read] > 2.5 * x_bytes);
    // Within 10% of the exact run (2.9x the rows; a run merging the passes would read them once).
    CHECK(c->total[Metric::dram_bytes_read] == Approx(e->total[Metric::dram_bytes_read]).epsilon(0.10));
    // A budget of one phase per block would merge all 48 iterations; the period caps runs at 16.
    sim::Options tight = coarse;
    tight.phase_budget = 16896;
    auto t = sim::simulate(w, *launches, hw, tight);
    REQUIRE(t.ok());
    CHECK(t->launches[0].extra.at("sim_iterations_per_phase") == 16.0);
    CHECK(t->total[Metric::dram_bytes_read] == Approx(e->total[Metric::dram_bytes_read]).epsilon(0.10));
}

TEST_CASE("fragment stores count the sectors they touch in lts__t_bytes, not in HBM bytes", "[sim][stores]") {
    const Hardware hw = test::test_gpu();  // 32-byte sectors
    test::SimpleLaunch s;
    s.blocks = 264;
    s.load_bytes = 4096;
    s.store_bytes = 8192;
    Launch l = test::make_simple_launch(s);
    sim::Options opt;
    opt.timeline = false;
    auto whole = sim::simulate(test::test_workload(), {l}, hw, opt);
    l.fragment_store_row_bytes = 16;  // fp16 fragments: half sectors
    auto frag = sim::simulate(test::test_workload(), {l}, hw, opt);
    REQUIRE(whole.ok());
    REQUIRE(frag.ok());
    const double stored = 264.0 * 8192;
    // Stores and their far lookups count double; loads and HBM bytes are unchanged.
    CHECK(frag->total[Metric::lts_t_bytes] - whole->total[Metric::lts_t_bytes] ==
          Approx(stored * (1 + hw.l2_far_share())));
    CHECK(frag->total[Metric::dram_bytes_write] == whole->total[Metric::dram_bytes_write]);
    CHECK(frag->total[Metric::dram_bytes_read] == whole->total[Metric::dram_bytes_read]);
    // The analytic model counts the same sectors, so L2 off still equals it exactly.
    opt.l2 = false;
    auto off = sim::simulate(test::test_workload(), {l}, hw, opt);
    REQUIRE(off.ok());
    CHECK(off->total[Metric::lts_t_bytes] == analytic(test::test_workload(), {l}, hw).total[Metric::lts_t_bytes]);
    // fp32 fragments (8 B per lane, 32 B per row segment) fill whole sectors.
    l.fragment_store_row_bytes = 32;
    CHECK(l.store_sector_factor(32) == 1);
}

// Change 25 (docs/validation): random replacement and a usable share of the L1. Rows that fit
// an LRU (64 KiB in flight per SM, 224 KiB of L1) all hit it; random replacement misses some of them, the same
// ones on every run; a share of 0.5 misses more; the share alone (an LRU of 112 KiB) still holds them (but for
// the few rows whose blocks drift apart).
TEST_CASE("L1: random replacement and the usable share", "[sim][l1]") {
    Hardware lru = test::test_gpu();
    lru.l1_smem_bytes_per_sm = 256 * 1024;
    lru.l1_latency_ns = 16;
    lru.calibration.calibrated = true;  // calibration fields apply to calibrated profiles only
    Hardware rnd = lru;
    rnd.calibration.l1_random_replacement = 1;
    Hardware half = rnd;
    half.calibration.l1_capacity_fraction = 0.5;
    Hardware lru_half = lru;
    lru_half.calibration.l1_capacity_fraction = 0.5;
    // 33792 rows of 2 KiB, 32 one-warp blocks per SM at a time (64 KiB), 8 waves: the L1 keeps
    // allocating, so random replacement has to evict.
    const Workload w = softmax(33792, 1024, false, 1);
    const double rereads = 2 * 33792.0 * 1024 * 2;
    const double all = run(w, lru).launches[0].extra.at("l1_hit_bytes");
    CHECK(all == rereads);
    CHECK(run(w, lru_half).launches[0].extra.at("l1_hit_bytes") >= 0.99 * rereads);
    const Prediction r1 = run(w, rnd), r2 = run(w, rnd);
    const double r = r1.launches[0].extra.at("l1_hit_bytes");
    CHECK(r == r2.launches[0].extra.at("l1_hit_bytes"));
    CHECK(r1.total[Metric::gpu_time_duration] == r2.total[Metric::gpu_time_duration]);
    CHECK(r < rereads);
    CHECK(r > 0.5 * rereads);
    const double h = run(w, half).launches[0].extra.at("l1_hit_bytes");
    CHECK(h < r);
    CHECK(h > 0);
    // What missed the L1 is read from the L2 instead.
    CHECK(run(w, half).total[Metric::lts_t_bytes] > r1.total[Metric::lts_t_bytes]);
}

TEST_CASE("L1 fields of a profile: a flag and a share 0 < s <= 1", "[sim][l1]") {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.l1_random_replacement = 1;
    hw.calibration.l1_capacity_fraction = 0.5;
    const std::string text = hardware_to_json(hw);
    auto back = parse_hardware(text, "test");
    REQUIRE(back.ok());
    CHECK(back->calibration.l1_random_replacement == 1);
    CHECK(back->calibration.l1_capacity_fraction == 0.5);
    // Defaults are not written, so older profiles (and their fingerprints) are unchanged.
    Hardware defaults = test::test_gpu();
    defaults.calibration.calibrated = true;
    const std::string plain = hardware_to_json(defaults);
    CHECK(plain.find("l1_random_replacement") == std::string::npos);
    CHECK(plain.find("l1_capacity_fraction") == std::string::npos);
    for (const auto& [field, value] : {std::pair<std::string, std::string>{"l1_random_replacement", "0.5"},
                                       {"l1_capacity_fraction", "0"},
                                       {"l1_capacity_fraction", "1.5"}}) {
        auto bad = parse_hardware(test::with_field(text, field, value), "test");
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().message.find(field) != std::string::npos);
    }
}
