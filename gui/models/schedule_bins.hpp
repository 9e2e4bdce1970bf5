// Aggregation of a block timeline for drawing when zoomed out: per SM and per pixel column,
// the fraction of the SM's resident slot_count that are busy, and the mean wave of that work.
// O(blocks + covered columns), so 100,000 blocks redraw in milliseconds.
#pragma once

#include <vector>

#include "core/prediction.hpp"

namespace tilescope::gui {

struct ScheduleBins {
    int sm_count = 0;
    int columns = 0;
    double t0_ns = 0, t1_ns = 0;
    std::vector<float> busy;       // sm * columns + col: busy slot fraction in [0, 1]
    std::vector<float> mean_wave;  // overlap-weighted mean wave (NaN where idle)
    float busyAt(int sm, int col) const { return busy[static_cast<std::size_t>(sm * columns + col)]; }
    float waveAt(int sm, int col) const { return mean_wave[static_cast<std::size_t>(sm * columns + col)]; }
};

// slots_per_sm: resident blocks per SM (>= 1). Spans outside [t0, t1) are ignored.
ScheduleBins bin_timeline(const std::vector<BlockSpan>& spans, int sm_count, int slots_per_sm,
                          double t0_ns, double t1_ns, int columns);

// Time range and SM count covered by a timeline.
struct TimelineExtent {
    double start_ns = 0, end_ns = 0;
    int sm_count = 0;       // 1 + largest SM index
    int slot_count = 1;          // 1 + largest slot index
    long long waves = 0;    // 1 + largest wave index
};
TimelineExtent timeline_extent(const std::vector<BlockSpan>& spans);

}  // namespace tilescope::gui
