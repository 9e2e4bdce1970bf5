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

WorkloadSpec spec_from_workload(const Workload& w) {
    WorkloadSpec s;
    s.kernel = std::string(to_string(w.kernel));
    s.dtype = std::string(to_string(w.dtype));
    switch (w.kernel) {
    case KernelFamily::attention_naive:
    case KernelFamily::attention_flash1:
    case KernelFamily::attention_flash2:
        s.batch = w.batch;
        s.heads = w.heads;
        s.seq = w.seq_q;
        if (w.seq_kv != w.seq_q) s.seq_kv = w.seq_kv;
        s.head_dim = w.head_dim;
        s.causal = w.causal;
        if (w.kernel == KernelFamily::attention_naive) s.variant = std::string(to_string(w.variant));
        break;
    case KernelFamily::gemm:
        s.m = w.m;
        s.n = w.n;
        s.k = w.k;
        s.raster = std::string(to_string(w.raster));
        break;
    case KernelFamily::softmax:
        s.rows = w.rows;
        s.cols = w.cols;
        s.variant = std::string(to_string(w.variant));
        break;
    }
    s.tile_m = w.tile.m;
    s.tile_n = w.tile.n;
    if (w.tile.k > 0) s.tile_k = w.tile.k;
    s.stages = w.tile.stages;
    s.warps = w.tile.warps;
    if (w.persistent) s.persistent = true;
    return s;
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
