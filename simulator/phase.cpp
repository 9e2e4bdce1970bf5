#include "simulator/phase.hpp"

#include <algorithm>

namespace tilescope::sim {

std::int64_t coarsen_phases(std::vector<Phase>& phases, std::int64_t budget, std::int64_t blocks, bool serial,
                            std::int64_t period) {
    const auto n = static_cast<std::int64_t>(phases.size());
    if (budget <= 0 || n <= 1 || n * blocks <= budget) return 1;
    const std::int64_t target = std::max<std::int64_t>(1, budget / std::max<std::int64_t>(blocks, 1));
    std::int64_t g = (n + target - 1) / target;
    if (period > 0) g = std::min(g, period);
    if (g <= 1) return 1;
    // In place: each run (at most g phases, not crossing a multiple of period) is written to an
    // index no larger than its first phase's once it has been read.
    std::size_t out = 0;
    for (std::int64_t a = 0; a < n;) {
        std::int64_t b = std::min(n, a + g);
        if (period > 0) b = std::min(b, (a / period + 1) * period);
        Phase m = phases[static_cast<std::size_t>(a)];
        std::array<double, kUnits> unit_ns{};
        m.comp_ns = 0;
        m.comp_latency_ns = 0;
        m.warp_ld_ns = 0;
        m.smem_bytes = 0;
        m.has_load = m.has_store = false;
        std::int64_t loads = 0;
        for (std::int64_t i = a; i < b; ++i) {
            const Phase& p = phases[static_cast<std::size_t>(i)];
            for (std::size_t u = 0; u < kUnits; ++u) unit_ns[u] += p.frac[u] * p.comp_ns;
            m.comp_ns += p.comp_ns;
            m.comp_latency_ns += p.comp_latency_ns;
            m.warp_ld_ns += p.warp_ld_ns;
            m.smem_bytes += p.smem_bytes;
            m.has_load = m.has_load || p.has_load;
            m.has_store = m.has_store || p.has_store;
            loads += p.has_load ? 1 : 0;
        }
        m.load_end = phases[static_cast<std::size_t>(b - 1)].load_end;
        m.store_end = phases[static_cast<std::size_t>(b - 1)].store_end;
        for (std::size_t u = 0; u < kUnits; ++u) m.frac[u] = m.comp_ns > 0 ? unit_ns[u] / m.comp_ns : 0.0;
        m.latency_scale = serial ? static_cast<double>(std::max<std::int64_t>(loads, 1)) : 1.0;
        m.streamed = !serial;
        m.iterations = static_cast<std::uint32_t>(b - a);
        phases[out++] = m;
        a = b;
    }
    phases.resize(out);
    return g;
}

}  // namespace tilescope::sim
