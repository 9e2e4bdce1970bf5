// L2 hand-worked cases: reuse under capacity, streaming over capacity, write-back and the dirty
// data carried from one launch to the next.
#include <catch2/catch.hpp>

#include <cmath>

#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;
using tilescope::test::make_simple_launch;
using tilescope::test::SimpleLaunch;

namespace {

using test::run;

constexpr std::int64_t kMiB = 1024 * 1024;

}  // namespace

TEST_CASE("working set well under L2: every byte read from HBM once", "[sim][l2]") {
    const Hardware hw = test::test_gpu();
    SimpleLaunch s;
    s.blocks = 132;
    s.threads = 256;
    s.iterations = 16;
    s.load_bytes = 65536;      // each block reads all of X (1 MiB) in 16 tiles
    s.same_data = true;
    s.x_bytes = kMiB;
    const Prediction p = run({make_simple_launch(s)}, hw);
    CHECK(p.total[Metric::dram_bytes_read] == static_cast<double>(kMiB));
    CHECK(p.total[Metric::lts_t_bytes] == static_cast<double>(132 * kMiB));
    CHECK(p.extra.at("l2_hit_rate") == Approx(131.0 / 132.0));
    // The same launch with the L2 off reads everything from HBM.
    const Prediction off = run({make_simple_launch(s)}, hw, false);
    CHECK(off.total[Metric::dram_bytes_read] == static_cast<double>(132 * kMiB));
    CHECK(off.total[Metric::gpu_time_duration] > p.total[Metric::gpu_time_duration]);
}

TEST_CASE("working set far over L2, streamed twice: re-read from HBM", "[sim][l2]") {
    const Hardware hw = test::test_gpu();
    SimpleLaunch s;
    s.blocks = 1;
    s.iterations = 2 * 200;   // two passes over a 200 MiB buffer, 1 MiB per iteration
    s.load_bytes = kMiB;
    s.same_data = true;
    s.x_bytes = 200 * kMiB;
    const Prediction p = run({make_simple_launch(s)}, hw);
    CHECK(p.total[Metric::dram_bytes_read] == static_cast<double>(400 * kMiB));
    CHECK(p.extra.at("l2_hit_rate") == 0.0);

    // The same two passes over 20 MiB (fits): the second pass hits.
    s.iterations = 2 * 20;
    s.x_bytes = 20 * kMiB;
    const Prediction q = run({make_simple_launch(s)}, hw);
    CHECK(q.total[Metric::dram_bytes_read] == static_cast<double>(20 * kMiB));
    CHECK(q.extra.at("l2_hit_rate") == Approx(0.5));
}

TEST_CASE("write-back: dirty data stays in L2, is reported, and is read by the next launch", "[sim][l2]") {
    const Hardware hw = test::test_gpu();
    // Launch 1 writes 4 MiB of Y (32 blocks x 128 KiB); launch 2 reads it back.
    SimpleLaunch w;
    w.blocks = 32;
    w.store_bytes = 128 * 1024;
    Launch writer = make_simple_launch(w, "writer");
    Launch reader;
    reader.name = "reader";
    reader.grid_x = 32;
    reader.threads_per_block = 128;
    reader.registers_per_thread = 32;
    reader.work_items = 32;
    reader.buffers = {Buffer{"Y", 32 * 128 * 1024, false}};
    reader.program = [](std::int64_t block, std::vector<Step>& out) {
        Step ld;
        ld.kind = StepKind::load;
        ld.region = Region{0, block * 128 * 1024, 128 * 1024, 1, 128 * 1024};
        ld.amount = 128 * 1024;
        out.push_back(ld);
    };
    const Prediction p = run({writer, reader}, hw);
    REQUIRE(p.launches.size() == 2);
    CHECK(p.launches[0].metrics[Metric::dram_bytes_write] == 0.0);
    CHECK(p.launches[0].extra.at("l2_dirty_bytes_at_end") == static_cast<double>(4 * kMiB));
    CHECK(p.launches[1].metrics[Metric::dram_bytes_read] == 0.0);   // all hits
    CHECK(p.launches[1].extra.at("l2_hit_rate") == 1.0);
    CHECK(p.extra.at("l2_dirty_bytes_at_end") == static_cast<double>(4 * kMiB));

    // L2 off: written through, read back from HBM.
    const Prediction off = run({writer, reader}, hw, false);
    CHECK(off.launches[0].metrics[Metric::dram_bytes_write] == static_cast<double>(4 * kMiB));
    CHECK(off.launches[1].metrics[Metric::dram_bytes_read] == static_cast<double>(4 * kMiB));
    CHECK(off.extra.at("l2_dirty_bytes_at_end") == 0.0);
}

TEST_CASE("stores over L2 capacity: write-backs + dirty at end == bytes stored", "[sim][l2]") {
    const Hardware hw = test::test_gpu();
    SimpleLaunch w;
    w.blocks = 400;
    w.store_bytes = 512 * 1024;  // 200 MiB in total, 4x the L2
    const Prediction p = run({make_simple_launch(w)}, hw);
    const double written = p.total[Metric::dram_bytes_write];
    const double dirty = p.extra.at("l2_dirty_bytes_at_end");
    CHECK(written + dirty == static_cast<double>(200 * kMiB));
    CHECK(dirty <= static_cast<double>(hw.l2_bytes));
    CHECK(dirty > 0.9 * static_cast<double>(hw.l2_bytes));
    CHECK(p.total[Metric::dram_bytes_read] == 0.0);  // write-allocate without fetch
}

// Calibration::l2_dirty_limit (docs/validation change 30): the H100 keeps 0.47 of its L2 dirty
// whatever a kernel writes; the rest is written back while the kernel runs.
TEST_CASE("a dirty limit: a store stream keeps the limit dirty, the rest reaches HBM", "[sim][l2]") {
    Hardware hw = test::test_gpu();
    hw.calibration.l2_dirty_limit = 0.474;
    SimpleLaunch w;
    w.blocks = 400;
    w.store_bytes = 512 * 1024;  // 200 MiB, 4x the L2
    const Prediction p = run({make_simple_launch(w)}, hw);
    const double written = p.total[Metric::dram_bytes_write];
    const double dirty = p.extra.at("l2_dirty_bytes_at_end");
    CHECK(written + dirty == static_cast<double>(200 * kMiB));
    CHECK(dirty <= 0.474 * static_cast<double>(hw.l2_bytes));
    CHECK(dirty > 0.46 * static_cast<double>(hw.l2_bytes));
    // The limit only moves write-backs: reads and L2 bytes are those of the profile without it.
    Hardware none = test::test_gpu();
    const Prediction q = run({make_simple_launch(w)}, none);
    CHECK(p.total[Metric::lts_t_bytes] == q.total[Metric::lts_t_bytes]);
    CHECK(p.total[Metric::dram_bytes_read] == q.total[Metric::dram_bytes_read]);
    CHECK(written > q.total[Metric::dram_bytes_write]);
    // Out of range: refused by name.
    hw.calibration.l2_dirty_limit = 1.5;
    auto bad = sim::simulate(test::test_workload(), {make_simple_launch(w)}, hw, sim::Options{});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("l2_dirty_limit") != std::string::npos);
}

// Calibration::l2_ways and l2_store_copy (docs/validation change 49): off by default (the
// profile without them predicts exactly as before), a stream twice through 1.2 L2s keeps part of
// it with sampled victims where the exact LRU keeps none, both round-trip through a profile and
// bad values are refused by name.
TEST_CASE("l2_ways and l2_store_copy: optional, a soft edge, range-checked", "[sim][l2][change49]") {
    Hardware hw = test::test_gpu();
    SimpleLaunch r;
    r.blocks = 264;
    r.iterations = 4;
    r.load_bytes = static_cast<std::int64_t>(static_cast<double>(hw.l2_bytes) * 1.2 / 264 / 4) / 4096 * 4096;
    const Launch l = make_simple_launch(r);  // 1.2 L2s of private data, read by two launches
    const Prediction lru = run({l, l}, hw);
    CHECK(lru.launches.at(1).metrics[Metric::dram_bytes_read] == lru.launches.at(0).metrics[Metric::dram_bytes_read]);
    Hardware soft = hw;
    soft.calibration.calibrated = true;
    soft.calibration.l2_ways = 12;
    const Prediction s = run({l, l}, soft);
    CHECK(s.launches.at(1).metrics[Metric::dram_bytes_read] < 0.9 * lru.launches.at(1).metrics[Metric::dram_bytes_read]);
    CHECK(run({l, l}, soft).total[Metric::dram_bytes_read] == s.total[Metric::dram_bytes_read]);  // reproducible
    soft.calibration.l2_store_copy = 1;
    const std::string text = hardware_to_json(soft);
    CHECK(hardware_to_json(hw).find("l2_ways") == std::string::npos);  // optional: not written at 0
    auto back = parse_hardware(text, "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.l2_ways == 12);
    CHECK(back->calibration.l2_store_copy == 1);
    CHECK(profile_fingerprint(*back) != profile_fingerprint(hw));
    for (const auto& [field, bad_value] : {std::pair{"l2_ways", "2.5"}, std::pair{"l2_ways", "300"},
                                           std::pair{"l2_ways", "-1"}, std::pair{"l2_store_copy", "0.5"}}) {
        auto parsed = parse_hardware(test::with_field(text, field, bad_value), "test");
        INFO(field << " = " << bad_value);
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.error().message.find(field) != std::string::npos);
    }
    // Change 74's l2_clean_victims: a flag, written when set, and only with sampled victims.
    soft.calibration.l2_clean_victims = 1;
    const std::string with_clean = hardware_to_json(soft);
    CHECK(text.find("l2_clean_victims") == std::string::npos);
    auto back_clean = parse_hardware(with_clean, "test");
    REQUIRE(back_clean.ok());
    CHECK(back_clean->calibration.l2_clean_victims == 1);
    CHECK(profile_fingerprint(*back_clean) != profile_fingerprint(*back));
    REQUIRE_FALSE(parse_hardware(test::with_field(with_clean, "l2_clean_victims", "0.5"), "test").ok());
    CHECK(sim::simulate(test::test_workload(), {l}, soft, sim::Options{}).ok());
    Hardware no_ways = soft;
    no_ways.calibration.l2_ways = 0;
    auto needs_ways = sim::simulate(test::test_workload(), {l}, no_ways, sim::Options{});
    REQUIRE_FALSE(needs_ways.ok());
    CHECK(needs_ways.error().message.find("l2_clean_victims") != std::string::npos);
    // Change 91's l2_dirty_weight and l2_dirty_age_weight: optional (written when not 1), in
    // the fingerprint, range-checked; an age weight below 1 only with sampled, not clean, victims.
    soft.calibration.l2_clean_victims = 0;
    soft.calibration.l2_dirty_weight = 1.5;
    soft.calibration.l2_dirty_age_weight = 0.7;
    const std::string with_dirty = hardware_to_json(soft);
    CHECK(text.find("l2_dirty_weight") == std::string::npos);
    CHECK(text.find("l2_dirty_age_weight") == std::string::npos);
    auto back_dirty = parse_hardware(with_dirty, "test");
    INFO((back_dirty ? std::string() : back_dirty.error().message));
    REQUIRE(back_dirty.ok());
    CHECK(back_dirty->calibration.l2_dirty_weight == 1.5);
    CHECK(back_dirty->calibration.l2_dirty_age_weight == 0.7);
    CHECK(profile_fingerprint(*back_dirty) != profile_fingerprint(*back));
    for (const auto& [field, bad_value] : {std::pair{"l2_dirty_weight", "0.5"}, std::pair{"l2_dirty_weight", "20"},
                                           std::pair{"l2_dirty_age_weight", "0"}, std::pair{"l2_dirty_age_weight", "1.5"}}) {
        auto parsed = parse_hardware(test::with_field(with_dirty, field, bad_value), "test");
        INFO(field << " = " << bad_value);
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.error().message.find(field) != std::string::npos);
    }
    auto age_needs_ways = parse_hardware(test::with_field(with_dirty, "l2_ways", "0"), "test");
    REQUIRE_FALSE(age_needs_ways.ok());
    CHECK(age_needs_ways.error().message.find("l2_dirty_age_weight") != std::string::npos);
    const Prediction dirty_run = run({l, l}, soft);  // a read-only launch: nothing is dirty
    soft.calibration.l2_dirty_weight = 1;
    soft.calibration.l2_dirty_age_weight = 1;
    CHECK(dirty_run.total[Metric::dram_bytes_read] == run({l, l}, soft).total[Metric::dram_bytes_read]);
    for (const auto& [weight, age] : {std::pair{0.5, 1.0}, std::pair{1.0, 1.2}}) {
        Hardware bad = soft;
        bad.calibration.l2_dirty_weight = weight;  // set in code: simulate refuses them
        bad.calibration.l2_dirty_age_weight = age;
        auto bad_run = sim::simulate(test::test_workload(), {l}, bad, sim::Options{});
        REQUIRE_FALSE(bad_run.ok());
        CHECK(bad_run.error().message.find(weight != 1.0 ? "l2_dirty_weight" : "l2_dirty_age_weight") != std::string::npos);
    }
    soft.calibration.l2_ways = 3.5;  // set in code, not read from a file: simulate refuses it
    auto refused = sim::simulate(test::test_workload(), {l}, soft, sim::Options{});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("l2_ways") != std::string::npos);
}

TEST_CASE("strided rows narrower than a sector over-fetch whole sectors", "[sim][l2]") {
    const Hardware hw = test::test_gpu();
    Launch l;
    l.name = "strided";
    l.grid_x = 1;
    l.threads_per_block = 128;
    l.registers_per_thread = 32;
    l.work_items = 1;
    l.buffers = {Buffer{"X", 64 * 1024, false}};
    l.program = [](std::int64_t, std::vector<Step>& out) {
        Step ld;
        ld.kind = StepKind::load;
        ld.region = Region{0, 0, 16, 100, 256};  // 100 rows of 16 B, 256 B apart
        ld.amount = 1600;
        out.push_back(ld);
    };
    const Prediction on = run({l}, hw);
    CHECK(on.total[Metric::lts_t_bytes] == 1600.0);
    CHECK(on.total[Metric::dram_bytes_read] == 100.0 * 32);  // one 32 B sector per row
    const Prediction off = run({l}, hw, false);
    CHECK(off.total[Metric::dram_bytes_read] == 1600.0);
}

TEST_CASE("an access the sampled chunk layout missed still gets sector-exact bytes", "[sim][l2]") {
    // 6000 blocks each load their own aligned 4 KiB, except block 3002 (not among the sampled
    // work items) which loads 100 B at +16: the layout must fall back to 32 B sectors.
    const Hardware hw = test::test_gpu();
    Launch l;
    l.name = "odd-one";
    l.grid_x = 6000;
    l.threads_per_block = 128;
    l.registers_per_thread = 32;
    l.work_items = 6000;
    l.buffers = {Buffer{"X", 6000 * 4096, false}};
    l.program = [](std::int64_t block, std::vector<Step>& out) {
        Step ld;
        ld.kind = StepKind::load;
        ld.region = block == 3002 ? Region{0, block * 4096 + 16, 100, 1, 100} : Region{0, block * 4096, 4096, 1, 4096};
        ld.amount = static_cast<double>(ld.region.bytes());
        out.push_back(ld);
    };
    const Prediction p = run({l}, hw);
    CHECK(p.total[Metric::lts_t_bytes] == 5999.0 * 4096 + 100);
    CHECK(p.total[Metric::dram_bytes_read] == 5999.0 * 4096 + 128);  // sectors [0, 128) of that 4 KiB
}

TEST_CASE("two L2 partitions: misses and stores are looked up again at their far home", "[sim][l2]") {
    // 132 blocks read the same 1 MiB (one HBM fill, 131 hits per line) and each stores 64 KiB.
    // With l2_partitions = 2 every line is homed in one partition and so is far from the other:
    // the SMs of that other partition look it up at its home once, then hit their own copy, so
    // the loads add exactly 1 MiB of second lookups. Stores always go to the home: those whose
    // line is homed in the far partition (about half, by the hash of simulator/l2_cache.hpp) are
    // counted a second time.
    Hardware hw = test::test_gpu();
    SimpleLaunch s;
    s.blocks = 132;
    s.threads = 256;
    s.iterations = 16;
    s.load_bytes = 65536;
    s.same_data = true;
    s.x_bytes = kMiB;
    s.store_bytes = 65536;
    const double requested = 132.0 * kMiB + 132.0 * 65536;
    const Prediction one = run({make_simple_launch(s)}, hw);
    CHECK(one.total[Metric::lts_t_bytes] == requested);
    hw.l2_partitions = 2;
    const Prediction two = run({make_simple_launch(s)}, hw);
    CHECK(two.total[Metric::dram_bytes_read] == one.total[Metric::dram_bytes_read]);
    const double far_stores = two.total[Metric::lts_t_bytes] - requested - static_cast<double>(kMiB);
    CHECK(far_stores >= 0.4 * 132.0 * 65536);
    CHECK(far_stores <= 0.6 * 132.0 * 65536);
    CHECK(std::fmod(far_stores, 65536.0) == 0);  // whole chunks: a 64 KiB store is one chunk
    // The time model is unchanged: the L2 server still carries the requested bytes.
    CHECK(two.total[Metric::gpu_time_duration] == one.total[Metric::gpu_time_duration]);
}
