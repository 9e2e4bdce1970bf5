#include <catch2/catch.hpp>

#include <cmath>

#include "validate/stats.hpp"

using namespace tilescope::validate;

TEST_CASE("abs_pct_error and MAPE by hand", "[validate][stats]") {
    CHECK(abs_pct_error(110, 100) == Approx(0.10));
    CHECK(abs_pct_error(90, 100) == Approx(0.10));
    CHECK(std::isnan(abs_pct_error(1, 0)));
    CHECK(std::isnan(abs_pct_error(NAN, 1)));
    // errors 10 %, 50 %, 0 %  -> MAPE 20 %, median 10 %, worst index 1
    auto s = summarize_errors({110, 150, 7}, {100, 100, 7});
    REQUIRE(s.ok());
    CHECK(s->count == 3);
    CHECK(s->mape == Approx(0.2));
    CHECK(s->median_ape == Approx(0.1));
    CHECK(s->max_ape == Approx(0.5));
    CHECK(s->worst == 1);
    CHECK(s->mean_log_ratio == Approx((std::log(1.1) + std::log(1.5)) / 3));
}

TEST_CASE("summarize_errors rejects bad samples by index", "[validate][stats]") {
    auto s = summarize_errors({1, 2}, {1, 0});
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find("sample 1") != std::string::npos);
    CHECK_FALSE(summarize_errors({1}, {1, 2}).ok());
    CHECK_FALSE(summarize_errors({}, {}).ok());
}

TEST_CASE("average ranks share ties", "[validate][stats]") {
    const auto r = average_ranks({10, 20, 20, 5});
    REQUIRE(r.size() == 4);
    CHECK(r[3] == 1.0);
    CHECK(r[0] == 2.0);
    CHECK(r[1] == 3.5);
    CHECK(r[2] == 3.5);
}

TEST_CASE("Spearman: monotone, reversed, worked example", "[validate][stats]") {
    CHECK(spearman({1, 2, 3, 4}, {10, 100, 1000, 1e4}) == Approx(1.0));
    CHECK(spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == Approx(-1.0));
    // No ties: rho = 1 - 6 sum d^2 / (n (n^2 - 1)); ranks y = 2,1,4,3,5 -> d^2 sum = 4
    // rho = 1 - 24 / 120 = 0.8
    CHECK(spearman({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}) == Approx(0.8));
    CHECK(std::isnan(spearman({1, 1, 1}, {1, 2, 3})));
    CHECK(std::isnan(spearman({1}, {1})));
}

TEST_CASE("top-1 regret", "[validate][stats]") {
    // model picks index 2 (pred 1), measured there 12, best measured 10 -> 20 %
    CHECK(top1_regret({5, 3, 1}, {10, 11, 12}) == Approx(0.2));
    CHECK(top1_regret({1, 3, 5}, {10, 11, 12}) == Approx(0.0));
    CHECK(std::isnan(top1_regret({}, {})));
}

TEST_CASE("mean and median", "[validate][stats]") {
    CHECK(mean({1, 2, 3}) == Approx(2));
    CHECK(median({4, 1, 3, 2}) == Approx(2.5));
    CHECK(std::isnan(median({})));
}

TEST_CASE("bootstrap interval of a mean: edge cases and determinism", "[validate][stats]") {
    const Interval none = bootstrap_mean_interval({});
    CHECK(std::isnan(none.lo));
    CHECK(std::isnan(none.hi));
    const Interval one = bootstrap_mean_interval({0.7, std::nan("")});  // the NaN is skipped
    CHECK(one.lo == 0.7);
    CHECK(one.hi == 0.7);
    const Interval flat = bootstrap_mean_interval({0.5, 0.5, 0.5, 0.5});
    CHECK(flat.lo == Approx(0.5));
    CHECK(flat.hi == Approx(0.5));
    CHECK(std::isnan(bootstrap_mean_interval({1, 2}, 1.0).lo));  // level must be inside (0, 1)
    CHECK(std::isnan(bootstrap_mean_interval({1, 2}, 0.95, 0).lo));
    const std::vector<double> v = {1.0, 0.5, -0.5, 1.0, 0.8, 0.95, 1.0, 0.4};
    const Interval a = bootstrap_mean_interval(v), b = bootstrap_mean_interval(v);
    CHECK(a.lo == b.lo);  // fixed seed: the same on every run
    CHECK(a.hi == b.hi);
    CHECK(a.lo < mean(v));
    CHECK(mean(v) < a.hi);
    CHECK(a.lo >= -0.5);  // a mean of resampled values stays within their range
    CHECK(a.hi <= 1.0);
    const Interval wide = bootstrap_mean_interval(v, 0.99), narrow = bootstrap_mean_interval(v, 0.5);
    CHECK(wide.lo <= a.lo);
    CHECK(a.hi <= wide.hi);
    CHECK(a.lo <= narrow.lo);
    CHECK(narrow.hi <= a.hi);
}

TEST_CASE("bootstrap interval of a mean: the normal law for large samples", "[validate][stats]") {
    // n evenly spread values on [0, 1) (sd = 1/sqrt(12)): the 95% interval of their mean is
    // about mean -/+ 1.96 sd / sqrt(n), and it narrows as 1/sqrt(n).
    auto spread = [](int n) {
        std::vector<double> v;
        for (int i = 0; i < n; ++i) v.push_back((i + 0.5) / n);
        return v;
    };
    for (const int n : {100, 400, 1600}) {
        const Interval ci = bootstrap_mean_interval(spread(n));
        const double half = 1.96 / std::sqrt(12.0) / std::sqrt(static_cast<double>(n));
        CHECK(0.5 - ci.lo == Approx(half).epsilon(0.12));
        CHECK(ci.hi - 0.5 == Approx(half).epsilon(0.12));
    }
}

TEST_CASE("pair order accuracy: pairs binned by predicted gap, ties count half", "[validate][stats]") {
    // Group 1: predictions 100, 101, 150; measured 10, 9, 20.
    //   (100,101): gap ln(1.01) = 0.995% -> bin 0-1%, order wrong (pred up, meas down)
    //   (100,150): gap 40.5% -> bin 20%+, right;  (101,150): gap 39.5% -> 20%+, right
    // Group 2: predictions 100, 104; measured 5, 5 (a measured tie): gap 3.9% -> bin 3-5%, half.
    // Group 3: one tile: no pair.
    const std::vector<TimeGroup> g = {{{100, 10}, {101, 9}, {150, 20}}, {{100, 5}, {104, 5}}, {{7, 7}}};
    const auto bins = pair_order_accuracy(g);
    REQUIRE(bins.size() == default_gap_edges().size());
    CHECK(bins[0].gap_lo == 0.0);
    CHECK(bins[0].gap_hi == Approx(0.01));
    CHECK(bins[0].pairs == 1);
    CHECK(bins[0].right == 0.0);
    CHECK(bins[3].gap_lo == Approx(0.03));
    CHECK(bins[3].pairs == 1);
    CHECK(bins[3].right == 0.5);
    CHECK(std::isinf(bins.back().gap_hi));
    CHECK(bins.back().pairs == 2);
    CHECK(bins.back().right == 2.0);
    std::size_t total = 0;
    for (const auto& b : bins) total += b.pairs;
    CHECK(total == 4);
    // Unusable times are skipped, not counted.
    const auto skip = pair_order_accuracy({{{100, 10}, {NAN, 9}, {-1, 3}}});
    std::size_t none = 0;
    for (const auto& b : skip) none += b.pairs;
    CHECK(none == 0);
}

TEST_CASE("order resolution: the lowest gap from which every bin is ordered right often enough", "[validate][stats]") {
    // Right above 10%, wrong at 3-5%, empty 5-10%: the resolution is 5% (an empty bin does not
    // break the run, and bins from 5% up are all right).
    const std::vector<TimeGroup> g = {{{100, 1}, {150, 2}}, {{100, 2}, {112, 3}}, {{100, 2}, {104, 1}}};
    CHECK(order_resolution(g, 0.95) == Approx(0.05));
    // Everything right: the first edge above 0, 1%.
    CHECK(order_resolution({{{100, 1}, {100.5, 2}, {200, 3}}}, 0.95) == Approx(0.01));
    // The widest pair wrong: no resolution.
    CHECK(std::isnan(order_resolution({{{100, 2}, {200, 1}}}, 0.95)));
    CHECK(std::isnan(order_resolution({}, 0.95)));
}
