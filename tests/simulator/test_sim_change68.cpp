// docs/validation change 68: the HBM server's service slots (Calibration::hbm_server_slots), off
// by default. With S > 0 at most S requests share the HBM's bandwidth at once and the rest wait
// first come first served (limited processor sharing), so equal requests that arrive together
// leave in turn, S at a time, instead of all at the same instant, and blocks that start in step
// drift apart.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <vector>

#include "core/hardware.hpp"
#include "simulator/ps_server.hpp"
#include "simulator/simulate.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;
using tilescope::sim::PsServer;

namespace {

// Runs a server until it is idle and returns each job's finish time, by job id.
std::vector<double> drain(PsServer& s, std::size_t jobs) {
    std::vector<double> done_at(jobs, -1);
    std::vector<std::uint32_t> done;
    for (int guard = 0; s.jobs() > 0 && guard < 1000; ++guard) {
        const double t = s.next_finish_ns();
        s.advance(t);
        done.clear();
        s.pop_finished(done);
        for (std::uint32_t j : done) done_at[j] = t;
    }
    return done_at;
}

// A server of capacity 10 per ns with `slots` (0: plain sharing) and these jobs, ids 0, 1, ...,
// all arriving at t = 0.
PsServer server(std::uint32_t slots, std::initializer_list<double> works) {
    PsServer s;
    s.configure(10, 1e300);
    s.set_slots(slots);
    s.reset(0);
    std::uint32_t id = 0;
    for (double w : works) s.add(w, id++);
    return s;
}

}  // namespace

TEST_CASE("limited processor sharing: equal jobs that arrive together leave in turn", "[sim][change68]") {
    // Plain sharing: capacity 10 per ns, two jobs of 50 at t = 0 both leave at 10.
    PsServer ps = server(0, {50, 50});
    const auto shared = drain(ps, 2);
    CHECK(shared[0] == Approx(10));
    CHECK(shared[1] == Approx(10));

    // One slot: the first leaves at 5 at the full rate, the second waits and leaves at 10.
    PsServer one = server(1, {50, 50});
    CHECK(one.jobs() == 2);
    CHECK(one.waiting() == 1);
    CHECK(one.throughput() == Approx(10));
    const auto limited = drain(one, 2);
    CHECK(limited[0] == Approx(5));
    CHECK(limited[1] == Approx(10));

    // Two slots, four jobs of 20: pairs leave at 4 and 8, in arrival order; the same bytes take
    // the same time as with plain sharing (the server never idles while jobs wait).
    PsServer two = server(2, {20, 20, 20, 20});
    const auto pairs = drain(two, 4);
    CHECK(pairs[0] == Approx(4));
    CHECK(pairs[1] == Approx(4));
    CHECK(pairs[2] == Approx(8));
    CHECK(pairs[3] == Approx(8));
    CHECK(two.jobs() == 0);

    // As many slots as jobs: exactly plain sharing.
    PsServer many = server(2, {50, 50});
    CHECK(drain(many, 2) == shared);
}

namespace {

// A first wave of memory-bound blocks that start together: 132 SMs x 8 blocks, each loading
// 8 KiB of its own data in each of 16 steps with a little compute between them.
Launch in_step_wave() {
    test::SimpleLaunch s;
    s.blocks = 132 * 8;
    s.threads = 128;
    s.iterations = 16;
    s.load_bytes = 8192;
    s.fp32_flops = 2e4;
    return test::make_simple_launch(s);
}

Hardware slots_gpu(double slots) {
    Hardware hw = test::test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.hbm_server_slots = slots;
    return hw;
}

std::set<double> block_ends(const Prediction& p) {
    std::set<double> ends;
    for (const BlockSpan& b : p.launches.at(0).timeline) ends.insert(b.end_ns);
    return ends;
}

}  // namespace

TEST_CASE("HBM service slots: blocks that start in step drift apart with the same bytes", "[sim][change68]") {
    const Launch launch = in_step_wave();
    const Prediction ps = test::run({launch}, slots_gpu(0));
    const Prediction lps = test::run({launch}, slots_gpu(132));
    REQUIRE(ps.launches.at(0).timeline.size() == 132 * 8);
    // Processor sharing keeps the identical blocks in step to the end: they all end together.
    CHECK(block_ends(ps).size() == 1);
    // Limited sharing lets them leave the HBM in turn: with 132 slots the 1056 requests of a step
    // leave in (at least) eight groups of 132, so the blocks end in groups; with one slot every
    // request leaves alone and nearly every block ends at a time of its own (1037 of 1056 here;
    // a few blocks that share an SM end together).
    CHECK(block_ends(lps).size() >= 8);
    CHECK(block_ends(test::run({launch}, slots_gpu(1))).size() > 1000);
    // Same bytes at every level; the HBM is never idle while requests wait, so the launch is not
    // slower (here faster: loads and compute overlap once the blocks are out of step).
    CHECK(lps.total[Metric::dram_bytes_read] == ps.total[Metric::dram_bytes_read]);
    CHECK(lps.total[Metric::lts_t_bytes] == ps.total[Metric::lts_t_bytes]);
    CHECK(lps.total[Metric::gpu_time_duration] <= ps.total[Metric::gpu_time_duration] * 1.001);
    // Deterministic.
    CHECK(test::run({launch}, slots_gpu(132)).total[Metric::gpu_time_duration] == lps.total[Metric::gpu_time_duration]);
    // More slots than requests ever in the HBM at once: exactly processor sharing.
    CHECK(test::run({launch}, slots_gpu(1e6)).total[Metric::gpu_time_duration] == ps.total[Metric::gpu_time_duration]);
}

TEST_CASE("HBM service slots: a whole number kept in the profile and absent from the fingerprint at 0", "[sim][change68]") {
    test::check_optional_field("hbm_server_slots", &Calibration::hbm_server_slots, 132, {"-1", "1.5", "2000000"});
}
