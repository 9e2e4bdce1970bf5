#include <catch2/catch.hpp>

#include <cmath>

#include "validate/fit.hpp"

using namespace tilescope::validate;

TEST_CASE("Nelder-Mead finds the minimum of a shifted quadratic", "[validate][fit]") {
    auto f = [](const std::vector<double>& x) {
        return (x[0] - 1.5) * (x[0] - 1.5) + 3 * (x[1] + 0.5) * (x[1] + 0.5) + 2.0;
    };
    NelderMeadOptions o;
    o.max_evaluations = 400;
    o.tolerance = 1e-12;
    const Minimum m = nelder_mead(f, {0, 0}, o);
    CHECK(m.x[0] == Approx(1.5).margin(1e-3));
    CHECK(m.x[1] == Approx(-0.5).margin(1e-3));
    CHECK(m.value == Approx(2.0).margin(1e-6));
    CHECK(m.evaluations <= 400);
}

TEST_CASE("Nelder-Mead on Rosenbrock gets close", "[validate][fit]") {
    auto f = [](const std::vector<double>& x) {
        return 100 * (x[1] - x[0] * x[0]) * (x[1] - x[0] * x[0]) + (1 - x[0]) * (1 - x[0]);
    };
    NelderMeadOptions o;
    o.max_evaluations = 2000;
    o.tolerance = 1e-14;
    const Minimum m = nelder_mead(f, {-1.2, 1.0}, o);
    CHECK(m.x[0] == Approx(1.0).margin(1e-2));
    CHECK(m.x[1] == Approx(1.0).margin(2e-2));
}

TEST_CASE("Nelder-Mead rejects non-finite values and is deterministic", "[validate][fit]") {
    auto f = [](const std::vector<double>& x) { return x[0] < 0 ? NAN : (x[0] - 2) * (x[0] - 2); };
    const Minimum a = nelder_mead(f, {0.5});
    const Minimum b = nelder_mead(f, {0.5});
    CHECK(a.x[0] == Approx(2.0).margin(1e-3));
    CHECK(a.x == b.x);
    CHECK(a.evaluations == b.evaluations);
}

TEST_CASE("logit and logistic are inverse", "[validate][fit]") {
    for (double p : {0.01, 0.3, 0.5, 0.9, 0.999}) CHECK(logistic(logit(p)) == Approx(p));
}

namespace {
// Wraps a residual function of one point as a batch evaluator and records the batch sizes.
ResidualBatch batched(std::function<std::vector<double>(const std::vector<double>&)> r,
                      std::vector<std::size_t>* sizes = nullptr) {
    return [r = std::move(r), sizes](const std::vector<std::vector<double>>& points) {
        if (sizes) sizes->push_back(points.size());
        std::vector<std::vector<double>> out;
        for (const auto& p : points) out.push_back(r(p));
        return out;
    };
}
}  // namespace

TEST_CASE("Levenberg-Marquardt recovers the parameters that generated exponential data", "[validate][fit]") {
    // y = a exp(-b t) with a = 2.5, b = 1.3, fitted in (ln a, ln b) as calibrate fits scales.
    std::vector<double> t, y;
    for (int i = 0; i < 20; ++i) {
        t.push_back(0.2 * i);
        y.push_back(2.5 * std::exp(-1.3 * 0.2 * i));
    }
    auto r = [&](const std::vector<double>& u) {
        std::vector<double> out;
        for (std::size_t i = 0; i < t.size(); ++i) out.push_back(std::exp(u[0]) * std::exp(-std::exp(u[1]) * t[i]) - y[i]);
        return out;
    };
    LeastSquaresOptions o;
    o.difference_step = 1e-6;
    o.tolerance = 1e-14;
    const Minimum m = levenberg_marquardt(batched(r), {std::log(1.0), std::log(0.4)}, o);
    CHECK(std::exp(m.x[0]) == Approx(2.5).epsilon(1e-5));
    CHECK(std::exp(m.x[1]) == Approx(1.3).epsilon(1e-5));
    CHECK(m.value < 1e-12);
    CHECK(m.evaluations <= 200);
}

TEST_CASE("Levenberg-Marquardt solves Rosenbrock with far fewer points than Nelder-Mead", "[validate][fit]") {
    // Rosenbrock = |r|^2 with r = (10 (x1 - x0^2), 1 - x0): minimum 0 at (1, 1).
    auto r = [](const std::vector<double>& x) { return std::vector<double>{10 * (x[1] - x[0] * x[0]), 1 - x[0]}; };
    LeastSquaresOptions o;
    o.difference_step = 1e-7;
    o.tolerance = 1e-15;
    o.max_evaluations = 300;
    const Minimum m = levenberg_marquardt(batched(r), {-1.2, 1.0}, o);
    CHECK(m.x[0] == Approx(1.0).margin(1e-4));
    CHECK(m.x[1] == Approx(1.0).margin(1e-4));
    CHECK(m.evaluations <= 300);  // Nelder-Mead's test above needs up to 2000 for 1e-2
}

TEST_CASE("Levenberg-Marquardt: batches, an inert parameter, non-finite points, determinism", "[validate][fit]") {
    // x[1] enters no residual; points with x[0] < 0 cannot be evaluated.
    auto r = [](const std::vector<double>& x) {
        if (x[0] < 0) return std::vector<double>{NAN, NAN};
        return std::vector<double>{x[0] - 2.0, 0.5 * (x[0] - 2.0)};
    };
    std::vector<std::size_t> sizes;
    LeastSquaresOptions o;
    o.trial_damping = {0.1, 1.0, 10.0};
    const Minimum a = levenberg_marquardt(batched(r, &sizes), {0.01, 7.0}, o);
    CHECK(a.x[0] == Approx(2.0).margin(1e-4));
    CHECK(a.x[1] == 7.0);  // untouched
    CHECK(a.converged);
    REQUIRE(sizes.size() >= 3);
    CHECK(sizes[0] == 1);  // the start
    CHECK(sizes[1] == 2);  // one neighbour per coordinate
    CHECK(sizes[2] <= 3);  // up to one trial per damping factor
    const Minimum b = levenberg_marquardt(batched(r), {0.01, 7.0}, o);
    CHECK(a.x == b.x);
    CHECK(a.evaluations == b.evaluations);
    // A start the model cannot evaluate is returned as it is, with an infinite value.
    const Minimum c = levenberg_marquardt(batched(r), {-1.0, 0.0}, o);
    CHECK(c.x == std::vector<double>{-1.0, 0.0});
    CHECK(std::isinf(c.value));
}

TEST_CASE("solve_linear by hand and on a singular matrix", "[validate][fit]") {
    // 2x + y = 5, x + 3y = 10  ->  x = 1, y = 3 (pivoting: the first row is not the largest after swap).
    std::vector<double> x;
    REQUIRE(solve_linear({2, 1, 1, 3}, {5, 10}, x));
    CHECK(x[0] == Approx(1.0));
    CHECK(x[1] == Approx(3.0));
    REQUIRE(solve_linear({0, 1, 1, 0}, {4, 6}, x));  // needs a row swap
    CHECK(x[0] == Approx(6.0));
    CHECK(x[1] == Approx(4.0));
    CHECK_FALSE(solve_linear({1, 2, 2, 4}, {1, 2}, x));
}
