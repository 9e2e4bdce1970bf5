#include "simulator/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace tilescope::sim {

void Sampler::grow_to(double b_ns) {
    const auto max_bins = static_cast<std::size_t>(max_bins_);
    while (b_ns > width_ns_ * static_cast<double>(max_bins)) {
        const std::size_t half = (bins_.size() + 1) / 2;
        for (std::size_t i = 0; i < half; ++i) {
            std::array<double, kResCount> merged = bins_[2 * i];
            if (2 * i + 1 < bins_.size()) {
                for (std::size_t r = 0; r < kResCount; ++r) merged[r] += bins_[2 * i + 1][r];
            }
            bins_[i] = merged;
        }
        bins_.resize(half);
        width_ns_ *= 2;
    }
}

void Sampler::add(Res r, double a_ns, double b_ns, double rate) {
    if (!(b_ns > a_ns) || rate == 0) return;
    grow_to(b_ns);
    auto first = static_cast<std::size_t>(a_ns / width_ns_);
    auto last = static_cast<std::size_t>(b_ns / width_ns_);
    last = std::min(last, static_cast<std::size_t>(max_bins_) - 1);
    first = std::min(first, last);
    if (bins_.size() <= last) bins_.resize(last + 1, std::array<double, kResCount>{});
    for (std::size_t i = first; i <= last; ++i) {
        const double lo = std::max(a_ns, static_cast<double>(i) * width_ns_);
        const double hi = std::min(b_ns, static_cast<double>(i + 1) * width_ns_);
        if (hi > lo) bins_[i][r] += rate * (hi - lo);
    }
}

std::string Sampler::bin_bound(std::size_t i, const std::array<double, kResCount>& capacity,
                               double busy_threshold) const {
    double best = busy_threshold;
    std::string bound = "latency";
    for (std::size_t r = 0; r < kResCount; ++r) {
        if (capacity[r] <= 0) continue;
        const double util = bins_[i][r] / (capacity[r] * width_ns_);
        if (util > best) {
            best = util;
            bound = kResNames[r];
        }
    }
    return bound;
}

std::vector<ResourceSample> Sampler::samples(double end_ns, double launch_start_ns,
                                             const std::array<double, kResCount>& capacity,
                                             double busy_threshold) const {
    std::vector<ResourceSample> out;
    for (std::size_t i = 0; i < bins_.size(); ++i) {
        const double lo = static_cast<double>(i) * width_ns_;
        if (lo >= end_ns) break;
        const double w = std::min(width_ns_, end_ns - lo);
        ResourceSample s;
        s.t_ns = launch_start_ns + lo;
        s.hbm_bytes_per_s = bins_[i][kHbm] / w * 1e9;
        s.l2_bytes_per_s = bins_[i][kL2] / w * 1e9;
        s.bound = bin_bound(i, capacity, busy_threshold);
        out.push_back(std::move(s));
    }
    return out;
}

std::string Sampler::dominant_bound(double end_ns, const std::array<double, kResCount>& capacity,
                                    double busy_threshold) const {
    std::map<std::string, double> time_by_bound;
    for (std::size_t i = 0; i < bins_.size(); ++i) {
        const double lo = static_cast<double>(i) * width_ns_;
        if (lo >= end_ns) break;
        time_by_bound[bin_bound(i, capacity, busy_threshold)] += std::min(width_ns_, end_ns - lo);
    }
    std::string best = "latency";
    double best_t = -1;
    for (const auto& [name, t] : time_by_bound) {
        if (t > best_t) {
            best_t = t;
            best = name;
        }
    }
    return best;
}

}  // namespace tilescope::sim
