// Prediction models behind --model. "analytic" = lower() + analytic() (closed form, no caches);
// "sim" = lower() + the cycle-approximate simulator (simulator/), the default when it is built.
#pragma once

#include <boost/program_options.hpp>

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

// Options of the models beyond the workload. `l2` = false switches the simulator's L2 off (every
// global load reaches HBM, stores write through): its bytes then equal analytic()'s.
// `exact` simulates every iteration of every block (no coarsening of long launches: slower, and
// without coarsening's error, up to 9% for the kernel menu's tiles).
struct ModelOptions {
    bool timeline = false;
    bool l2 = true;
    bool exact = false;
    // The simulator-only flags given on the command line ("--l2", "--exact", "--timeline"):
    // the analytic model refuses them rather than ignore them.
    std::vector<std::string> sim_only_flags;
};
Result<Prediction> predict_with_model(const std::string& model, const Workload& workload, const Hardware& hw,
                                      const ModelOptions& options);
// Whether `model` takes these options (the analytic model refuses simulator-only flags).
Status model_accepts(const std::string& model, const ModelOptions& options);
// The model's name as reports, stored predictions and calibrated profiles give it: "sim",
// "analytic", or "sim --exact" when every iteration is simulated (predictions of the two sim
// modes differ, so stored ones must not be mistaken for the other's).
std::string model_label(const std::string& model, const ModelOptions& options);

// Adds "--l2 on|off" (simulator only; default on) and "--exact" to a command's options, and reads
// them back.
void add_model_options(boost::program_options::options_description& options);
Result<ModelOptions> model_options_from(const boost::program_options::variables_map& vm);

}  // namespace tilescope
