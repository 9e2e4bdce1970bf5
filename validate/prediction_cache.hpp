// Stored predictions for the committed validation data set.
//
// Why: the simulator needs about an hour of CPU time for the whole data set (naive attention
// at N = 16384 simulates millions of blocks), far too long for a CI test. So
// `tilescope validate --save-predictions FILE` stores every case's predicted quantities with
// the model name and a fingerprint of the GPU profile, and the CI check runs
// `tilescope validate --predictions FILE --verify-sample K`: it takes the stored values, but
// first re-predicts the K cheapest cases (by simulation_cost) and requires them to match the
// stored ones (relative difference <= 1e-9). A changed model or profile therefore fails the
// check ("stale predictions") until the file is regenerated; it cannot pass silently.
#pragma once

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/hardware.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"
#include "validate/validate.hpp"

namespace tilescope::validate {

struct CachedPrediction {
    std::array<double, kQuantityCount> predicted{};
    // Per launch, in launch order, for cases of two or more launches (absent in files written
    // before 2026-11-26: then a report has no predicted per-launch values).
    std::vector<std::pair<std::string, std::array<double, kQuantityCount>>> launches;
    std::string error;  // the model could not predict the case
};

struct PredictionCache {
    std::string model;
    std::string gpu;
    std::string profile_fingerprint;
    std::map<std::string, CachedPrediction> cases;  // by case name
};

// The profile fingerprint (core/hardware.hpp) that stored predictions are checked against.
using tilescope::profile_fingerprint;

// JSONL: a header line {"model", "gpu", "profile_fingerprint"} then one line per case:
// {"case", "predicted": {quantity id: value}, "launches": [{"name", "predicted": {...}}] (cases of
// two or more launches only), "error" (when the model could not predict it)}.
std::string prediction_cache_jsonl(const Report& r, const std::string& fingerprint);
Result<PredictionCache> parse_prediction_cache(const std::string& text, const std::string& origin);
Result<PredictionCache> load_prediction_cache(const std::string& path);

// Simulation cost proxy of a workload: sum over its launches of work items x steps of the
// first item's program (the simulator's work is roughly proportional). 0 when it does not lower.
double simulation_cost(const Workload& w, const Hardware& hw);

}  // namespace tilescope::validate
