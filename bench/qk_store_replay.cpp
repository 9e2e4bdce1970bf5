// qk_store_replay: tilescope-qk-timeline-probe's QK^T grids (docs/validation changes 60-61),
// predicted by the simulator the probe's ways. Not a test.
// For every `qk_timeline` line of a probe output (JSON lines, kernels/tools/qk_timeline_probe.cu)
// it lowers the grid's QK^T launch as naive attention does (make_gemm_launch with
// GemmUse::attention_qk: `blocks` / (N/tile_m x N/tile_n) (batch, head) slices of N = 2048, the
// row's head_dim as K, tile_k 32, 2 stages, 8 warps) and predicts it:
//   dram   the launch as lowered (the probe's "dram" way: every slice its own scores);
//   l2     every slice stores the same N x N scores (the probe's "l2" way: they stay in the L2);
//   none   without the store steps (the probe's "none" way: Hooks::kStores false).
// It prints one JSON object per line: the grid, its way, blocks per SM, the model's DRAM writes
// (MiB), the measured time (ms_plain) and the model's, and both per block and slot in
// microseconds (time x SMs x blocks per SM / blocks), the number the probe's tables compare; and,
// as the probe summarises its
// records, the model's median block length (dispatch to retirement less the block overhead
// wait: the probe's entry to last store) and median slot gap (a slot's retirement to its next
// block's entry) against the probe's block_us_median and slot_gap_us_median (which its
// recording run lengthens by 4-15%).
// Usage: qk_store_replay PROBE.jsonl [--gpu calibrated/h200] [--exact]
//   exit 2 on a bad argument, an unreadable file, a bad `stores` value or a file without
//   qk_timeline lines (bench/replay_main.hpp).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
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

constexpr std::int64_t kSeq = 2048;  // the probe's grids are naive attention's N = 2048 QK^T

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// The model's block lengths and slot gaps (us), from its timeline. A span runs from the slot's
// dispatch to the block's retirement; the block enters `overhead_ns` later on average (the
// engine's block overhead, spread per block but with this mean), so its length is the span less
// that, and a slot's gap is the next span's start less this span's end, plus that.
std::pair<double, double> block_and_gap_us(const LaunchResult& r, double overhead_ns) {
    std::vector<double> len, gap;
    std::map<std::pair<int, int>, double> last_end;
    std::vector<const BlockSpan*> spans;
    for (const BlockSpan& s : r.timeline) spans.push_back(&s);
    std::sort(spans.begin(), spans.end(), [](const BlockSpan* a, const BlockSpan* b) { return a->start_ns < b->start_ns; });
    for (const BlockSpan* s : spans) {
        len.push_back((s->end_ns - s->start_ns - overhead_ns) * 1e-3);
        const auto key = std::make_pair(s->sm, s->slot);
        const auto it = last_end.find(key);
        if (it != last_end.end()) gap.push_back((s->start_ns - it->second + overhead_ns) * 1e-3);
        last_end[key] = s->end_ns;
    }
    return {median(len), median(gap)};
}

Result<Launch> make_launch(const boost::json::object& r, const Hardware& hw, const std::string& way) {
    const auto i = [&](const char* key) { return boost::json::value_to<std::int64_t>(r.at(key)); };
    GemmParams qk;
    qk.name = "attention-naive:qk";
    qk.tile_m = static_cast<int>(i("tile_m"));
    qk.tile_n = static_cast<int>(i("tile_n"));
    const std::int64_t per_slice = (kSeq / qk.tile_m) * (kSeq / qk.tile_n);
    qk.batches = i("blocks") / per_slice;
    qk.m = kSeq;
    qk.n = kSeq;
    qk.k = i("head_dim");
    qk.tile_k = 32;
    qk.stages = 2;
    qk.warps = 8;
    qk.dtype_size = 2;
    qk.b_transposed = true;
    qk.use = GemmUse::attention_qk;
    qk.dtype = DType::fp16;
    qk.a_name = "Q";
    qk.b_name = "K";
    qk.c_name = "S";
    qk.epilogue_fp32_per_element = 1.0;
    Launch l = make_gemm_launch(qk);
    if (Status st = finish_launch(l, hw, "qk", false); !st) return st.error();
    if (way == "dram") return l;
    // The scores buffer (named as qk.c_name); its slices sit one after another.
    const auto named = std::find_if(l.buffers.begin(), l.buffers.end(), [&](const Buffer& b) { return b.name == qk.c_name; });
    if (named == l.buffers.end()) return make_error("qk launch has no " + qk.c_name + " buffer");
    const auto c_buffer = static_cast<std::uint32_t>(named - l.buffers.begin());
    const std::int64_t slice_bytes = kSeq * kSeq * qk.dtype_size;
    auto inner = l.program;
    const bool drop = way == "none";
    l.program = [inner, drop, c_buffer, slice_bytes](std::int64_t item, std::vector<Step>& out) {
        std::vector<Step> all;
        inner(item, all);
        for (Step s : all) {
            if (s.kind == StepKind::store && s.region.buffer == c_buffer) {
                if (drop) continue;
                s.region.offset_bytes %= slice_bytes;  // every slice stores the same matrix
            }
            out.push_back(s);
        }
    };
    // A block's twin law still holds: without stores nothing changes for the other buffers, and
    // with every slice on one matrix a twin's shift of the scores is taken modulo a slice (a
    // block's score rows lie inside its slice, after those of the twin, item 0).
    if (l.repeat_of && !drop) {
        auto twin = l.repeat_of;
        l.repeat_of = [twin, c_buffer, slice_bytes](std::int64_t item, std::vector<std::int64_t>& shift) {
            const std::int64_t t = twin(item, shift);
            if (t != item) shift[c_buffer] %= slice_bytes;
            return t;
        };
    }
    if (drop) {
        l.counts.global_store_bytes = 0;
    } else {
        l.buffers[c_buffer].bytes = slice_bytes;
    }
    return l;
}

}  // namespace

int main(int argc, char** argv) {
    Workload w;
    w.kernel = KernelFamily::attention_naive;
    w.dtype = DType::fp16;
    return bench::run_replay(argc, argv, "qk_store_replay", "qk_timeline", true,
                             [&](const boost::json::object& r, const bench::ReplayContext& ctx) {
        const Hardware& hw = ctx.hw;
        const std::string way(r.at("stores").as_string());
        if (way != "dram" && way != "l2" && way != "none") {
            std::fprintf(stderr, "qk_store_replay: %s: stores must be dram, l2 or none (got %s)\n", ctx.where.c_str(),
                         way.c_str());
            return 2;
        }
        auto l = make_launch(r, hw, way);
        if (!l) {
            std::fprintf(stderr, "qk_store_replay: %s: %s\n", ctx.where.c_str(), l.error().message.c_str());
            return 1;
        }
        auto p = sim::simulate(w, {*l}, hw, ctx.options);
        if (!p) {
            std::fprintf(stderr, "qk_store_replay: %s: %s\n", ctx.where.c_str(), p.error().message.c_str());
            return 1;
        }
        const double model_ms = p->total[Metric::gpu_time_duration] * 1e-6;
        const double measured_ms = boost::json::value_to<double>(r.at("ms_plain"));
        const auto blocks = boost::json::value_to<std::int64_t>(r.at("blocks"));
        const int per_sm = p->launches.front().facts.blocks_per_sm;
        const double per_slot_us = 1e3 * hw.sm_count * per_sm / static_cast<double>(blocks);
        const auto [block_us, gap_us] = block_and_gap_us(p->launches.front(), hw.calibration.block_overhead_ns);
        std::printf("{\"model\":\"qk_store_replay\",\"gpu\":\"%s\",\"grid\":\"%s\",\"stores\":\"%s\",\"head_dim\":%lld,"
                    "\"tile_m\":%lld,\"tile_n\":%lld,\"blocks_per_sm\":%d,\"dram_write_mib_model\":%.3f,\"ms_plain\":%.5f,"
                    "\"ms_model\":%.5f,\"ratio\":%.4f,\"us_per_block_slot\":%.4f,\"us_per_block_slot_model\":%.4f,"
                    "\"block_us_median\":%.4f,\"block_us_median_model\":%.4f,\"slot_gap_us_median\":%.4f,"
                    "\"slot_gap_us_median_model\":%.4f}\n",
                    ctx.gpu.c_str(), std::string(r.at("grid").as_string()).c_str(), way.c_str(),
                    static_cast<long long>(boost::json::value_to<std::int64_t>(r.at("head_dim"))),
                    static_cast<long long>(boost::json::value_to<std::int64_t>(r.at("tile_m"))),
                    static_cast<long long>(boost::json::value_to<std::int64_t>(r.at("tile_n"))), per_sm,
                    p->total[Metric::dram_bytes_write] / 1048576.0, measured_ms, model_ms, model_ms / measured_ms,
                    measured_ms * per_slot_us, model_ms * per_slot_us,
                    boost::json::value_to<double>(r.at("block_us_median")), block_us,
                    boost::json::value_to<double>(r.at("slot_gap_us_median")), gap_us);
        return 0;
    });
}
