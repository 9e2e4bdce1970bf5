// gemm_order_whatif: the simulator's iteration cost of the GEMM kernel in both loop orders, on the
// grids of tilescope-gemm-order-probe (docs/validation change 55). Not a test.
// For each tile {64,128} x {64,128} x 32, 8 warps, stages {2, 3} and sms x {1, 2} blocks (the
// probe's problems: kernels/tools/gemm_order_grid.hpp), it predicts K = 2048 and K = 8192 with the
// launch as lowered (Launch::loads_after_wait = true: the GEMM kernel's wait-then-issue loop) and
// with loads_after_wait = false (FlashAttention-2's issue-then-wait order, the probe's
// kIssueFirst), and prints one JSON object per configuration with (t(8192) - t(2048)) / 192 for
// each order, in ns: the probe's iteration cost, and the line's value at 0 iterations (the
// launch's fixed part: t(2048) - 64 x the iteration cost). bench/scripts/gemm_order_table.py
// joins it with the probe's output.
// Usage: gemm_order_whatif [--gpu calibrated/h200] [--label NAME] [--wait-then-issue 0|1] [--stages 2|3]
//   --label is what the lines' "gpu" field says (default: the --gpu value), so a what-if re-run with
//   an archived copy of a profile (a path) prints the lines it printed under the profile's name;
//   --wait-then-issue overrides the profile's calibration.pipeline_wait_then_issue (change 36);
//   --stages keeps only the configurations of that stage count (both by default).
#include <cstdio>
#include <string>

#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "core/workload.hpp"
#include "kernels/tools/gemm_order_grid.hpp"
#include "simulator/simulate.hpp"

using namespace tilescope;

namespace {

// Predicted kernel time (ns) of one probe grid in one loop order; negative after an error line.
double predict(const Hardware& hw, int tm, int tn, int stages, int m, int n, int k, bool wait_first) {
    WorkloadSpec s;
    s.kernel = "gemm";
    s.m = m;
    s.n = n;
    s.k = k;
    s.tile_m = tm;
    s.tile_n = tn;
    s.tile_k = 32;
    s.stages = stages;
    s.warps = 8;
    auto w = make_workload(s);
    if (!w) {
        std::fprintf(stderr, "gemm_order_whatif: %s\n", w.error().message.c_str());
        return -1;
    }
    auto launches = lower(*w, hw);
    if (!launches) {
        std::fprintf(stderr, "gemm_order_whatif: %s\n", launches.error().message.c_str());
        return -1;
    }
    for (Launch& l : *launches) l.loads_after_wait = wait_first;
    auto r = sim::simulate(*w, *launches, hw, sim::Options{});
    if (!r) {
        std::fprintf(stderr, "gemm_order_whatif: %s\n", r.error().message.c_str());
        return -1;
    }
    return r->total[Metric::gpu_time_duration];
}

}  // namespace

int main(int argc, char** argv) {
    std::string gpu = "calibrated/h200";
    std::string label;
    int wait_then_issue = -1;
    int only_stages = 0;
    for (int i = 1; i < argc; i += 2) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "gemm_order_whatif: %s needs a value\n", a.c_str());
            return 2;
        }
        const std::string v = argv[i + 1];
        if (a == "--gpu") {
            gpu = v;
        } else if (a == "--label" && !v.empty()) {
            label = v;
        } else if (a == "--wait-then-issue" && (v == "0" || v == "1")) {
            wait_then_issue = v == "1";
        } else if (a == "--stages" && (v == "2" || v == "3")) {
            only_stages = v == "2" ? 2 : 3;
        } else {
            std::fprintf(stderr, "gemm_order_whatif: unknown flag or value %s %s (flags: --gpu NAME, --label NAME, --wait-then-issue 0|1, --stages 2|3)\n",
                         a.c_str(), v.c_str());
            return 2;
        }
    }
    auto hw = load_hardware(gpu);
    if (!hw) {
        std::fprintf(stderr, "gemm_order_whatif: %s\n", hw.error().message.c_str());
        return 2;
    }
    if (wait_then_issue >= 0) hw->calibration.pipeline_wait_then_issue = wait_then_issue;
    if (label.empty()) label = gpu;
    const int sms = hw->sm_count;
    for (int tm : {64, 128})
        for (int tn : {64, 128})
            for (int stages : {2, 3})
                for (int per_sm : {1, 2}) {
                    if (only_stages != 0 && stages != only_stages) continue;
                    const int blocks = sms * per_sm;
                    int m = 0, n = 0;
                    order_probe::grid_shape(blocks, tm, tn, &m, &n);
                    double iter[2], fixed[2];
                    for (int order = 0; order < 2; ++order) {
                        const double t0 = predict(*hw, tm, tn, stages, m, n, 2048, order == 0);
                        const double t1 = predict(*hw, tm, tn, stages, m, n, 8192, order == 0);
                        if (t0 < 0 || t1 < 0) return 1;
                        iter[order] = (t1 - t0) / ((8192 - 2048) / 32);
                        fixed[order] = t0 - iter[order] * (2048 / 32);  // the launch's time at 0 iterations
                    }
                    std::printf("{\"gpu\":\"%s\",\"tile_m\":%d,\"tile_n\":%d,\"stages\":%d,\"warps\":8,\"blocks\":%d,"
                                "\"wait_first_ns\":%.1f,\"issue_first_ns\":%.1f,\"wait_first_fixed_ns\":%.0f,"
                                "\"issue_first_fixed_ns\":%.0f}\n",
                                label.c_str(), tm, tn, stages, blocks, iter[0], iter[1], fixed[0], fixed[1]);
                }
    return 0;
}
