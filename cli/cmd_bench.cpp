// `tilescope bench`: predictions per second of a model on one core (a figure to report, not a
// timed test). Cycles through a fixed set of validated workloads (or the one given by flags) so
// the figure covers every family; the time includes lower() and the model, not flag parsing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/models.hpp"
#include "cli/workload_options.hpp"
#include "core/metrics.hpp"

namespace po = boost::program_options;

namespace tilescope {
namespace {

std::vector<WorkloadSpec> default_set() {
    std::vector<WorkloadSpec> out;
    for (int br : {32, 64, 128}) {
        for (int bc : {32, 64, 128}) {
            WorkloadSpec s;
            s.kernel = "attention-flash2";
            s.tile_m = br;
            s.tile_n = bc;
            out.push_back(s);
        }
    }
    for (const char* k : {"attention-naive", "attention-flash1", "gemm", "softmax"}) {
        WorkloadSpec s;
        s.kernel = k;
        out.push_back(s);
    }
    WorkloadSpec causal;
    causal.kernel = "attention-flash2";
    causal.causal = true;
    causal.seq = 3000;
    out.push_back(causal);
    return out;
}

}  // namespace

int run_bench(int argc, char** argv) {
    po::options_description general("Options");
    general.add_options()("help,h", "show this help")(
        "gpu", po::value<std::string>()->default_value("a100-40gb"), "profile name or path")(
        "model", po::value<std::string>()->default_value("analytic"), "prediction model")(
        "seconds", po::value<double>()->default_value(1.0),
        "how long to time predictions (at least one runs: a simulation that takes longer runs to its end; each workload is "
        "also predicted once, untimed, to check it)");
    po::options_description all;
    const po::options_description workload = workload_options("Workload (optional; default: a fixed mix of all families)");
    all.add(workload).add(general);
    po::variables_map vm;
    if (Status s = parse_command_line(argc, argv, all, vm); !s) return cli_fail(2, s.error().message);
    if (vm.count("help")) {
        print_help(std::cout, "tilescope bench [--model analytic] [--seconds 1] [workload flags]", all);
        return 0;
    }
    const double seconds = vm["seconds"].as<double>();
    if (!(seconds > 0 && seconds <= 600)) {
        std::ostringstream got;
        got << seconds;
        return cli_fail(2, "--seconds must be in (0, 600] (got " + got.str() + ")");
    }
    auto hw = load_hardware(vm["gpu"].as<std::string>());
    if (!hw) return cli_fail(2, hw.error().message);
    const std::string model = vm["model"].as<std::string>();

    // Without --kernel the fixed mix runs: a workload flag would be ignored, so it is refused.
    if (vm.count("kernel") == 0)
        for (const auto& o : workload.options())
            if (vm.count(o->long_name()) != 0)
                return cli_fail(2, "--" + o->long_name() + " needs --kernel (without it bench runs its fixed mix of workloads)");
    auto given = workload_spec_from(vm);
    if (!given) return cli_fail(2, given.error().message);
    std::vector<WorkloadSpec> specs = given->kernel ? std::vector<WorkloadSpec>{*given} : default_set();
    std::vector<Workload> workloads;
    for (const auto& s : specs) {
        auto w = make_workload(s);
        if (!w) return cli_fail(2, w.error().message);
        auto check = predict_with_model(model, *w, *hw, false);
        if (!check) return cli_fail(2, check.error().message);
        workloads.push_back(*w);
    }

    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    std::size_t count = 0;
    double checksum = 0;
    double elapsed = 0;
    // Check the clock after batches that grow from 1 prediction, so a slow model (sim) stops
    // close to --seconds and a fast one (analytic) does not spend its time reading the clock.
    std::size_t batch = 1;
    do {
        for (std::size_t i = 0; i < batch; ++i, ++count) {
            auto p = predict_with_model(model, workloads[count % workloads.size()], *hw, false);
            checksum += p->total[Metric::gpu_time_duration];
        }
        elapsed = std::chrono::duration<double>(clock::now() - start).count();
        if (elapsed < seconds / 100) batch = std::min<std::size_t>(batch * 2, 4096);
    } while (elapsed < seconds);
    const double rate = static_cast<double>(count) / elapsed;
    std::printf("model %s on %s: %zu prediction%s in %.2f s on one core = %.4g predictions/s (%.4g us each; %zu workload%s; "
                "checksum %.6g)\n",
                model.c_str(), hw->name.c_str(), count, count == 1 ? "" : "s", elapsed, rate, 1e6 / rate,
                workloads.size(), workloads.size() == 1 ? "" : "s", checksum);
    return 0;
}

}  // namespace tilescope
