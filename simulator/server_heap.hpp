// ServerHeap: the servers' next completion times in an indexed min-heap, updated in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace tilescope::sim {

// Servers' next completion times in an indexed min-heap updated in place: a server's time
// changes whenever its job count does, and a lazy queue would fill up with stale entries
// (it did: 2,640 resident blocks made it the hot spot).
class ServerHeap {
public:
    void reset(std::size_t n) {
        key_.assign(n, std::numeric_limits<double>::infinity());
        heap_.resize(n);
        pos_.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            heap_[i] = static_cast<std::uint32_t>(i);
            pos_[i] = i;
        }
    }
    void update(std::uint32_t s, double t) {
        const double old = key_[s];
        key_[s] = t;
        if (less(t, s, old, s)) up(pos_[s]); else down(pos_[s]);
    }
    std::uint32_t top() const { return heap_[0]; }
    double top_time() const { return key_[heap_[0]]; }

private:
    bool less(double ta, std::uint32_t a, double tb, std::uint32_t b) const { return ta < tb || (ta == tb && a < b); }
    bool less_at(std::size_t i, std::size_t j) const { return less(key_[heap_[i]], heap_[i], key_[heap_[j]], heap_[j]); }
    void swap_at(std::size_t i, std::size_t j) {
        std::swap(heap_[i], heap_[j]);
        pos_[heap_[i]] = i;
        pos_[heap_[j]] = j;
    }
    void up(std::size_t i) {
        while (i > 0 && less_at(i, (i - 1) / 2)) {
            swap_at(i, (i - 1) / 2);
            i = (i - 1) / 2;
        }
    }
    void down(std::size_t i) {
        const std::size_t n = heap_.size();
        while (true) {
            std::size_t best = i;
            const std::size_t l = 2 * i + 1, r = 2 * i + 2;
            if (l < n && less_at(l, best)) best = l;
            if (r < n && less_at(r, best)) best = r;
            if (best == i) return;
            swap_at(i, best);
            i = best;
        }
    }
    std::vector<double> key_;
    std::vector<std::uint32_t> heap_;
    std::vector<std::size_t> pos_;
};

}  // namespace tilescope::sim
