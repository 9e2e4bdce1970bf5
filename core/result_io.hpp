// (De)serialisation of Predictions/Measurements: JSON (Boost.JSON), CSV (one header row), table.
#pragma once

#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "core/prediction.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope {

// Full JSON: {workload, gpu, model, launches[{name, facts..., metrics{}, bound, extra}], total{metrics},
// bound, extra, provenance}. `with_timeline` adds each launch's timeline (can be large).
std::string to_json(const Prediction&, bool with_timeline = false);
Result<Prediction> prediction_from_json(const std::string& text);
// Workload as a JSON object text (used inside to_json and by sweeps).
std::string workload_json(const Workload&);

// CSV: workload columns, then model, gpu, bound, then every metric by its ncu name, then
// status ("ok" / "illegal") and reason. Columns that do not apply to the family are empty.
std::string csv_header();
std::string csv_row(const Prediction&);
// A row for a configuration that could not be predicted (sweeps): empty metrics, status "illegal".
std::string csv_row_illegal(const WorkloadSpec&, const std::string& model, const std::string& gpu,
                            const std::string& reason);
std::string csv_row_illegal(const Workload&, const std::string& model, const std::string& gpu,
                            const std::string& reason);

// JSON Lines (sweeps): one compact object per line: the to_json() object plus "status": "ok",
// or {"status": "illegal", "reason", "workload", "gpu", "model"}.
std::string to_json_line(const Prediction&);
std::string json_line_illegal(const WorkloadSpec&, const std::string& model, const std::string& gpu,
                              const std::string& reason);
std::string json_line_illegal(const Workload&, const std::string& model, const std::string& gpu,
                              const std::string& reason);

// The whole text of the file at `path`. Errors: "<what> is a directory", "cannot read <what>",
// where `what` names the file for the user (e.g. "measurements file x.jsonl").
Result<std::string> read_text_file(const std::string& path, const std::string& what);

// Rewrites any JSON text with this file's number format (shortest round-trip doubles), indented
// when `pretty`, else on one line. Invalid input comes back unchanged.
std::string reformat_json(const std::string& json_text, bool pretty);

// Readable table for terminals.
std::string to_table(const Prediction&);
// The same with a "profile NAME: STATUS" line under the GPU line (profile_status in hardware.hpp).
std::string to_table(const Prediction&, const std::string& profile_line);
// A metric value for people: SI prefix and unit ("268 MB"), durations as ns/us/ms.
std::string format_metric(Metric m, double value);

}  // namespace tilescope
