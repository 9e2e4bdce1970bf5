#include "gui/models/prediction_service.hpp"

#include <utility>

#include "core/analytic.hpp"
#include "core/lower.hpp"
#ifdef TILESCOPE_HAVE_SIM
#include "simulator/simulate.hpp"
#endif

namespace tilescope::gui {

bool simulator_available() {
#ifdef TILESCOPE_HAVE_SIM
    return true;
#else
    return false;
#endif
}

std::vector<std::string> available_models() {
    std::vector<std::string> models;
    if (simulator_available()) models.emplace_back("sim");
    models.emplace_back("analytic");
    return models;
}

Result<Prediction> run_model(const Workload& workload, const Hardware& hw, const std::string& model,
                             bool timeline, bool l2) {
    auto launches = lower(workload, hw);
    if (!launches) return launches.error();
    if (model == "analytic") return analytic(workload, launches.value(), hw);
    if (model == "sim") {
#ifdef TILESCOPE_HAVE_SIM
        sim::Options options;
        options.timeline = timeline;
        options.l2 = l2;
        return sim::simulate(workload, launches.value(), hw, options);
#else
        (void)timeline;
        (void)l2;
        return make_error("model 'sim' is not available: tilescope-gui was built without the simulator");
#endif
    }
    return make_error("unknown model '" + model + "' (expected analytic or sim)");
}

Result<PredictionSnapshot> compute_prediction(const PredictRequest& request, const Hardware& hw) {
    auto workload = make_workload(request.spec);
    if (!workload) return workload.error();
    auto prediction = run_model(workload.value(), hw, request.model, request.timeline, request.l2);
    if (!prediction) return prediction.error();
    PredictionSnapshot snapshot;
    snapshot.workload = workload.value();
    snapshot.hardware = hw;
    snapshot.prediction = std::move(prediction).value();
    return snapshot;
}

Result<PredictionSnapshot> compute_prediction(const PredictRequest& request) {
    auto hw = load_hardware(request.profile);
    if (!hw) return hw.error();
    return compute_prediction(request, hw.value());
}

}  // namespace tilescope::gui
