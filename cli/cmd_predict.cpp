// `tilescope predict`: one workload, one GPU, one model -> table, JSON or CSV.
#include <iostream>

#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/models.hpp"
#include "cli/workload_options.hpp"
#include "core/result_io.hpp"

namespace po = boost::program_options;

namespace tilescope {

int run_predict(int argc, char** argv) {
    po::options_description general("Options");
    general.add_options()("help,h", "show this help")(
        "gpu", po::value<std::string>()->default_value("a100-40gb"), "bundled profile name or path to a profile JSON")(
        "model", po::value<std::string>()->default_value(default_model()), "prediction model (analytic, sim when built)")(
        "format", po::value<std::string>()->default_value("table"), "table | json | csv")(
        "out", po::value<std::string>()->default_value(""), "write to this file instead of stdout")(
        "timeline", "json: include the simulator's per-block timeline");
    add_model_options(general);
    po::options_description all;
    all.add(workload_options()).add(general);
    po::variables_map vm;
    if (Status s = parse_command_line(argc, argv, all, vm); !s) return cli_fail(2, s.error().message);
    if (vm.count("help")) {
        print_help(std::cout, "tilescope predict --kernel K [shape/tile flags] [--gpu G] [--format table|json|csv]", all);
        return 0;
    }
    const std::string format = vm["format"].as<std::string>();
    if (format != "table" && format != "json" && format != "csv")
        return cli_fail(2, "--format must be table, json or csv (got '" + format + "')");
    if (vm.count("timeline") > 0 && format != "json") return cli_fail(2, "--timeline needs --format json");
    auto spec = workload_spec_from(vm);
    if (!spec) return cli_fail(2, spec.error().message);
    auto workload = make_workload(*spec);
    if (!workload) return cli_fail(2, workload.error().message);
    auto hw = load_hardware(vm["gpu"].as<std::string>());
    if (!hw) return cli_fail(2, hw.error().message);
    const bool timeline = vm.count("timeline") > 0;
    auto model_options = model_options_from(vm);
    if (!model_options) return cli_fail(2, model_options.error().message);
    auto prediction = predict_with_model(vm["model"].as<std::string>(), *workload, *hw, *model_options);
    if (!prediction) return cli_fail(2, prediction.error().message);

    std::string text;
    if (format == "json") text = to_json(*prediction, timeline);
    else if (format == "csv") text = csv_header() + "\n" + csv_row(*prediction) + "\n";
    else text = to_table(*prediction, "profile " + vm["gpu"].as<std::string>() + ": " + profile_status(*hw));
    if (Status s = write_output(vm["out"].as<std::string>(), text); !s) return cli_fail(2, s.error().message);
    return 0;
}

}  // namespace tilescope
