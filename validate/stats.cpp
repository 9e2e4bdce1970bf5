#include "validate/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace tilescope::validate {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double abs_pct_error(double predicted, double measured) {
    if (!std::isfinite(predicted) || !std::isfinite(measured) || measured <= 0) return kNaN;
    return std::abs(predicted - measured) / measured;
}

double mean(const std::vector<double>& v) {
    if (v.empty()) return kNaN;
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

Interval bootstrap_mean_interval(const std::vector<double>& v, double level, int resamples, std::uint64_t seed) {
    std::vector<double> x;
    x.reserve(v.size());
    for (const double e : v)
        if (std::isfinite(e)) x.push_back(e);
    if (x.empty() || !(level > 0 && level < 1) || resamples < 1) return {};
    if (x.size() == 1) return {x[0], x[0]};
    std::uint64_t state = seed;
    auto next = [&state]() {  // SplitMix64 (Steele, Lea and Flood, OOPSLA 2014)
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    };
    const auto n = static_cast<std::uint64_t>(x.size());
    std::vector<double> means(static_cast<std::size_t>(resamples));
    for (auto& m : means) {
        double sum = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
            // An index in [0, n): the high 32 bits of a draw scaled by n (n < 2^32 here).
            const std::uint64_t k = ((next() >> 32) * n) >> 32;
            sum += x[static_cast<std::size_t>(k)];
        }
        m = sum / static_cast<double>(n);
    }
    std::sort(means.begin(), means.end());
    auto quantile = [&means](double p) {
        const double pos = p * static_cast<double>(means.size() - 1);
        const auto i = static_cast<std::size_t>(pos);
        const double frac = pos - static_cast<double>(i);
        return i + 1 < means.size() ? means[i] + frac * (means[i + 1] - means[i]) : means[i];
    };
    return {quantile((1 - level) / 2), quantile((1 + level) / 2)};
}

double median(std::vector<double> v) {
    if (v.empty()) return kNaN;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Result<ErrorSummary> summarize_errors(const std::vector<double>& predicted,
                                      const std::vector<double>& measured) {
    if (predicted.size() != measured.size())
        return make_error("summarize_errors: " + std::to_string(predicted.size()) +
                          " predictions but " + std::to_string(measured.size()) + " measurements");
    if (predicted.empty()) return make_error("summarize_errors: no samples");
    ErrorSummary s;
    s.count = predicted.size();
    std::vector<double> apes;
    apes.reserve(s.count);
    double log_sum = 0;
    for (std::size_t i = 0; i < s.count; ++i) {
        const double e = abs_pct_error(predicted[i], measured[i]);
        if (!std::isfinite(e) || predicted[i] <= 0)
            return make_error("summarize_errors: sample " + std::to_string(i) +
                              " is not usable (predicted " + std::to_string(predicted[i]) +
                              ", measured " + std::to_string(measured[i]) +
                              "; both must be finite and > 0)");
        apes.push_back(e);
        log_sum += std::log(predicted[i] / measured[i]);
        if (e > s.max_ape || i == 0) {
            s.max_ape = e;
            s.worst = i;
        }
    }
    s.mape = mean(apes);
    s.median_ape = median(apes);
    s.mean_log_ratio = log_sum / static_cast<double>(s.count);
    return s;
}

std::vector<double> average_ranks(const std::vector<double>& values) {
    const std::size_t n = values.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    std::vector<double> ranks(n, 0.0);
    std::size_t i = 0;
    while (i < n) {
        std::size_t j = i;
        while (j + 1 < n && values[order[j + 1]] == values[order[i]]) ++j;
        // positions i..j (0-based) share ranks i+1..j+1: average = (i+j)/2 + 1
        const double r = 0.5 * static_cast<double>(i + j) + 1.0;
        for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = r;
        i = j + 1;
    }
    return ranks;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size() || x.size() < 2) return kNaN;
    const double mx = mean(x);
    const double my = mean(y);
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0 || syy <= 0) return kNaN;
    return sxy / std::sqrt(sxx * syy);
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size() || x.size() < 2) return kNaN;
    return pearson(average_ranks(x), average_ranks(y));
}

double top1_regret(const std::vector<double>& predicted, const std::vector<double>& measured) {
    if (predicted.size() != measured.size() || predicted.empty()) return kNaN;
    std::size_t pick = 0;
    for (std::size_t i = 1; i < predicted.size(); ++i)
        if (predicted[i] < predicted[pick]) pick = i;
    const double best = *std::min_element(measured.begin(), measured.end());
    if (!(best > 0) || !std::isfinite(measured[pick])) return kNaN;
    return measured[pick] / best - 1.0;
}

namespace {

// Every usable pair of every group as (gap, right), right in {0, 0.5, 1}.
std::vector<std::pair<double, double>> ordered_pairs(const std::vector<TimeGroup>& groups) {
    std::vector<std::pair<double, double>> out;
    auto ok = [](const std::pair<double, double>& t) {
        return std::isfinite(t.first) && std::isfinite(t.second) && t.first > 0 && t.second > 0;
    };
    for (const TimeGroup& g : groups)
        for (std::size_t i = 0; i < g.size(); ++i)
            for (std::size_t j = i + 1; j < g.size(); ++j) {
                if (!ok(g[i]) || !ok(g[j])) continue;
                const double dp = g[i].first - g[j].first, dm = g[i].second - g[j].second;
                const double right = (dp == 0 || dm == 0) ? 0.5 : ((dp > 0) == (dm > 0) ? 1.0 : 0.0);
                out.emplace_back(std::abs(std::log(g[i].first / g[j].first)), right);
            }
    return out;
}

}  // namespace

const std::vector<double>& default_gap_edges() {
    static const std::vector<double> edges = {0.0, 0.01, 0.02, 0.03, 0.05, 0.10, 0.20};
    return edges;
}

std::vector<PairOrderBin> pair_order_accuracy(const std::vector<TimeGroup>& groups, const std::vector<double>& edges) {
    std::vector<PairOrderBin> bins(edges.size());
    for (std::size_t k = 0; k < edges.size(); ++k) {
        bins[k].gap_lo = edges[k];
        bins[k].gap_hi = k + 1 < edges.size() ? edges[k + 1] : std::numeric_limits<double>::infinity();
    }
    if (edges.empty()) return bins;
    for (const auto& [gap, right] : ordered_pairs(groups)) {
        // The last bin whose lower edge is <= gap.
        const auto it = std::upper_bound(edges.begin(), edges.end(), gap);
        if (it == edges.begin()) continue;  // below the first edge (edges not from 0)
        PairOrderBin& b = bins[static_cast<std::size_t>(it - edges.begin()) - 1];
        ++b.pairs;
        b.right += right;
    }
    return bins;
}

double order_resolution(const std::vector<TimeGroup>& groups, double level, const std::vector<double>& edges) {
    return order_resolution_of_bins(pair_order_accuracy(groups, edges), level);
}

double order_resolution_of_bins(const std::vector<PairOrderBin>& bins, double level) {
    double resolution = kNaN;
    bool any = false;
    // From the widest bin down: the lowest edge from which every bin with pairs qualifies.
    for (std::size_t k = bins.size(); k-- > 0;) {
        const PairOrderBin& b = bins[k];
        if (b.pairs > 0) {
            if (b.right / static_cast<double>(b.pairs) < level) break;
            any = true;
        }
        if (any && b.gap_lo > 0) resolution = b.gap_lo;
    }
    return resolution;
}

}  // namespace tilescope::validate
