// PsServer (simulator/ps_server.hpp): the fair, virtual-time mode the HBM and L2 servers use and
// the per-job mode of the SM servers (each job its own cap, shares by age weight).
#include <catch2/catch.hpp>

#include <limits>
#include <map>
#include <vector>

#include "simulator/ps_server.hpp"

using tilescope::sim::PsServer;

namespace {

struct Arrival {
    double at, work, cap;
    std::uint32_t job;
    std::uint64_t priority;
};

// Runs `arrivals` (sorted by time) through `s` and returns each job's finish time.
std::map<std::uint32_t, double> finishes(PsServer& s, std::vector<Arrival> arrivals) {
    std::map<std::uint32_t, double> out;
    s.reset(0);
    std::size_t next = 0;
    std::vector<std::uint32_t> done;
    while (next < arrivals.size() || s.jobs() > 0) {
        const double t_finish = s.next_finish_ns();
        if (next < arrivals.size() && arrivals[next].at <= t_finish) {
            const Arrival& a = arrivals[next++];
            s.advance(a.at);
            s.add(a.work, a.job, a.priority, a.cap);
            continue;
        }
        s.advance(t_finish);
        done.clear();
        s.pop_finished(done);
        REQUIRE_FALSE(done.empty());
        for (std::uint32_t j : done) out[j] = t_finish;
    }
    return out;
}

}  // namespace

TEST_CASE("ps server: the header's fair worked example", "[sim][ps_server]") {
    PsServer s;
    s.configure(10, std::numeric_limits<double>::infinity());
    const auto f = finishes(s, {{0, 100, 0, 1, 0}, {5, 50, 0, 2, 0}});
    CHECK(f.at(1) == Approx(15));
    CHECK(f.at(2) == Approx(15));
}

TEST_CASE("ps server: per-job mode with equal weights and caps is the fair mode", "[sim][ps_server]") {
    const std::vector<Arrival> arrivals = {
        {0, 30, 0.4, 1, 0}, {2, 10, 0.4, 2, 1}, {3, 25, 0.4, 3, 2}, {9, 5, 0.4, 4, 3}, {30, 8, 0.4, 5, 4}};
    PsServer fair, per_job;
    fair.configure(1.0, 0.4);
    per_job.configure_per_job(1.0, 1.0);
    const auto a = finishes(fair, arrivals);
    const auto b = finishes(per_job, arrivals);
    REQUIRE(a.size() == arrivals.size());
    for (const auto& [job, t] : a) CHECK(b.at(job) == Approx(t).epsilon(1e-9));
}

TEST_CASE("ps server: age weights and caps as the header's worked example", "[sim][ps_server]") {
    PsServer s;
    s.configure_per_job(1.0, 0.5);
    // Three jobs of 6 units, caps 0.6, ranks 0 (job 7), 1 (job 8), 2 (job 9); added out of order.
    const auto f = finishes(s, {{0, 6, 0.6, 9, 30}, {0, 6, 0.6, 7, 10}, {0, 6, 0.6, 8, 20}});
    // 0.571 / 0.286 / 0.143 until the oldest finishes at 10.5; job 8 has 3 left and runs at 0.6,
    // job 9 has 4.5 left at 0.4: job 8 at 15.5, when job 9 has 2.5 left, alone at 0.6: 19.67.
    CHECK(f.at(7) == Approx(10.5));
    CHECK(f.at(8) == Approx(15.5));
    CHECK(f.at(9) == Approx(15.5 + 2.5 / 0.6));
}

TEST_CASE("ps server: per-job caps are water-filled and the capacity is never exceeded", "[sim][ps_server]") {
    PsServer s;
    s.configure_per_job(1.0, 1.0);
    s.reset(0);
    // A job capped at 0.1 and two uncapped ones: 0.1 + 0.45 + 0.45.
    s.add(1.0, 1, 0, 0.1);
    s.add(9.0, 2, 1, 1.0);
    s.add(9.0, 3, 2, 1.0);
    CHECK(s.throughput() == Approx(1.0));
    CHECK(s.next_finish_ns() == Approx(10.0));  // job 1: 1 unit at 0.1
    // All capped below the capacity: each at its cap, throughput their sum.
    PsServer t;
    t.configure_per_job(1.0, 0.3);
    t.reset(0);
    t.add(1.0, 1, 0, 0.2);
    t.add(1.0, 2, 1, 0.25);
    CHECK(t.throughput() == Approx(0.45));
    CHECK(t.next_finish_ns() == Approx(4.0));  // job 2 at 0.25
    // Total work is conserved whatever the weights: n jobs of w units under capacity 1, no caps,
    // all done at n x w.
    for (const double weight : {1.0, 0.7, 0.2, 0.01}) {
        PsServer u;
        u.configure_per_job(1.0, weight);
        const auto f = finishes(u, {{0, 5, 1, 1, 0}, {0, 5, 1, 2, 1}, {0, 5, 1, 3, 2}, {0, 5, 1, 4, 3}});
        double last = 0, first = 1e300;
        for (const auto& [job, t_end] : f) {
            last = std::max(last, t_end);
            first = std::min(first, t_end);
        }
        CHECK(last == Approx(20.0));
        if (weight < 1) CHECK(f.at(1) == Approx(first));  // the oldest finishes first
        else CHECK(first == Approx(20.0));                 // fair: all together
    }
}
