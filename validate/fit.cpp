#include "validate/fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

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

bool solve_linear(std::vector<double> a, std::vector<double> b, std::vector<double>& x) {
    const std::size_t n = b.size();
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t p = c;
        for (std::size_t r = c + 1; r < n; ++r)
            if (std::abs(a[r * n + c]) > std::abs(a[p * n + c])) p = r;
        if (!(std::abs(a[p * n + c]) > 0)) return false;
        if (p != c) {
            for (std::size_t k = 0; k < n; ++k) std::swap(a[p * n + k], a[c * n + k]);
            std::swap(b[p], b[c]);
        }
        for (std::size_t r = c + 1; r < n; ++r) {
            const double f = a[r * n + c] / a[c * n + c];
            if (f == 0) continue;
            for (std::size_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
            b[r] -= f * b[c];
        }
    }
    x.assign(n, 0.0);
    for (std::size_t i = n; i-- > 0;) {
        double s = b[i];
        for (std::size_t k = i + 1; k < n; ++k) s -= a[i * n + k] * x[k];
        x[i] = s / a[i * n + i];
        if (!std::isfinite(x[i])) return false;
    }
    return true;
}

namespace {
double sum_of_squares(const std::vector<double>& r) {
    double s = 0;
    for (const double v : r) {
        if (!std::isfinite(v)) return std::numeric_limits<double>::infinity();
        s += v * v;
    }
    return s;
}
}  // namespace

Minimum levenberg_marquardt(const ResidualBatch& residuals, std::vector<double> start,
                            const LeastSquaresOptions& options) {
    const std::size_t n = start.size();
    Minimum m;
    m.x = std::move(start);
    int evals = 0;
    auto batch = [&](const std::vector<std::vector<double>>& points) {
        evals += static_cast<int>(points.size());
        return residuals(points);
    };
    std::vector<double> r = batch({m.x}).front();
    double cost = sum_of_squares(r);
    const double count = static_cast<double>(std::max<std::size_t>(1, r.size()));
    auto finish = [&](bool converged) {
        m.value = cost / count;
        m.evaluations = evals;
        m.converged = converged;
        return m;
    };
    if (!std::isfinite(cost) || n == 0 || r.empty()) return finish(n == 0);
    const std::size_t rows = r.size();
    const double h = options.difference_step;
    constexpr double kMaxStep = 2.0;  // per coordinate and step: a factor e^2 on a log-scaled parameter
    double lambda = options.initial_damping;
    auto out_of_budget = [&](std::size_t want) {
        return evals + static_cast<int>(want) > options.max_evaluations || (options.stop && options.stop());
    };
    while (!out_of_budget(n + 1)) {
        // Jacobian by forward differences, all n neighbours in one batch. A neighbour the model
        // cannot evaluate leaves its column at zero: that parameter stays put this iteration.
        std::vector<std::vector<double>> points(n, m.x);
        for (std::size_t j = 0; j < n; ++j) points[j][j] += h;
        const auto rj = batch(points);
        std::vector<double> jac(rows * n, 0.0);  // row-major, rows x n
        for (std::size_t j = 0; j < n; ++j) {
            if (rj[j].size() != rows || !std::isfinite(sum_of_squares(rj[j]))) continue;
            for (std::size_t i = 0; i < rows; ++i) jac[i * n + j] = (rj[j][i] - r[i]) / h;
        }
        std::vector<double> jtj(n * n, 0.0), grad(n, 0.0);
        for (std::size_t i = 0; i < rows; ++i) {
            for (std::size_t a = 0; a < n; ++a) {
                const double ja = jac[i * n + a];
                if (ja == 0) continue;
                grad[a] += ja * r[i];
                for (std::size_t b = 0; b < n; ++b) jtj[a * n + b] += ja * jac[i * n + b];
            }
        }
        double max_diag = 0;
        for (std::size_t a = 0; a < n; ++a) max_diag = std::max(max_diag, jtj[a * n + a]);
        if (!(max_diag > 0)) return finish(true);  // no residual depends on any parameter
        // Damped steps with the same Jacobian, a batch of damping factors at a time, until one
        // lowers the cost or the damping says no step can.
        bool moved = false, converged = false;
        while (!moved && !converged) {
            std::vector<std::vector<double>> trials;
            std::vector<double> lambdas;
            for (const double f : options.trial_damping) {
                const double lam = lambda * f;
                std::vector<double> a = jtj, b(n), step;
                for (std::size_t k = 0; k < n; ++k) {
                    a[k * n + k] += lam * (jtj[k * n + k] + 1e-9 * max_diag);
                    b[k] = -grad[k];
                }
                if (!solve_linear(a, b, step)) continue;
                std::vector<double> x = m.x;
                for (std::size_t k = 0; k < n; ++k) x[k] += std::clamp(step[k], -kMaxStep, kMaxStep);
                if (x == m.x) continue;
                trials.push_back(std::move(x));
                lambdas.push_back(lam);
            }
            if (trials.empty() || out_of_budget(trials.size())) {
                converged = trials.empty();
                break;
            }
            const auto rt = batch(trials);
            std::size_t best = trials.size();
            double best_cost = cost;
            for (std::size_t t = 0; t < trials.size(); ++t) {
                const double c = rt[t].size() == rows ? sum_of_squares(rt[t]) : std::numeric_limits<double>::infinity();
                if (c < best_cost) {
                    best_cost = c;
                    best = t;
                }
            }
            if (best == trials.size()) {
                // Every trial was worse: damp harder (steps shrink towards the gradient direction).
                lambda = lambdas.back() * 10.0;
                converged = lambda > 1e12;
                continue;
            }
            converged = cost - best_cost <= options.tolerance * cost;
            m.x = trials[best];
            r = rt[best];
            cost = best_cost;
            lambda = std::max(1e-12, lambdas[best] * 0.3);
            moved = true;
        }
        if (converged) return finish(true);
        if (!moved) break;  // out of budget mid-iteration
    }
    return finish(false);
}

}  // namespace tilescope::validate
