// Prediction models behind --model. "analytic" = lower() + analytic() (closed form, no caches).
// The simulator adds "sim" here (and makes it the default) when it is built.
#pragma once

#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "core/prediction.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope {

// Names accepted by predict_with_model, the default first.
std::vector<std::string> available_models();
std::string default_model();

// Lowers the workload for `hw` (illegal configurations come back as an Error with the limit) and
// runs the model. `with_timeline` asks the simulator for per-block spans (ignored by analytic).
Result<Prediction> predict_with_model(const std::string& model, const Workload& workload, const Hardware& hw,
                                      bool with_timeline);

}  // namespace tilescope
