// PsServer: one shared resource served by egalitarian processor sharing, tracked in virtual time.
//
// Every job in service progresses at the same rate r(n) = min(capacity / n, per_job_cap) work
// units per ns, where n is the number of jobs in service. Because the rate is the same for every
// job, a job that arrives at virtual time V with `work` units finishes when the server's virtual
// clock reaches V + work, whatever happens to n in between. The server therefore keeps its jobs
// in a min-heap keyed by that finish stamp: adding or removing a job costs O(log n) and changing
// n only changes how fast the virtual clock runs, never the order. This is what makes fair
// sharing of HBM and L2 bandwidth among hundreds of blocks cheap enough for 1,000-point sweeps.
//
// Limited processor sharing (set_slots(S), S > 0; docs/validation change 68): at most S jobs are
// in service and share the capacity as above; a job that arrives when S are in service waits in
// a first-come-first-served queue and enters service, with its whole work, when one leaves.
// Equal jobs that arrive together then leave in turn, S at a time, instead of all at once.
// Example: capacity 10 B/ns, S = 1, jobs a and b of 50 B at t = 0: a leaves at 5, b at 10 (with
// plain sharing both leave at 10).
//
// Worked example: capacity 10 B/ns, no cap. Job a (100 B) arrives at t=0; job b (50 B) at t=5.
//   t in [0,5): n=1, r=10, V: 0 -> 50.  b's stamp = 50 + 50 = 100, a's stamp = 100.
//   t >= 5: n=2, r=5; V reaches 100 at t = 5 + 50/5 = 15: both finish at 15 (150 B in 15 ns).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <queue>
#include <vector>

namespace tilescope::sim {

class PsServer {
public:
    void configure(double capacity_per_ns, double per_job_cap_per_ns) {
        capacity_ = capacity_per_ns;
        cap_ = per_job_cap_per_ns;
    }
    void reset(double now_ns) {
        heap_ = {};
        waiting_.clear();
        n_ = 0;
        virtual_ = 0;
        last_ns_ = now_ns;
        seq_ = 0;
    }

    // Rate of one job in service (work units per ns).
    double job_rate() const { return n_ == 0 ? 0.0 : std::min(capacity_ / static_cast<double>(n_), cap_); }
    // Rate of a job alone in service.
    double solo_rate() const { return std::min(capacity_, cap_); }
    // Total work served per ns right now.
    double throughput() const { return job_rate() * static_cast<double>(n_); }
    // Jobs in service plus jobs waiting for a slot.
    std::uint32_t jobs() const { return n_ + static_cast<std::uint32_t>(waiting_.size()); }
    // Jobs waiting for a slot (limited processor sharing only).
    std::uint32_t waiting() const { return static_cast<std::uint32_t>(waiting_.size()); }
    // At most `slots` jobs in service, the rest queue first come first served; 0: no limit.
    void set_slots(std::uint32_t slots) { slots_ = slots; }
    double last_ns() const { return last_ns_; }

    // Moves the virtual clock to `now_ns`.
    void advance(double now_ns) {
        if (now_ns > last_ns_) {
            virtual_ += job_rate() * (now_ns - last_ns_);
            last_ns_ = now_ns;
        }
    }

    // Adds a job with `work` > 0 units. Call advance(now) first.
    void add(double work, std::uint32_t job) {
        if (slots_ > 0 && n_ >= slots_) {
            waiting_.push_back(Waiting{work, job});
            return;
        }
        heap_.push(Entry{virtual_ + work, seq_++, job});
        ++n_;
    }

    // Real time at which the next job finishes (infinity when idle).
    double next_finish_ns() const {
        if (heap_.empty()) return std::numeric_limits<double>::infinity();
        const double rate = job_rate();
        const double left = heap_.top().stamp - virtual_;
        return left <= 0 ? last_ns_ : last_ns_ + left / rate;
    }

    // Removes the job due now (the heap top) and every other job whose stamp the virtual clock
    // has reached within rounding, appending their ids to `done`. Call advance(now) first.
    void pop_finished(std::vector<std::uint32_t>& done) {
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
        // Freed slots go to the waiting jobs in arrival order.
        while (slots_ > 0 && n_ < slots_ && !waiting_.empty()) {
            heap_.push(Entry{virtual_ + waiting_.front().work, seq_++, waiting_.front().job});
            waiting_.pop_front();
            ++n_;
        }
    }

private:
    struct Entry {
        double stamp;
        std::uint64_t seq;  // FIFO among equal stamps: keeps results deterministic
        std::uint32_t job;
        bool operator<(const Entry& o) const {  // std::priority_queue is a max-heap
            if (stamp != o.stamp) return stamp > o.stamp;
            return seq > o.seq;
        }
    };
    struct Waiting {
        double work;
        std::uint32_t job;
    };
    std::priority_queue<Entry> heap_;
    std::deque<Waiting> waiting_;
    std::uint32_t slots_ = 0;
    std::uint32_t n_ = 0;
    double capacity_ = 0;
    double cap_ = std::numeric_limits<double>::infinity();
    double virtual_ = 0;
    double last_ns_ = 0;
    std::uint64_t seq_ = 0;
};

}  // namespace tilescope::sim
