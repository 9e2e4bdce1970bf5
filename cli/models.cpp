#include "cli/models.hpp"

#include "core/analytic.hpp"
#include "core/lower.hpp"

namespace tilescope {

std::vector<std::string> available_models() { return {"analytic"}; }

std::string default_model() { return available_models().front(); }

Result<Prediction> predict_with_model(const std::string& model, const Workload& workload, const Hardware& hw,
                                      bool with_timeline) {
    (void)with_timeline;
    if (model == "analytic") {
        auto launches = lower(workload, hw);
        if (!launches) return launches.error();
        return analytic(workload, *launches, hw);
    }
    std::string list;
    for (const auto& m : available_models()) list += (list.empty() ? "" : ", ") + m;
    return make_error("--model must be one of " + list + " (got '" + model + "')");
}

}  // namespace tilescope
