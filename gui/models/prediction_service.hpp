// Pure, thread-safe prediction entry points for the GUI (no Qt widgets here).
//
// The GUI builds a PredictRequest from its widgets (raw WorkloadSpec + profile spec + model
// name), and a worker thread turns it into an immutable PredictionSnapshot with
// compute_prediction(). The same path the CLI takes: make_workload() -> load_hardware() ->
// lower() -> analytic() or sim::simulate().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "core/prediction.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope::gui {

struct PredictRequest {
    WorkloadSpec spec;
    std::string profile = "a100-40gb";  // bundled name or path to a JSON profile
    std::string model = "analytic";     // "analytic" or "sim"
    bool timeline = true;               // sim only: record one BlockSpan per block
    bool l2 = true;                     // sim only: false = every load reaches HBM (CLI --l2 off)
};

// One prediction with everything a view needs to draw it.
struct PredictionSnapshot {
    Workload workload;
    Hardware hardware;
    Prediction prediction;
};
using SnapshotPtr = std::shared_ptr<const PredictionSnapshot>;

// The raw spec that make_workload() turns back into `w` (every field explicit).
WorkloadSpec spec_from_workload(const Workload& w);

// Models this build can run: "analytic" always, "sim" when built with the simulator.
std::vector<std::string> available_models();
bool simulator_available();

// Runs one model on an already validated workload and hardware.
Result<Prediction> run_model(const Workload& workload, const Hardware& hw, const std::string& model,
                             bool timeline, bool l2 = true);

// make_workload + load_hardware + lower + model; errors carry the core's readable message.
Result<PredictionSnapshot> compute_prediction(const PredictRequest& request);
// Same, with hardware already loaded (sweeps load the profile once).
Result<PredictionSnapshot> compute_prediction(const PredictRequest& request, const Hardware& hw);

}  // namespace tilescope::gui
