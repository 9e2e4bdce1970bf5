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
