#include "validate/fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tilescope::validate {

double logit(double p) { return std::log(p / (1.0 - p)); }
double logistic(double t) { return 1.0 / (1.0 + std::exp(-t)); }

Minimum nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                    std::vector<double> start, const NelderMeadOptions& options) {
    const std::size_t n = start.size();
    Minimum best;
    int evals = 0;
    auto eval = [&](const std::vector<double>& x) {
        ++evals;
        const double v = f(x);
        return std::isfinite(v) ? v : std::numeric_limits<double>::infinity();
    };
    std::vector<std::vector<double>> simplex(n + 1, start);
    for (std::size_t i = 0; i < n; ++i) simplex[i + 1][i] += options.initial_step;
    std::vector<double> values(n + 1);
    for (std::size_t i = 0; i <= n; ++i) values[i] = eval(simplex[i]);

    std::vector<std::size_t> order(n + 1);
    bool converged = false;
    while (evals < options.max_evaluations && !(options.stop && options.stop())) {
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
        const std::size_t lo = order.front(), hi = order.back();
        if (n == 0 || std::abs(values[hi] - values[lo]) <= options.tolerance) {
            converged = true;
            break;
        }
        const std::size_t second = order[n - 1];  // second-worst vertex
        std::vector<double> centroid(n, 0.0);
        for (std::size_t i = 0; i <= n; ++i) {
            if (i == hi) continue;
            for (std::size_t j = 0; j < n; ++j) centroid[j] += simplex[i][j] / static_cast<double>(n);
        }
        auto along = [&](double t) {  // centroid + t * (centroid - worst)
            std::vector<double> x(n);
            for (std::size_t j = 0; j < n; ++j) x[j] = centroid[j] + t * (centroid[j] - simplex[hi][j]);
            return x;
        };
        const auto xr = along(1.0);
        const double fr = eval(xr);
        if (fr < values[lo]) {
            const auto xe = along(2.0);
            const double fe = eval(xe);
            if (fe < fr) {
                simplex[hi] = xe;
                values[hi] = fe;
            } else {
                simplex[hi] = xr;
                values[hi] = fr;
            }
            continue;
        }
        if (fr < values[second]) {
            simplex[hi] = xr;
            values[hi] = fr;
            continue;
        }
        const bool outside = fr < values[hi];
        const auto xc = along(outside ? 0.5 : -0.5);
        const double fc = eval(xc);
        if (fc < (outside ? fr : values[hi])) {
            simplex[hi] = xc;
            values[hi] = fc;
            continue;
        }
        for (std::size_t i = 0; i <= n; ++i) {  // shrink towards the best point
            if (i == lo) continue;
            for (std::size_t j = 0; j < n; ++j)
                simplex[i][j] = simplex[lo][j] + 0.5 * (simplex[i][j] - simplex[lo][j]);
            values[i] = eval(simplex[i]);
        }
    }
    const auto it = std::min_element(values.begin(), values.end());
    best.x = simplex[static_cast<std::size_t>(it - values.begin())];
    best.value = *it;
    best.evaluations = evals;
    best.converged = converged;
    return best;
}

}  // namespace tilescope::validate
