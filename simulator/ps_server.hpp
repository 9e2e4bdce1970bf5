// PsServer: one shared resource served by processor sharing: egalitarian and tracked in virtual
// time (HBM, L2), or with per-job caps and age weights (the SM servers, below).
//
// Every job in service progresses at the same rate r(n) = min(capacity / n, per_job_cap) work
// units per ns, where n is the number of jobs in service. Because the rate is the same for every
// job, a job that arrives at virtual time V with `work` units finishes when the server's virtual
// clock reaches V + work, whatever happens to n in between. The server therefore keeps its jobs
// in a min-heap keyed by that finish stamp: adding or removing a job costs O(log n) and changing
// n only changes how fast the virtual clock runs, never the order. This is what makes fair
// sharing of HBM and L2 bandwidth among hundreds of blocks cheap enough for 1,000-point sweeps.
//
// Worked example: capacity 10 B/ns, no cap. Job a (100 B) arrives at t=0; job b (50 B) at t=5.
//   t in [0,5): n=1, r=10, V: 0 -> 50.  b's stamp = 50 + 50 = 100, a's stamp = 100.
//   t >= 5: n=2, r=5; V reaches 100 at t = 5 + 50/5 = 15: both finish at 15 (150 B in 15 ns).
//
// Per-job mode (configure_per_job; the SM servers). Each job has its own cap, given
// when it is added, and a priority (smaller = older: the engine passes its block's dispatch
// order); the job of age rank r (0 = oldest in service) gets weight age_weight^r (1: all alike).
// Rates are water-filled: job i runs at min(cap_i, L x w_i) with L chosen so that the rates add
// up to the capacity (or every job at its cap when that is less). Jobs here are few (at most an
// SM's resident blocks), so each keeps its remaining work and a change costs O(n).
// Worked example: capacity 1, caps 0.6, age_weight 0.5, three jobs of 6 units (ranks 0, 1, 2):
//   weights 1, 0.5, 0.25: L = 1 / 1.75 gives 0.571, 0.286, 0.143 (none above its cap).
//   The oldest finishes at 6 / 0.571 = 10.5; then L = 1 / 1.5 would give the next 0.667 > cap,
//   so it runs at 0.6 and the youngest at 0.4.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

namespace tilescope::sim {

class PsServer {
public:
    void configure(double capacity_per_ns, double per_job_cap_per_ns) {
        capacity_ = capacity_per_ns;
        cap_ = per_job_cap_per_ns;
        per_job_ = false;
    }
    // Per-job mode: caps come with each job (add), shares by age (see above).
    void configure_per_job(double capacity_per_ns, double age_weight) {
        capacity_ = capacity_per_ns;
        cap_ = std::numeric_limits<double>::infinity();
        age_weight_ = age_weight;
        per_job_ = true;
    }
    void reset(double now_ns) {
        heap_ = {};
        aged_.clear();
        n_ = 0;
        virtual_ = 0;
        last_ns_ = now_ns;
        seq_ = 0;
    }

    // Rate of one job in service (work units per ns; fair mode).
    double job_rate() const { return n_ == 0 ? 0.0 : std::min(capacity_ / static_cast<double>(n_), cap_); }
    // Rate of a job alone in service.
    double solo_rate() const { return std::min(capacity_, cap_); }
    // Total work served per ns right now.
    double throughput() const {
        if (!per_job_) return job_rate() * static_cast<double>(n_);
        double sum = 0;
        for (const Aged& a : aged_) sum += a.rate;
        return sum;
    }
    std::uint32_t jobs() const { return n_; }
    double last_ns() const { return last_ns_; }

    // Moves the virtual clock to `now_ns`.
    void advance(double now_ns) {
        if (now_ns > last_ns_) {
            if (per_job_) {
                for (Aged& a : aged_) a.left -= a.rate * (now_ns - last_ns_);
            } else {
                virtual_ += job_rate() * (now_ns - last_ns_);
            }
            last_ns_ = now_ns;
        }
    }

    // Adds a job with `work` > 0 units. Per-job mode: `priority` orders jobs by age (smaller =
    // older) and `cap` is its most work per ns (both ignored otherwise). Call advance(now) first.
    void add(double work, std::uint32_t job, std::uint64_t priority = 0,
             double cap = std::numeric_limits<double>::infinity()) {
        ++n_;
        if (per_job_) {
            const Aged a{work, work, 0.0, cap, 0.0, priority, job};
            aged_.insert(std::upper_bound(aged_.begin(), aged_.end(), a,
                                          [](const Aged& x, const Aged& y) { return x.priority < y.priority; }),
                         a);
            share();
            return;
        }
        heap_.push(Entry{virtual_ + work, seq_++, job});
    }

    // Real time at which the next job finishes (infinity when idle).
    double next_finish_ns() const {
        if (per_job_) {
            double t = std::numeric_limits<double>::infinity();
            for (const Aged& a : aged_) {
                if (a.rate > 0) t = std::min(t, a.left <= 0 ? last_ns_ : last_ns_ + a.left / a.rate);
            }
            return t;
        }
        if (heap_.empty()) return std::numeric_limits<double>::infinity();
        const double rate = job_rate();
        const double left = heap_.top().stamp - virtual_;
        return left <= 0 ? last_ns_ : last_ns_ + left / rate;
    }

    // Removes the job due now (the heap top) and every other job whose stamp the virtual clock
    // has reached within rounding, appending their ids to `done`. Call advance(now) first.
    void pop_finished(std::vector<std::uint32_t>& done) {
        if (per_job_) {
            pop_finished_aged(done);
            return;
        }
        if (heap_.empty()) return;
        done.push_back(heap_.top().job);
        heap_.pop();
        --n_;
        const double tolerance = 1e-12 * std::max(1.0, std::abs(virtual_));
        while (!heap_.empty() && heap_.top().stamp <= virtual_ + tolerance) {
            done.push_back(heap_.top().job);
            heap_.pop();
            --n_;
        }
    }

private:
    struct Aged {
        double left, work, rate, cap, weight;
        std::uint64_t priority;
        std::uint32_t job;
    };
    // Per-job mode: the job due next (the earliest finish) and every job whose remaining
    // work is zero within rounding.
    void pop_finished_aged(std::vector<std::uint32_t>& done) {
        if (aged_.empty()) return;
        std::size_t due = aged_.size();
        double best = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < aged_.size(); ++i) {
            const Aged& a = aged_[i];
            if (a.rate > 0 && a.left / a.rate < best) {
                best = a.left / a.rate;
                due = i;
            }
        }
        std::size_t kept = 0;
        for (std::size_t i = 0; i < aged_.size(); ++i) {
            const Aged& a = aged_[i];
            if (i == due || a.left <= 1e-12 * std::max(1.0, a.work)) {
                done.push_back(a.job);
                --n_;
            } else {
                aged_[kept++] = a;
            }
        }
        aged_.resize(kept);
        share();
    }
    // Water-fills the capacity over the jobs by age weight, each at most its cap: jobs whose
    // share would pass their cap run at it and the rest is shared again.
    void share() {
        double weights = 0, w = 1;
        for (Aged& a : aged_) {
            a.weight = w;
            a.rate = -1;  // not yet capped
            weights += w;
            w *= age_weight_;
        }
        double left = capacity_;
        for (std::size_t round = 0; round <= aged_.size(); ++round) {
            const double level = weights > 0 ? left / weights : 0.0;
            bool capped = false;
            for (Aged& a : aged_) {
                if (a.rate < 0 && level * a.weight >= a.cap) {
                    a.rate = a.cap;
                    left = std::max(0.0, left - a.cap);
                    weights -= a.weight;
                    capped = true;
                }
            }
            if (!capped) {
                for (Aged& a : aged_) {
                    if (a.rate < 0) a.rate = level * a.weight;
                }
                return;
            }
        }
    }
    std::vector<Aged> aged_;  // per-job mode: jobs in service, oldest first
    double age_weight_ = 1.0;
    bool per_job_ = false;

    struct Entry {
        double stamp;
        std::uint64_t seq;  // FIFO among equal stamps: keeps results deterministic
        std::uint32_t job;
        bool operator<(const Entry& o) const {  // std::priority_queue is a max-heap
            if (stamp != o.stamp) return stamp > o.stamp;
            return seq > o.seq;
        }
    };
    std::priority_queue<Entry> heap_;
    std::uint32_t n_ = 0;
    double capacity_ = 0;
    double cap_ = std::numeric_limits<double>::infinity();
    double virtual_ = 0;
    double last_ns_ = 0;
    std::uint64_t seq_ = 0;
};

}  // namespace tilescope::sim
