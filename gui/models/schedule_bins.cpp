#include "gui/models/schedule_bins.hpp"

#include <algorithm>
#include <cmath>

namespace tilescope::gui {

ScheduleBins bin_timeline(const std::vector<BlockSpan>& spans, int sm_count, int slots_per_sm,
                          double t0_ns, double t1_ns, int columns) {
    ScheduleBins bins;
    bins.sm_count = std::max(sm_count, 0);
    bins.columns = std::max(columns, 0);
    bins.t0_ns = t0_ns;
    bins.t1_ns = t1_ns;
    const std::size_t cells = static_cast<std::size_t>(bins.sm_count) * static_cast<std::size_t>(bins.columns);
    bins.busy.assign(cells, 0.0f);
    bins.mean_wave.assign(cells, std::nanf(""));
    if (cells == 0 || !(t1_ns > t0_ns)) return bins;
    std::vector<double> overlap(cells, 0.0), wave_sum(cells, 0.0);
    const double col_ns = (t1_ns - t0_ns) / bins.columns;
    for (const BlockSpan& s : spans) {
        if (s.sm < 0 || s.sm >= bins.sm_count) continue;
        const double a = std::max(s.start_ns, t0_ns);
        const double b = std::min(s.end_ns, t1_ns);
        if (!(b > a)) continue;
        int c0 = static_cast<int>((a - t0_ns) / col_ns);
        int c1 = static_cast<int>((b - t0_ns) / col_ns);
        c0 = std::clamp(c0, 0, bins.columns - 1);
        c1 = std::clamp(c1, 0, bins.columns - 1);
        for (int c = c0; c <= c1; ++c) {
            const double lo = t0_ns + c * col_ns;
            const double ov = std::min(b, lo + col_ns) - std::max(a, lo);
            if (ov <= 0) continue;
            const std::size_t i = static_cast<std::size_t>(s.sm) * static_cast<std::size_t>(bins.columns) +
                                  static_cast<std::size_t>(c);
            overlap[i] += ov;
            wave_sum[i] += ov * static_cast<double>(s.wave);
        }
    }
    const double slot_ns = col_ns * std::max(slots_per_sm, 1);
    for (std::size_t i = 0; i < cells; ++i) {
        if (overlap[i] <= 0) continue;
        bins.busy[i] = static_cast<float>(std::min(overlap[i] / slot_ns, 1.0));
        bins.mean_wave[i] = static_cast<float>(wave_sum[i] / overlap[i]);
    }
    return bins;
}

TimelineExtent timeline_extent(const std::vector<BlockSpan>& spans) {
    TimelineExtent e;
    if (spans.empty()) return e;
    e.start_ns = spans.front().start_ns;
    e.end_ns = spans.front().end_ns;
    for (const BlockSpan& s : spans) {
        e.start_ns = std::min(e.start_ns, s.start_ns);
        e.end_ns = std::max(e.end_ns, s.end_ns);
        e.sm_count = std::max(e.sm_count, s.sm + 1);
        e.slot_count = std::max(e.slot_count, s.slot + 1);
        e.waves = std::max<long long>(e.waves, s.wave + 1);
    }
    return e;
}

}  // namespace tilescope::gui
