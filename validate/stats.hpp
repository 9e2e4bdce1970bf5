// Error statistics for comparing predictions with measurements: absolute percentage error,
// MAPE, Spearman rank correlation (ties get average ranks) and top-1 regret.
//
// Conventions (every function documents its own pre-conditions):
//   - percentage errors are fractions (0.05 == 5 %), never multiplied by 100 here;
//   - a pair with a non-finite value, or a measured value <= 0, is not a valid sample: the
//     functions that take vectors of pairs skip nothing silently, they report an Error naming
//     the index, so the caller decides (validate reports such cases as "unusable").
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace tilescope::validate {

// |predicted - measured| / measured. Pre: measured > 0, both finite (else NaN).
double abs_pct_error(double predicted, double measured);

struct ErrorSummary {
    std::size_t count = 0;
    double mape = 0;          // mean of abs_pct_error
    double median_ape = 0;
    double max_ape = 0;
    std::size_t worst = 0;    // index of the max_ape sample
    double mean_log_ratio = 0;  // mean of ln(predicted/measured): the bias (> 0 = over-predicts)
};

// Summary over paired samples. Error if sizes differ, the input is empty, or a sample is
// invalid (the message names its index).
Result<ErrorSummary> summarize_errors(const std::vector<double>& predicted,
                                      const std::vector<double>& measured);

// Ranks 1..n with ties sharing the average rank ("fractional ranking").
std::vector<double> average_ranks(const std::vector<double>& values);

// Pearson correlation; NaN when either side has zero variance or fewer than 2 samples.
double pearson(const std::vector<double>& x, const std::vector<double>& y);

// Spearman rank correlation = Pearson correlation of the average ranks. NaN when n < 2 or a side
// is constant. Pre: equal sizes (else NaN).
double spearman(const std::vector<double>& x, const std::vector<double>& y);

// Top-1 regret of choosing by `predicted`: measured[argmin predicted] / min(measured) - 1.
// Ties in `predicted` pick the first index. Pre: equal non-zero sizes, measured > 0 (else NaN).
double top1_regret(const std::vector<double>& predicted, const std::vector<double>& measured);

double mean(const std::vector<double>& v);     // NaN for empty input

// How often the model orders two tiles of one sweep as the GPU does, by how far apart it predicts
// them. A pair (i, j) of one group has the predicted gap |ln(p_i / p_j)|; it is ordered right when
// the predicted and the measured differences have the same sign, half right when either side is
// an exact tie. Pairs are binned by gap; each bin [gap_lo, gap_hi) counts its pairs and its right
// ones (the half-right ones as 0.5). This is what a kernel tuner needs from a sweep: how far apart
// two tiles' predictions must be before the model's choice between them can be trusted.
struct PairOrderBin {
    double gap_lo = 0, gap_hi = 0;  // fractions of ln time: 0.05 = 5%
    std::size_t pairs = 0;
    double right = 0;               // pairs ordered right (a tie counts 0.5)
};
// One group: the (predicted, measured) times of one sweep's tiles.
using TimeGroup = std::vector<std::pair<double, double>>;
// The default bin edges: 0, 1, 2, 3, 5, 10, 20% and above.
const std::vector<double>& default_gap_edges();
// Bins [edges[k], edges[k+1]) and a last one [edges.back(), inf). Pre: edges ascending from 0;
// every time finite and > 0 (pairs with another value are skipped).
std::vector<PairOrderBin> pair_order_accuracy(const std::vector<TimeGroup>& groups,
                                              const std::vector<double>& edges = default_gap_edges());
// The order resolution at `level`: the smallest bin edge g above 0 such that, in every bin from g
// upwards that has pairs, at least `level` of the pairs are ordered right (so tiles predicted at
// least g apart are ordered right that often, whatever their gap). NaN when no bin qualifies.
double order_resolution(const std::vector<TimeGroup>& groups, double level = 0.95,
                        const std::vector<double>& edges = default_gap_edges());
// The same from bins already counted by pair_order_accuracy.
double order_resolution_of_bins(const std::vector<PairOrderBin>& bins, double level = 0.95);

// A two-sided interval; {NaN, NaN} when there is nothing to bound.
struct Interval {
    double lo = std::numeric_limits<double>::quiet_NaN();
    double hi = std::numeric_limits<double>::quiet_NaN();
};

// Percentile-bootstrap interval of mean(v): `resamples` draws of v.size() values with replacement,
// and the (1 - level) / 2 and (1 + level) / 2 quantiles (linear interpolation) of the draws' means.
// It says how far the mean could move with another sample of the same kind (other tile sweeps,
// other cases), not how noisy each measurement is. The draws come from a fixed-seed SplitMix64
// generator, so the interval is the same on every run and platform. NaN values of v are skipped.
// {NaN, NaN} for no finite value; {x, x} for one. Pre: 0 < level < 1 and resamples >= 1 (else
// {NaN, NaN}).
Interval bootstrap_mean_interval(const std::vector<double>& v, double level = 0.95, int resamples = 4000,
                                 std::uint64_t seed = 0x7469'6c65'7363'6f70ULL);
double median(std::vector<double> v);          // NaN for empty input

}  // namespace tilescope::validate
