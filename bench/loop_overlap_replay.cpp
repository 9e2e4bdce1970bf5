// loop_overlap_replay: tilescope-loop-overlap-probe's three ways of the GEMM kernel's K loop,
// predicted by the simulator (docs/validation change 63). Not a test.
// For every `loop_overlap` line of a probe output (JSON lines, kernels/tools/loop_overlap_probe.cu)
// it lowers the problem as the tool does (make_gemm_launch: P V with GemmUse::attention_pv and its
// batches, the GEMM family with GemmUse::gemm; FlashAttention-2 as an attention-flash2 workload of
// `batch` heads) and predicts it three ways:
//   full     the launch as lowered;
//   loads    the loop without its shared-memory reads and its compute (Hooks::kMma false);
//   compute  without the K loop's global loads and their fills after the first `stages` steps
//            (Hooks::kLoads false: the prologue fills every buffer once, the loop loads nothing).
// It prints one JSON object per line with the measured and the predicted times of each way and
// each side's overlap = (t_loads + t_compute - t_full) / min(t_loads, t_compute).
// Usage: loop_overlap_replay PROBE.jsonl [--gpu calibrated/h200] [--exact]
//   (a profile with calibration.pipeline_serial 2 predicts the three ways under the serial law)
//   exit 2 on a bad argument, an unreadable file or a file without loop_overlap lines.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "core/hardware.hpp"
#include "core/launch.hpp"
#include "core/lower.hpp"
#include "core/lower_detail.hpp"
#include "core/workload.hpp"
#include "replay_main.hpp"
#include "simulator/simulate.hpp"

using namespace tilescope;
using namespace tilescope::detail;

namespace {

enum class Way { full, loads, compute };

// The probe's problem as the tool lowers it, with the program filtered for `way`: P V and the
// GEMM family through make_gemm_launch, FlashAttention-2 through its workload's lowering.
Result<Launch> make_launch(const boost::json::object& r, const Hardware& hw, Way way) {
    const auto i = [&](const char* key) { return boost::json::value_to<std::int64_t>(r.at(key)); };
    const std::string family(r.at("family").as_string());
    Launch l;
    if (family == "flash2") {
        WorkloadSpec s;
        s.kernel = "attention-flash2";
        s.batch = i("batch");
        s.heads = 1;
        s.seq = i("m");
        s.head_dim = i("head_dim");
        s.tile_m = i("tile_m");
        s.tile_n = i("tile_n");
        s.stages = i("stages");
        s.warps = i("warps");
        auto w = make_workload(s);
        if (!w) return w.error();
        auto launches = lower(*w, hw);
        if (!launches) return launches.error();
        l = launches->front();
    } else {
        const bool pv = family == "pv";
        GemmParams g;
        g.name = pv ? "attention-naive:pv" : "gemm";
        g.batches = i("batch");
        g.m = i("m");
        g.n = i("n");
        g.k = i("k");
        g.tile_m = static_cast<int>(i("tile_m"));
        g.tile_n = static_cast<int>(i("tile_n"));
        g.tile_k = static_cast<int>(i("tile_k"));
        g.stages = static_cast<int>(i("stages"));
        g.warps = static_cast<int>(i("warps"));
        g.use = pv ? GemmUse::attention_pv : GemmUse::gemm;
        if (pv) {
            g.a_name = "P";
            g.b_name = "V";
            g.c_name = "O";
        }
        l = make_gemm_launch(g);
        if (Status st = finish_launch(l, hw, g.name, false); !st) return st.error();
    }
    if (way == Way::full) return l;
    const auto k_tiles = static_cast<std::int32_t>(i("k_tiles"));
    const auto stages = static_cast<std::int32_t>(i("stages"));
    auto inner = l.program;
    l.program = [inner, way, k_tiles, stages](std::int64_t item, std::vector<Step>& out) {
        std::vector<Step> all;
        inner(item, all);
        for (const Step& s : all) {
            const bool in_loop = s.iteration < k_tiles;
            if (way == Way::loads && in_loop && (s.kind == StepKind::smem_read || s.kind == StepKind::compute))
                continue;
            if (way == Way::compute && in_loop && s.iteration >= stages &&
                (s.kind == StepKind::load || s.kind == StepKind::smem_fill))
                continue;
            out.push_back(s);
        }
    };
    if (way == Way::loads) {
        l.counts.flops_tensor = l.counts.flops_fp32 = l.counts.sfu_ops = 0;
        l.counts.smem_read_bytes = 0;
    } else {
        // The loop's loads and fills of steps >= stages are gone: what is left is `stages` steps'.
        const double kept = std::min<double>(stages, k_tiles) / k_tiles;
        l.counts.global_load_bytes *= kept;
        l.counts.smem_write_bytes *= kept;
    }
    return l;
}

}  // namespace

int main(int argc, char** argv) {
    Workload w;
    w.kernel = KernelFamily::gemm;
    w.dtype = DType::fp16;
    return bench::run_replay(argc, argv, "loop_overlap_replay", "loop_overlap", false,
                             [&](const boost::json::object& r, const bench::ReplayContext& ctx) {
        double model[3], measured[3];
        const char* keys[3] = {"ms_full", "ms_loads", "ms_compute"};
        for (int k = 0; k < 3; ++k) {
            measured[k] = boost::json::value_to<double>(r.at(keys[k]));
            auto l = make_launch(r, ctx.hw, static_cast<Way>(k));
            if (!l) {
                std::fprintf(stderr, "loop_overlap_replay: %s: %s\n", ctx.where.c_str(), l.error().message.c_str());
                return 1;
            }
            auto p = sim::simulate(w, {*l}, ctx.hw, ctx.options);
            if (!p) {
                std::fprintf(stderr, "loop_overlap_replay: %s: %s\n", ctx.where.c_str(), p.error().message.c_str());
                return 1;
            }
            model[k] = p->total[Metric::gpu_time_duration] * 1e-6;
        }
        const auto overlap = [](const double* t) { return (t[1] + t[2] - t[0]) / std::min(t[1], t[2]); };
        std::printf("{\"model\":\"loop_overlap_replay\",\"gpu\":\"%s\",\"family\":\"%s\",\"m\":%lld,\"n\":%lld,\"k\":%lld,"
                    "\"batch\":%lld,\"tile_m\":%lld,\"tile_n\":%lld,\"stages\":%lld,"
                    "\"ms_full\":%.5f,\"ms_loads\":%.5f,\"ms_compute\":%.5f,\"overlap\":%.4f,"
                    "\"ms_full_model\":%.5f,\"ms_loads_model\":%.5f,\"ms_compute_model\":%.5f,\"overlap_model\":%.4f}\n",
                    ctx.gpu.c_str(), std::string(r.at("family").as_string()).c_str(),
                    static_cast<long long>(r.at("m").to_number<std::int64_t>()),
                    static_cast<long long>(r.at("n").to_number<std::int64_t>()),
                    static_cast<long long>(r.at("k").to_number<std::int64_t>()),
                    static_cast<long long>(r.at("batch").to_number<std::int64_t>()),
                    static_cast<long long>(r.at("tile_m").to_number<std::int64_t>()),
                    static_cast<long long>(r.at("tile_n").to_number<std::int64_t>()),
                    static_cast<long long>(r.at("stages").to_number<std::int64_t>()), measured[0], measured[1],
                    measured[2], overlap(measured), model[0], model[1], model[2], overlap(model));
        return 0;
    });
}
