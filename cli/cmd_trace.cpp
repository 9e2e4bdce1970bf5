// `tilescope trace`: simulate one workload and write a Chrome / Perfetto trace-event JSON file
// (open it in ui.perfetto.dev or chrome://tracing): one row per SM slot ("SM 12 slot 1") with a
// box per thread block, a row of launches, HBM and L2 bandwidth counter tracks, and markers where
// the binding resource changes. A one-line summary goes to stdout.
#include <cstdint>
#include <cstdio>
#include <iostream>

#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/models.hpp"
#include "cli/workload_options.hpp"
#include "core/lower.hpp"
#include "simulator/simulate.hpp"
#include "simulator/trace_json.hpp"

namespace po = boost::program_options;

namespace tilescope {
namespace {

// A trace holds one event per block, about 200-300 B of JSON each (measured: softmax 195 B,
// naive attention 218 B, GEMM ~290 B per block): a million blocks is a file of 200-300 MB, about
// what ui.perfetto.dev still opens. More is refused before simulating.
constexpr std::int64_t kMaxTraceBlocks = 1'000'000;

}  // namespace

int run_trace(int argc, char** argv) {
    po::options_description general("Options");
    general.add_options()("help,h", "show this help")(
        "gpu", po::value<std::string>()->default_value("a100-40gb"), "bundled profile name or path to a profile JSON")(
        "out", po::value<std::string>()->default_value("trace.json"), "trace file to write (- = stdout)")(
        "samples", po::value<int>()->default_value(1024), "bandwidth samples per launch (counter track points)");
    add_model_options(general);
    po::options_description all;
    all.add(workload_options()).add(general);
    po::variables_map vm;
    if (Status s = parse_command_line(argc, argv, all, vm); !s) return cli_fail(2, s.error().message);
    if (vm.count("help")) {
        print_help(std::cout, "tilescope trace --kernel K [shape/tile flags] [--gpu G] [--l2 on|off] --out trace.json", all);
        return 0;
    }
    auto spec = workload_spec_from(vm);
    if (!spec) return cli_fail(2, spec.error().message);
    auto workload = make_workload(*spec);
    if (!workload) return cli_fail(2, workload.error().message);
    auto hw = load_hardware(vm["gpu"].as<std::string>());
    if (!hw) return cli_fail(2, hw.error().message);
    auto mo = model_options_from(vm);
    if (!mo) return cli_fail(2, mo.error().message);
    const int samples = vm["samples"].as<int>();
    if (samples < 2 || samples > 1'000'000)
        return cli_fail(2, "--samples must be in [2, 1000000] (got " + std::to_string(samples) + ")");
    auto launches = lower(*workload, *hw);
    if (!launches) return cli_fail(2, launches.error().message);
    std::int64_t blocks = 0;
    for (const Launch& l : *launches) blocks += l.blocks();
    if (blocks > kMaxTraceBlocks)
        return cli_fail(2, "the trace would record " + std::to_string(blocks) + " blocks; the limit is " +
                               std::to_string(kMaxTraceBlocks) + " (~250 B of JSON each): use a smaller shape or larger tiles");
    sim::Options options;
    options.l2 = mo->l2;
    if (mo->exact) options.phase_budget = 0;  // --exact, as predict takes it
    options.timeline = true;
    options.max_samples = samples;
    auto p = sim::simulate(*workload, *launches, *hw, options);
    if (!p) {
        // The simulator refuses bad input (a shape too large to simulate, an inconsistent
        // profile): exit 2 like `predict`. A trace is the simulator's timeline, so its
        // suggestion of the analytic model does not apply here.
        std::string msg = p.error().message;
        const std::string hint = "use --model analytic, --l2 off, or a smaller shape";
        if (const auto at = msg.find(hint); at != std::string::npos)
            msg.replace(at, hint.size(), "use --l2 off or a smaller shape (a trace needs the simulator)");
        return cli_fail(2, msg);
    }
    const std::string text = sim::trace_json(*p);
    const std::string out = vm["out"].as<std::string>();
    if (Status s = write_output(out, text); !s) return cli_fail(2, s.error().message);
    if (out != "-" && !out.empty()) {
        std::size_t recorded = 0;
        for (const LaunchResult& l : p->launches) recorded += l.timeline.size();
        std::printf("wrote %s: %zu launch(es), %zu blocks, predicted %.1f us (%s-bound), %.1f MB of JSON\n",
                    out.c_str(), p->launches.size(), recorded, p->total[Metric::gpu_time_duration] * 1e-3,
                    p->bound.c_str(), static_cast<double>(text.size()) * 1e-6);
    }
    return 0;
}

}  // namespace tilescope
