// Sampler: integrates resource usage over time into at most `max_bins` equal-width bins.
//
// The launch's length is not known in advance, so bins start 1 ns wide; when an interval would
// fall past the last bin, the width doubles and neighbouring bins merge pairwise. Every quantity
// is integrated exactly (rate x overlap), so merging loses resolution, never bytes.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "core/prediction.hpp"

namespace tilescope::sim {

enum Res : std::size_t { kHbm, kL2, kSmem, kTensor, kFp32, kSfu, kResCount };
inline constexpr std::array<const char*, kResCount> kResNames = {"hbm", "l2", "smem", "tensor",
                                                                  "fp32", "sfu"};

class Sampler {
public:
    explicit Sampler(int max_bins) : max_bins_(max_bins < 2 ? 2 : max_bins) {}

    // Adds `rate` (units per ns) of resource `r` over [a_ns, b_ns) (times relative to launch start).
    void add(Res r, double a_ns, double b_ns, double rate);

    // Per-bin samples up to `end_ns`. `capacity` is each resource's full rate over the whole GPU
    // (bytes per ns for hbm / l2, SM-ns per ns = sm_count for the per-SM units); a bin's bound is
    // the resource with the highest utilisation, or "latency" when none reaches `busy_threshold`.
    std::vector<ResourceSample> samples(double end_ns, double launch_start_ns,
                                        const std::array<double, kResCount>& capacity,
                                        double busy_threshold) const;

    // The resource binding most of the time over [0, end_ns) (by the bins' bounds).
    std::string dominant_bound(double end_ns, const std::array<double, kResCount>& capacity,
                               double busy_threshold) const;

private:
    void grow_to(double b_ns);
    std::string bin_bound(std::size_t i, const std::array<double, kResCount>& capacity,
                          double busy_threshold) const;
    int max_bins_;
    double width_ns_ = 1.0;
    std::vector<std::array<double, kResCount>> bins_;
};

}  // namespace tilescope::sim
