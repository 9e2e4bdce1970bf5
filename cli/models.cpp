#include "cli/models.hpp"

#include "core/analytic.hpp"
#include "core/lower.hpp"
#ifdef TILESCOPE_HAVE_SIM
#include "simulator/simulate.hpp"
#endif

namespace tilescope {

std::vector<std::string> available_models() {
#ifdef TILESCOPE_HAVE_SIM
    return {"sim", "analytic"};
#else
    return {"analytic"};
#endif
}

std::string default_model() { return available_models().front(); }

Status model_accepts(const std::string& model, const ModelOptions& options) {
    if (model != "analytic" || options.sim_only_flags.empty()) return {};
    std::string list;
    for (const auto& f : options.sim_only_flags) list += (list.empty() ? "" : ", ") + f;
    return make_error(list + (options.sim_only_flags.size() == 1 ? " applies" : " apply") +
                      " to --model sim only (the analytic model has no L2 and no timeline)");
}

std::string model_label(const std::string& model, const ModelOptions& options) {
    return options.exact ? model + " --exact" : model;
}

Result<Prediction> predict_with_model(const std::string& model, const Workload& workload, const Hardware& hw,
                                      bool with_timeline) {
    ModelOptions options;
    options.timeline = with_timeline;
    return predict_with_model(model, workload, hw, options);
}

Result<Prediction> predict_with_model(const std::string& model, const Workload& workload, const Hardware& hw,
                                      const ModelOptions& options) {
    if (model == "analytic") {
        if (Status s = model_accepts(model, options); !s) return s.error();
        auto launches = lower(workload, hw);
        if (!launches) return launches.error();
        return analytic(workload, *launches, hw);
    }
#ifdef TILESCOPE_HAVE_SIM
    if (model == "sim") {
        auto launches = lower(workload, hw);
        if (!launches) return launches.error();
        sim::Options sim_options;
        sim_options.l2 = options.l2;
        sim_options.timeline = options.timeline;
        if (options.exact) sim_options.phase_budget = 0;
        return sim::simulate(workload, *launches, hw, sim_options);
    }
#endif
    std::string list;
    for (const auto& m : available_models()) list += (list.empty() ? "" : ", ") + m;
    return make_error("--model must be one of " + list + " (got '" + model + "')");
}

void add_model_options(boost::program_options::options_description& options) {
    options.add_options()("l2", boost::program_options::value<std::string>()->default_value("on"),
                          "simulator L2 cache: on | off (off: every load reaches HBM, like analytic)")(
        "exact", "simulator: simulate every iteration (no coarsening of launches over 200,000 block-iterations; slower)");
}

Result<ModelOptions> model_options_from(const boost::program_options::variables_map& vm) {
    ModelOptions o;
    if (vm.count("l2")) {
        const std::string v = vm["l2"].as<std::string>();
        if (v == "on") o.l2 = true;
        else if (v == "off") o.l2 = false;
        else return make_error("--l2 must be on or off (got '" + v + "')");
        if (!vm["l2"].defaulted()) o.sim_only_flags.push_back("--l2");
    }
    if (vm.count("timeline")) {
        o.timeline = true;
        o.sim_only_flags.push_back("--timeline");
    }
    if (vm.count("exact")) {
        o.exact = true;
        o.sim_only_flags.push_back("--exact");
    }
    return o;
}

}  // namespace tilescope
