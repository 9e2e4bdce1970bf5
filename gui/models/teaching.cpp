#include "gui/models/teaching.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace tilescope::gui {
namespace {

std::vector<double> random_matrix(std::mt19937_64& rng, int rows, int cols) {
    // Uniform in [-1, 1): portable across standard libraries (unlike normal_distribution).
    std::vector<double> out(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
    for (double& x : out) x = static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    return out;
}

}  // namespace

TeachingRun run_teaching(const TeachingConfig& cfg) {
    TeachingRun run;
    run.config = cfg;
    if (cfg.n <= 0 || cfg.d <= 0 || cfg.br <= 0 || cfg.bc <= 0 || cfg.n % cfg.br != 0 || cfg.n % cfg.bc != 0)
        return run;
    const int n = cfg.n, d = cfg.d;
    const auto idx = [d](int row, int col) { return static_cast<std::size_t>(row) * static_cast<std::size_t>(d) + static_cast<std::size_t>(col); };
    std::mt19937_64 rng(cfg.seed);
    run.q = random_matrix(rng, n, d);
    run.k = random_matrix(rng, n, d);
    run.v = random_matrix(rng, n, d);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    auto score = [&](int r, int c) {
        double s = 0;
        for (int x = 0; x < d; ++x) s += run.q[idx(r, x)] * run.k[idx(c, x)];
        return s * scale;
    };

    // Direct reference: full row of S, then softmax, then P·V.
    run.o_direct.assign(static_cast<std::size_t>(n) * d, 0.0);
    run.direct_row_max.assign(static_cast<std::size_t>(n), 0.0);
    run.direct_row_sum.assign(static_cast<std::size_t>(n), 0.0);
    for (int r = 0; r < n; ++r) {
        std::vector<double> s(static_cast<std::size_t>(n));
        double mx = -std::numeric_limits<double>::infinity();
        for (int c = 0; c < n; ++c) {
            s[static_cast<std::size_t>(c)] = score(r, c);
            mx = std::max(mx, s[static_cast<std::size_t>(c)]);
        }
        double sum = 0;
        for (double& x : s) { x = std::exp(x - mx); sum += x; }
        for (int c = 0; c < n; ++c)
            for (int x = 0; x < d; ++x) run.o_direct[idx(r, x)] += s[static_cast<std::size_t>(c)] / sum * run.v[idx(c, x)];
        run.direct_row_max[static_cast<std::size_t>(r)] = mx;
        run.direct_row_sum[static_cast<std::size_t>(r)] = sum;
    }

    // Online recurrence in the flash2 loop order.
    run.q_tiles = n / cfg.br;
    run.kv_tiles = n / cfg.bc;
    run.o_online.assign(static_cast<std::size_t>(n) * d, 0.0);
    run.final_m.assign(static_cast<std::size_t>(n), 0.0);
    run.final_l.assign(static_cast<std::size_t>(n), 0.0);
    const double tile_q_bytes = static_cast<double>(cfg.br) * d * cfg.dtype_bytes;
    const double tile_kv_bytes = static_cast<double>(cfg.bc) * d * cfg.dtype_bytes;
    TeachingStep counters;
    for (int i = 0; i < run.q_tiles; ++i) {
        std::vector<double> m(static_cast<std::size_t>(cfg.br), -std::numeric_limits<double>::infinity());
        std::vector<double> l(static_cast<std::size_t>(cfg.br), 0.0);
        std::vector<double> o(static_cast<std::size_t>(cfg.br) * d, 0.0);
        counters.hbm_read_bytes += tile_q_bytes;    // Q_i: HBM -> shared memory, once per block
        counters.smem_write_bytes += tile_q_bytes;
        for (int j = 0; j < run.kv_tiles; ++j) {
            counters.hbm_read_bytes += 2 * tile_kv_bytes;    // K_j, V_j
            counters.smem_write_bytes += 2 * tile_kv_bytes;
            // K_j and V_j are read by every warp; Q_i (each warp its own rows) every step when
            // d > 64, but only once per block when d <= 64 (its fragments then stay in registers).
            counters.smem_read_bytes += 2.0 * cfg.warps * tile_kv_bytes;
            if (j == 0 || d > 64) counters.smem_read_bytes += tile_q_bytes;
            for (int rr = 0; rr < cfg.br; ++rr) {
                const int r = i * cfg.br + rr;
                std::vector<double> s(static_cast<std::size_t>(cfg.bc));
                double tile_max = -std::numeric_limits<double>::infinity();
                for (int cc = 0; cc < cfg.bc; ++cc) {
                    s[static_cast<std::size_t>(cc)] = score(r, j * cfg.bc + cc);
                    tile_max = std::max(tile_max, s[static_cast<std::size_t>(cc)]);
                }
                const double m_old = m[static_cast<std::size_t>(rr)];
                const double m_new = std::max(m_old, tile_max);
                const double correction = std::exp(m_old - m_new);  // exp(-inf) = 0 on the first tile
                double l_new = l[static_cast<std::size_t>(rr)] * correction;
                for (int x = 0; x < d; ++x) o[static_cast<std::size_t>(rr) * d + static_cast<std::size_t>(x)] *= correction;
                for (int cc = 0; cc < cfg.bc; ++cc) {
                    const double p = std::exp(s[static_cast<std::size_t>(cc)] - m_new);
                    l_new += p;
                    for (int x = 0; x < d; ++x)
                        o[static_cast<std::size_t>(rr) * d + static_cast<std::size_t>(x)] += p * run.v[idx(j * cfg.bc + cc, x)];
                }
                m[static_cast<std::size_t>(rr)] = m_new;
                l[static_cast<std::size_t>(rr)] = l_new;
            }
            TeachingStep step = counters;
            step.q_tile = i;
            step.kv_tile = j;
            step.block_done = (j == run.kv_tiles - 1);
            if (step.block_done) {
                counters.hbm_write_bytes += tile_q_bytes + static_cast<double>(cfg.br) * 4;  // O_i + logsumexp (fp32)
                step.hbm_write_bytes = counters.hbm_write_bytes;
            }
            const int shown = std::min(cfg.tracked_rows, cfg.br);
            step.m.assign(m.begin(), m.begin() + shown);
            step.l.assign(l.begin(), l.begin() + shown);
            run.steps.push_back(std::move(step));
        }
        for (int rr = 0; rr < cfg.br; ++rr) {
            const int r = i * cfg.br + rr;
            for (int x = 0; x < d; ++x)
                run.o_online[idx(r, x)] = o[static_cast<std::size_t>(rr) * d + static_cast<std::size_t>(x)] / l[static_cast<std::size_t>(rr)];
            run.final_m[static_cast<std::size_t>(r)] = m[static_cast<std::size_t>(rr)];
            run.final_l[static_cast<std::size_t>(r)] = l[static_cast<std::size_t>(rr)];
        }
    }
    for (std::size_t x = 0; x < run.o_online.size(); ++x)
        run.max_abs_error = std::max(run.max_abs_error, std::fabs(run.o_online[x] - run.o_direct[x]));
    return run;
}

}  // namespace tilescope::gui
