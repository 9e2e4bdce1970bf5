// softmax_reuse_whatif: the simulator on the grids of tilescope-softmax-reuse-probe
// (kernels/tools/softmax_reuse_probe.cu, docs/validation change 90). Not a test.
// Reads the probe's output (its "softmax_reuse" lines: variant, rows, cols, warps and the dynamic
// shared memory each grid was launched with), lowers the same softmax workload (one row per
// block, fp16), adds the probe's dynamic shared memory to the launch's own (so the occupancy
// calculator and the L1's carve-out see what the GPU saw), simulates it on --gpu, and prints one
// JSON object per grid: the model's blocks per SM, DRAM read and write bytes, L2 bytes, time, and
// the L1's and L2's hit bytes. bench/scripts/softmax_reuse_summary.py --model puts them beside the
// measured counters.
// Usage: softmax_reuse_whatif --probe PROBE.jsonl [--gpu calibrated/h200]
#include <cstdio>
#include <fstream>
#include <string>

#include <boost/json.hpp>

#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "core/workload.hpp"
#include "simulator/simulate.hpp"

using namespace tilescope;

namespace {

double extra(const LaunchResult& l, const char* key) {
    const auto it = l.extra.find(key);
    return it == l.extra.end() ? 0.0 : it->second;
}

}  // namespace

int main(int argc, char** argv) {
    std::string gpu = "calibrated/h200", probe;
    for (int i = 1; i < argc; i += 2) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "softmax_reuse_whatif: %s needs a value\n", a.c_str());
            return 2;
        }
        if (a == "--gpu") gpu = argv[i + 1];
        else if (a == "--probe") probe = argv[i + 1];
        else {
            std::fprintf(stderr, "softmax_reuse_whatif: unknown option %s (usage: --probe FILE [--gpu G])\n", a.c_str());
            return 2;
        }
    }
    if (probe.empty()) {
        std::fprintf(stderr, "softmax_reuse_whatif: --probe FILE is required (tilescope-softmax-reuse-probe's output)\n");
        return 2;
    }
    std::ifstream in(probe);
    if (!in) {
        std::fprintf(stderr, "softmax_reuse_whatif: cannot read %s\n", probe.c_str());
        return 2;
    }
    auto hw = load_hardware(gpu);
    if (!hw) {
        std::fprintf(stderr, "softmax_reuse_whatif: %s\n", hw.error().message.c_str());
        return 2;
    }
    int grids = 0;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.find("\"softmax_reuse\"") == std::string::npos) continue;
        boost::system::error_code ec;
        const boost::json::value v = boost::json::parse(line, ec);
        const boost::json::object* o = ec ? nullptr : v.if_object();
        const auto num = [&](const char* k) -> const boost::json::value* { return o ? o->if_contains(k) : nullptr; };
        const auto is_int = [&](const char* k) { return num(k) && (num(k)->is_int64() || num(k)->is_uint64()); };
        const auto is_str = [&](const char* k) { return num(k) && num(k)->is_string(); };
        if (!is_int("rows") || !is_int("cols") || !is_int("warps") || !is_int("dynamic_smem") || !is_str("variant") ||
            !is_str("grid")) {
            std::fprintf(stderr, "softmax_reuse_whatif: %s line %d: not a softmax_reuse record with integer rows, cols, warps and dynamic_smem and string variant and grid\n",
                         probe.c_str(), n);
            return 2;
        }
        WorkloadSpec s;
        s.kernel = "softmax";
        s.dtype = "fp16";
        s.variant = std::string(num("variant")->as_string());
        s.rows = num("rows")->to_number<std::int64_t>();
        s.cols = num("cols")->to_number<std::int64_t>();
        s.warps = num("warps")->to_number<std::int64_t>();
        s.tile_m = 1;
        s.tile_n = 256 * *s.warps;
        s.stages = 1;
        const auto dyn = num("dynamic_smem")->to_number<std::int64_t>();
        auto w = make_workload(s);
        if (!w) {
            std::fprintf(stderr, "softmax_reuse_whatif: line %d: %s\n", n, w.error().message.c_str());
            return 2;
        }
        auto launches = lower(*w, *hw);
        if (!launches) {
            std::fprintf(stderr, "softmax_reuse_whatif: line %d: %s\n", n, launches.error().message.c_str());
            return 2;
        }
        for (Launch& l : *launches) l.smem_bytes_per_block += dyn;
        auto r = sim::simulate(*w, *launches, *hw, sim::Options{});
        if (!r) {
            std::fprintf(stderr, "softmax_reuse_whatif: line %d: %s\n", n, r.error().message.c_str());
            return 2;
        }
        const LaunchResult& l = r->launches.front();
        std::printf("{\"model\":\"sim\",\"gpu\":\"%s\",\"grid\":\"%s\",\"blocks_per_sm\":%d,\"dram_read\":%.0f,"
                    "\"dram_write\":%.0f,\"lts_bytes\":%.0f,\"time_ns\":%.1f,\"l1_hit_bytes\":%.0f,\"l2_hit_bytes\":%.0f}\n",
                    gpu.c_str(), std::string(num("grid")->as_string()).c_str(), l.facts.blocks_per_sm,
                    l.metrics[Metric::dram_bytes_read], l.metrics[Metric::dram_bytes_write],
                    l.metrics[Metric::lts_t_bytes], l.metrics[Metric::gpu_time_duration], extra(l, "l1_hit_bytes"),
                    extra(l, "l2_hit_bytes"));
        ++grids;
    }
    if (grids == 0) {
        std::fprintf(stderr, "softmax_reuse_whatif: %s has no softmax_reuse line\n", probe.c_str());
        return 2;
    }
    return 0;
}
