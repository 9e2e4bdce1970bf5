// `tilescope measure`: runs the real CUDA kernels for a workload (or a whole sweep of them) and
// reports what CUPTI and CUDA events measured, with the same metric names and output formats as
// `predict` (one configuration: table | json | csv) and `sweep` (lists/ranges: csv | jsonl),
// model "measured" and provenance (GPU, driver/runtime versions, clocks, date, commit).
// Exit codes: 2 bad input or a workload the kernels cannot run (tile not in the menu, warps !=
// Br/16, head_dim not 64/128, ...); 3 no CUDA GPU or no permission to read GPU counters (the
// line says which); 1 a failure while measuring.
#include <fstream>
#include <iostream>

#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/workload_options.hpp"
#include "core/hardware.hpp"
#include "core/result_io.hpp"
#include "kernels/measure/measure.hpp"
#include "kernels/measure/workload_runner.hpp"

namespace po = boost::program_options;

namespace tilescope {

int run_measure(int argc, char** argv) {
    po::options_description general("Options");
    general.add_options()("help,h", "show this help")(
        "gpu", po::value<std::string>()->default_value(""),
        "profile name recorded as the result's gpu (default: the CUDA device name)")(
        "format", po::value<std::string>()->default_value(""),
        "table | json | csv for one configuration (default table); csv | jsonl for a sweep (default csv)")(
        "out", po::value<std::string>()->default_value(""), "write to this file instead of stdout")(
        "repeats", po::value<int>()->default_value(20), "timed repeats (the median is reported)")(
        "warmup", po::value<int>()->default_value(3), "untimed warm-up runs")(
        "seed", po::value<long long>()->default_value(1), "seed of the random inputs")(
        "no-counters", "skip the CUPTI pass (time only; byte metrics are NaN)")(
        "no-flush", "do not flush L2 before each timed repeat");
    po::options_description all;
    all.add(workload_options("Workload (lists a,b,c and ranges 64:512:*2 measure a sweep)")).add(general);
    po::variables_map vm;
    if (Status s = parse_command_line(argc, argv, all, vm); !s) return cli_fail(2, s.error().message);
    if (vm.count("help")) {
        print_help(std::cout,
                   "tilescope measure --kernel K [shape/tile flags, lists/ranges allowed] [--format table|json|csv|jsonl]",
                   all);
        return 0;
    }
    const int repeats = vm["repeats"].as<int>(), warmup = vm["warmup"].as<int>();
    if (repeats < 1 || repeats > 10000) return cli_fail(2, "--repeats must be in [1, 10000] (got " + std::to_string(repeats) + ")");
    if (warmup < 0 || warmup > 1000) return cli_fail(2, "--warmup must be in [0, 1000] (got " + std::to_string(warmup) + ")");

    auto specs = workload_specs_from(vm, 100000);
    if (!specs) return cli_fail(2, specs.error().message);
    const bool sweep = specs->size() > 1;
    std::string format = vm["format"].as<std::string>();
    if (format.empty()) format = sweep ? "csv" : "table";
    if (sweep && format != "csv" && format != "jsonl")
        return cli_fail(2, "--format must be csv or jsonl when measuring a sweep (got '" + format + "')");
    if (!sweep && format != "table" && format != "json" && format != "csv" && format != "jsonl")
        return cli_fail(2, "--format must be table, json, csv or jsonl (got '" + format + "')");

    const std::string gpu_label = vm["gpu"].as<std::string>();
    if (!gpu_label.empty()) {
        auto hw = load_hardware(gpu_label);
        if (!hw) return cli_fail(2, hw.error().message);
    }

    // Validate every configuration before touching the GPU: a single bad one is exit 2; in a
    // sweep it becomes an "illegal" row.
    std::vector<Result<Workload>> workloads;
    for (const WorkloadSpec& spec : *specs) {
        auto w = make_workload(spec);
        if (w) {
            if (Status s = kern::workload_supported(*w); !s)
                w = make_error("the kernels cannot run " + describe(*w) + ": " + s.error().message);
        }
        if (!w && !sweep) return cli_fail(2, w.error().message);
        workloads.push_back(std::move(w));
    }

    const bool counters = vm.count("no-counters") == 0;
    const kern::GpuCheck gpu = kern::check_gpu(counters);
    if (gpu.state == kern::GpuState::no_gpu || gpu.state == kern::GpuState::no_permission)
        return cli_fail(3, gpu.message);
    if (gpu.state != kern::GpuState::ok) return cli_fail(1, gpu.message);

    kern::MeasureOptions options;
    options.repeats = repeats;
    options.warmup = warmup;
    options.counters = counters;
    options.flush_l2 = vm.count("no-flush") == 0;
    options.seed = static_cast<std::uint64_t>(vm["seed"].as<long long>());
    options.gpu_label = gpu_label;
    auto measurer = kern::Measurer::create(options);
    if (!measurer) return cli_fail(1, measurer.error().message);
    const std::string label = gpu_label.empty() ? gpu.gpu_name : gpu_label;

    const std::string out_path = vm["out"].as<std::string>();
    std::ofstream file;
    if (!out_path.empty() && out_path != "-") {
        file.open(out_path, std::ios::binary);
        if (!file) return cli_fail(2, "--out: cannot open '" + out_path + "' for writing");
    }
    std::ostream& out = file.is_open() ? static_cast<std::ostream&>(file) : std::cout;

    if (!sweep) {
        auto m = (*measurer)->measure(*workloads[0]);
        if (!m) return cli_fail(1, m.error().message);
        if (format == "json") out << to_json(*m) << "\n";
        else if (format == "jsonl") out << to_json_line(*m) << "\n";
        else if (format == "csv") out << csv_header() << "\n" << csv_row(*m) << "\n";
        else out << to_table(*m);
    } else {
        const bool jsonl = format == "jsonl";
        if (!jsonl) out << csv_header() << "\n";
        for (std::size_t i = 0; i < workloads.size(); ++i) {
            const Result<Workload>& w = workloads[i];
            if (!w) {
                out << (jsonl ? json_line_illegal((*specs)[i], "measured", label, w.error().message)
                              : csv_row_illegal((*specs)[i], "measured", label, w.error().message))
                    << "\n";
                continue;
            }
            auto m = (*measurer)->measure(*w);
            if (!m) {
                out << (jsonl ? json_line_illegal(*w, "measured", label, m.error().message)
                              : csv_row_illegal(*w, "measured", label, m.error().message))
                    << "\n";
                continue;
            }
            out << (jsonl ? to_json_line(*m) : csv_row(*m)) << "\n";
            out.flush();
        }
    }
    out.flush();
    if (!out) return cli_fail(2, "--out: cannot write '" + out_path + "'");
    return 0;
}

}  // namespace tilescope
