// (De)serialisation of Predictions/Measurements: JSON (Boost.JSON), CSV (one header row), table.
#pragma once

#include <string>
#include <vector>

#include "core/prediction.hpp"
#include "core/result.hpp"

namespace tilescope {

// Full JSON: {workload, gpu, model, launches[{name, facts..., metrics{}, bound, extra}], total{metrics},
// bound, extra, provenance}. `with_timeline` adds each launch's timeline (can be large).
std::string to_json(const Prediction&, bool with_timeline = false);
Result<Prediction> prediction_from_json(const std::string& text);
// Workload as a JSON object text (used inside to_json and by sweeps).
std::string workload_json(const Workload&);

// CSV: workload columns, then model, gpu, bound, then every metric by its ncu name.
std::string csv_header();
std::string csv_row(const Prediction&);
// Readable table for terminals.
std::string to_table(const Prediction&);

}  // namespace tilescope
