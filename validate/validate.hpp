// run_validation(): predict every measured case with a model and compare.
//
// Per case: predicted vs measured for dram__bytes_read.sum, dram__bytes_write.sum,
// HBM bytes (read + write), lts__t_bytes.sum and gpu__time_duration.sum.
// Per metric and split: MAPE, median, worst case (ErrorSummary).
// Per tile sweep (cases equal except Tile, i.e. equal sweep_key) with >= 2 usable cases:
// Spearman rank correlation of predicted vs measured time (needs >= 3 cases) and top-1 regret
// (measured time of the model's pick / measured best - 1).
// Targets (Targets below) are checked on the held-out split only.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/hardware.hpp"
#include "core/prediction.hpp"
#include "core/result.hpp"
#include "validate/dataset.hpp"
#include "validate/stats.hpp"

namespace tilescope::validate {

// The compared quantities, in report order.
enum class Quantity : std::size_t { hbm_bytes, dram_read, dram_write, lts_bytes, time };
inline constexpr std::size_t kQuantityCount = 5;
inline constexpr std::array<const char*, kQuantityCount> kQuantityNames = {
    "hbm_bytes (read+write)", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
    "gpu__time_duration.sum"};
inline constexpr std::array<const char*, kQuantityCount> kQuantityIds = {
    "hbm_bytes", "dram_read", "dram_write", "lts_bytes", "time"};
// The quantity's value from a Prediction/Measurement total (NaN when a metric is missing).
double quantity_of(const Prediction& p, Quantity q);
// The same from one launch's metrics.
double quantity_of(const Metrics& m, Quantity q);

// Pass/fail targets on held-out cases. A negative MAPE target means "reported, no target".
struct Targets {
    std::array<double, kQuantityCount> mape = {0.05, -1, -1, 0.10, 0.10};
    double spearman_min = 0.9;   // mean over held-out sweeps with >= 3 cases
    double regret_max = 0.05;    // mean over held-out sweeps with >= 2 cases
};

// One launch of a case that runs several (naive attention: QK^T, softmax, P V), predicted and
// measured. A case's totals can be close while two of its launches are wrong in opposite
// directions; these pairs show it. Launches are matched by position and must carry the same name.
struct LaunchPair {
    std::string name;  // e.g. "attention-naive:qk"
    std::array<double, kQuantityCount> predicted{};  // NaN where stored predictions hold none
    std::array<double, kQuantityCount> measured{};
};

struct CaseResult {
    std::string name;
    std::string key;
    std::string family;        // kernel family name
    Split split = Split::train;
    std::array<double, kQuantityCount> predicted{};
    std::array<double, kQuantityCount> measured{};
    std::string error;         // non-empty: the model could not predict this case (reason)
    // Per launch, for cases of two or more measured launches whose predicted launches match them
    // by name (empty otherwise).
    std::vector<LaunchPair> launches;
    // The measurement or the prediction has two or more launches, both have launches, and they
    // do not match by number and name: the case is compared as a whole only (the report says so).
    bool launches_unpaired = false;
    // What else, besides the tile, tells kernel variants of one family apart in tile_biases():
    // "d=64" for attention (the head dimension), empty otherwise.
    std::string variant;
};

struct QuantitySummary {
    Quantity quantity = Quantity::time;
    std::size_t usable = 0;    // cases with a finite, positive measurement and prediction
    std::size_t unusable = 0;  // missing measurement or failed prediction
    ErrorSummary errors;       // valid when usable > 0
    std::string worst_case;    // case name of errors.worst
    Interval mape_ci95;        // bootstrap over the usable cases (stats.hpp)
};

struct SweepResult {
    std::string key;
    Split split = Split::train;
    std::size_t cases = 0;
    double spearman = 0;       // NaN for < 3 cases or constant sides
    double regret = 0;         // NaN for < 2 cases
    std::string measured_best; // case name of the measured fastest
    std::string model_pick;    // case name of the predicted fastest
};

struct SplitSummary {
    std::array<QuantitySummary, kQuantityCount> quantities;
    std::size_t sweeps_ranked = 0;   // sweeps with a Spearman value
    double spearman_mean = 0, spearman_min = 0;
    std::string spearman_min_sweep;
    std::size_t sweeps_with_regret = 0;
    double regret_mean = 0, regret_max = 0;
    std::string regret_max_sweep;
    // 95% bootstrap intervals of the two means over the sweeps (stats.hpp): how far each mean
    // could move with another draw of sweeps like these; the checks use the means themselves.
    Interval spearman_ci95, regret_ci95;
    // Pairs of tiles of one sweep, binned by how far apart their predicted times are, with the
    // share the model orders as measured (stats.hpp pair_order_accuracy), and the smallest gap
    // from which on at least 95% of the pairs are ordered right (order_resolution; NaN if none).
    std::vector<PairOrderBin> pair_order;
    double order_resolution95 = std::numeric_limits<double>::quiet_NaN();
};

// Held-out / train errors of one kernel family (attention-naive, gemm, ...).
struct FamilySummary {
    std::string family;
    SplitSummary train, heldout;
};

// Errors of one launch of the multi-launch families (all cases' launches of that name), per split:
// what the family's case totals average over. Only `quantities` of the summaries are filled.
struct LaunchSummary {
    std::string launch;  // launch name, e.g. "attention-naive:pv"
    std::string family;
    SplitSummary train, heldout;
};

// A tile's time error relative to its sweep-mates, per group of cases that run the same kernel
// variant (family, tile, and `variant`) and per split: within each tile sweep, the tile's
// ln(predicted / measured time) minus the sweep's mean of it, averaged over the group's sweeps
// and given as a factor - 1 (+0.05: predicted 5% slower than its sweep-mates, relative to the
// measurement). A bias that the held-out half repeats is the same tile mispredicted the same way
// in every sweep (an error of the model's form for that variant), not noise; such biases are
// what a sweep's ranking misses when its tiles are close.
struct TileBias {
    std::string family, tile, variant;
    double train = std::numeric_limits<double>::quiet_NaN();
    double heldout = std::numeric_limits<double>::quiet_NaN();
    std::size_t train_sweeps = 0, heldout_sweeps = 0;
};
// Over the tile sweeps of `cases` (equal key, >= 2 cases with a usable time), sorted by family,
// tile, variant.
std::vector<TileBias> tile_biases(const std::vector<CaseResult>& cases);
// Pearson correlation of ln(1 + train) and ln(1 + heldout) over the groups that both halves
// hold; NaN below 3 such groups or when either side is constant.
double tile_bias_correlation(const std::vector<TileBias>& biases);

struct Check {
    std::string what;     // "held-out hbm_bytes MAPE"
    double value = 0;
    double target = 0;
    bool upper = true;    // value must be <= target (else >=)
    bool pass = false;
    // Stable id for a recorded baseline ("hbm_bytes_mape", "lts_bytes_mape", "time_mape",
    // "spearman_mean", "regret_mean"; empty for the stored-prediction check, which has none).
    std::string id = {};
    // A missed target recorded in a committed baseline (apply_baseline): NaN when none. A missed
    // check is `within_recorded` when its value is no worse than the recorded figure.
    double recorded = std::numeric_limits<double>::quiet_NaN();
    bool within_recorded = false;
    // A yes/no check (every case predicted, stored predictions reproduce): value 1 or 0,
    // printed as yes / no.
    bool flag = false;
};

struct Report {
    std::string gpu;
    std::string model;
    std::string measurements;   // dataset origin
    std::string split_filter;   // "heldout", "train", "all": which cases are listed/summarised
    std::vector<CaseResult> cases;
    std::vector<SweepResult> sweeps;
    SplitSummary train, heldout, all;
    std::vector<Check> checks;  // held-out targets, every case predicted (+ stored-prediction reproduction, last, if used)
    std::string predictions_source;  // "model run" or "stored: ..., N re-predicted, M matched"
    bool pass = false;                // every check meets its target
    bool pass_with_baseline = false;  // every check meets its target or its recorded figure
    std::string baseline;             // origin of the applied baseline, empty if none
    std::vector<FamilySummary> families;  // per kernel family (held-out and train)
    std::vector<LaunchSummary> launches;  // per launch of multi-launch cases, in first-seen order
    std::vector<std::string> launches_unpaired;  // names of the cases with launches_unpaired
    std::vector<TileBias> tile_bias;             // tile_biases(cases)
    double tile_bias_r = std::numeric_limits<double>::quiet_NaN();  // tile_bias_correlation(tile_bias)
    std::vector<std::string> skipped;     // dataset lines that were not cases
    std::map<std::string, std::string> provenance;  // of the measurements
};

using Predictor = std::function<Result<Prediction>(const Workload&, const Hardware&)>;

enum class SplitFilter { heldout, train, all };
Result<SplitFilter> parse_split_filter(const std::string& s);
std::string_view to_string(SplitFilter f);

struct PredictionCache;  // validate/prediction_cache.hpp

struct ValidateOptions {
    SplitFilter filter = SplitFilter::heldout;
    int jobs = 1;                // prediction threads
    Targets targets;
    // Stored predictions instead of running the model (see prediction_cache.hpp); the
    // `verify_sample` cheapest cases are re-predicted and must match, else a check fails.
    const PredictionCache* cache = nullptr;
    int verify_sample = 0;
};

// Predicts every case of `data` (all splits, so the report can show both) with `predict`.
// Fails only on programming errors (empty data set); a case the model cannot predict is kept
// with its reason and counted as unusable.
Result<Report> run_validation(const Dataset& data, const Hardware& hw, const std::string& model_name,
                        const Predictor& predict, const ValidateOptions& options);

// Summaries from per-case results (exposed for tests and for calibrate's residual report).
SplitSummary summarize(const std::vector<CaseResult>& cases, const std::vector<SweepResult>& sweeps);
std::vector<SweepResult> rank_sweeps(const std::vector<CaseResult>& cases);
std::vector<Check> check_targets(const SplitSummary& heldout, const Targets& targets);

// A committed record of held-out figures that miss their targets, so a CI check can still fail
// on a regression without pretending the target is met. JSON:
//   {"about": "...", "recorded": {"time_mape": 0.2760, "spearman_mean": 0.328, ...}}
// For each check with a recorded figure: within_recorded = value is no worse than the figure
// (<= for upper-bounded checks, >= otherwise). report.pass_with_baseline = every check passes
// its target or is within its recorded figure; report.pass (targets only) is unchanged.
// Errors: malformed JSON, an unknown id, a non-numeric figure.
Status apply_baseline(Report& report, const std::string& json_text, const std::string& origin);

}  // namespace tilescope::validate
