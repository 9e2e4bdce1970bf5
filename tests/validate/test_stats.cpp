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
