// softmax: row softmax y = softmax(x) over rows x cols, tile_m rows per block, tile_n columns per
// step, no shared memory (values stay in registers; the few bytes of the cross-warp reduction
// are not counted). Element-wise work is counted on existing elements only.
//
// safe (3 passes, each reading the rows again from global memory):
//   pass 1: load chunk, fp32 1/elem (running max); the compiled loop is unrolled by two (two
//           LDG.E.128 per body in its SASS, bench/results/sass/), so steps load in pairs
//   pass 2: load chunk, fp32 2/elem (subtract max, add to sum), sfu 1/elem (exp)
//   pass 3: load chunk, fp32 2/elem (subtract, multiply by 1/sum), sfu 1/elem (exp), store chunk;
//           sfu 1/row (1/sum)
//   totals: loads 3*R*C*dtype, stores R*C*dtype, fp32 5*R*C, sfu 2*R*C + R
// online (2 passes; max and sum fused with a rescale per step):
//   pass 1: load chunk, fp32 3/elem (max, subtract, add), sfu 1/elem (exp);
//           per row per step: sfu 1 (exp(m_old - m_new)), fp32 2 (subtract, rescale the sum)
//   pass 2: load chunk, fp32 2/elem, sfu 1/elem, store chunk; sfu 1/row (1/sum)
//   totals: loads 2*R*C*dtype, stores R*C*dtype, fp32 5*R*C + 2*R*T, sfu 2*R*C + R*T + R
//   (T = ceil(C / tile_n) steps per row)
// Block reductions (a reduction step, no bytes or operations): safe 1 per row after passes 1 and
// 2, online 2 per row after pass 1; the simulator charges Calibration::block_reduction_ns each.
// Warp-instructions (issue steps, where compiled_softmax_instructions knows the kernel: fp16):
// each warp that has columns in a step executes per_256_columns / passes in it, and each warp of
// the block per_warp_row per row, split over the steps that end in a reduction (online: 1,
// safe: 2). E.g. online, 2 warps, 2048 columns: 2 x 114.0 + 8 x 215.2 = 1950 per row (Nsight
// Compute: 1938). The simulator charges them only with Calibration::issue_efficiency.
// Iteration index = pass * T + step.
#include <algorithm>

#include "core/lower_detail.hpp"

namespace tilescope::detail {
namespace {

struct Softmax {
    std::int64_t rows, cols, tm, tn, steps;
    int dt, warps;
    bool online;
    double inst_per_warp_row, inst_per_256_columns;  // 0: not known (no issue steps)
};

enum : std::uint32_t { kX = 0, kY = 1 };

void softmax_program(const Softmax& p, std::int64_t item, std::vector<Step>& out) {
    const std::int64_t r0 = item * p.tm;
    const std::int64_t nr = std::min(p.tm, p.rows - r0);
    const double rows = static_cast<double>(nr);
    const int passes = p.online ? 2 : 3;
    for (int pass = 0; pass < passes; ++pass) {
        const bool last_pass = pass == passes - 1;
        for (std::int64_t s = 0; s < p.steps; ++s) {
            const auto it = static_cast<std::int32_t>(pass * p.steps + s);
            const std::int64_t c0 = s * p.tn;
            const std::int64_t nc = std::min(p.tn, p.cols - c0);
            const double elems = rows * static_cast<double>(nc);
            const std::int64_t off = (r0 * p.cols + c0) * p.dt;
            if (last_pass && s == 0) push_compute(out, Unit::sfu, it, rows);  // 1/sum per row
            if (!p.online && pass == 0) {
                // The safe max pass is unrolled by two (kernels/softmax: its SASS has two 16-byte
                // loads per loop body, the other passes one): an even step loads its chunk and
                // the next one together, an odd step only computes.
                if (s % 2 == 0) {
                    push_load(out, it, kX, off, nc * p.dt, nr, p.cols * p.dt);
                    if (s + 1 < p.steps) {
                        const std::int64_t nc1 = std::min(p.tn, p.cols - c0 - p.tn);
                        push_load(out, it, kX, off + p.tn * p.dt, nc1 * p.dt, nr, p.cols * p.dt);
                    }
                }
            } else {
                push_load(out, it, kX, off, nc * p.dt, nr, p.cols * p.dt);
            }
            if (last_pass) {
                push_compute(out, Unit::fp32, it, 2.0 * elems);
                push_compute(out, Unit::sfu, it, elems);
                push_store(out, it, kY, off, nc * p.dt, nr, p.cols * p.dt);
            } else if (p.online) {
                push_compute(out, Unit::fp32, it, 3.0 * elems + 2.0 * rows);
                push_compute(out, Unit::sfu, it, elems + rows);
            } else if (pass == 0) {
                push_compute(out, Unit::fp32, it, elems);
            } else {
                push_compute(out, Unit::fp32, it, 2.0 * elems);
                push_compute(out, Unit::sfu, it, elems);
            }
            // A pass that ends in a row statistic reduces it across the block (block_reduce: warp
            // shuffles, a shared-memory exchange, two barriers) before the next pass can load:
            // safe after its max and its sum pass, online both after its first pass. A block's
            // rows are reduced one after another.
            if (!last_pass && s == p.steps - 1) push_reduction(out, it, (p.online ? 2.0 : 1.0) * rows);
            if (p.inst_per_256_columns > 0) {
                // The warps with columns in this step (256 columns each), and the row's fixed
                // instructions of every warp where the pass ends in a reduction.
                const double active = static_cast<double>(std::min<std::int64_t>(p.warps, (nc + 255) / 256));
                double inst = rows * active * p.inst_per_256_columns / passes;
                const int reducing_passes = p.online ? 1 : 2;
                if (!last_pass && s == p.steps - 1 && pass < reducing_passes)
                    inst += rows * p.warps * p.inst_per_warp_row / reducing_passes;
                push_issue(out, it, inst);
            }
        }
    }
}

}  // namespace

Launch make_softmax_launch(const SoftmaxParams& p) {
    Softmax s{};
    s.rows = p.rows;
    s.cols = p.cols;
    s.tm = p.tile_m;
    s.tn = p.tile_n;
    s.steps = ceil_div(p.cols, p.tile_n);
    s.dt = p.dtype_size;
    s.warps = p.warps;
    s.online = p.variant == SoftmaxVariant::online;
    s.inst_per_warp_row = p.instructions ? p.instructions->per_warp_row : 0.0;
    s.inst_per_256_columns = p.instructions ? p.instructions->per_256_columns : 0.0;

    Launch l;
    l.name = p.name;
    l.grid_x = ceil_div(p.rows, p.tile_m);
    l.threads_per_block = p.warps * 32;
    // kernels/softmax's block_reduce scratch: float scratch[2][WARPS] of static shared memory (the
    // measured launches report 8, 16 and 32 B). Small, but with the 1 KB the driver reserves per
    // block it sets the carve-out: 32 one- or two-warp blocks need 33 KB, so the driver picks the
    // 64 KB step and the L1 keeps 192 KB, not 224 (Nsight Compute's launch__shared_mem_config_size).
    l.smem_bytes_per_block = 2 * static_cast<std::int64_t>(p.warps) * 4;
    const std::int64_t per_thread = ceil_div(std::int64_t{p.tile_m} * p.tile_n, l.threads_per_block);
    // 24 for indices, the running max/sum and the reduction, plus the row values a thread holds;
    // the compiled kernels/softmax kernel reports 32 for 8 values per thread on sm_90 (cuobjdump
    // and the measured launches in profiles/validation), hence 24 rather than a rounder 32.
    l.registers_per_thread = static_cast<int>(ceil_div(24 + per_thread, 8) * 8);
    l.stages = p.stages;
    l.reread_period = s.steps;  // each pass reads the rows again
    l.l1_cached_loads = true;  // kernels/softmax reads with 16-byte ld.global.nc: L1 keeps a row for its next pass
    const std::int64_t bytes = p.rows * p.cols * p.dtype_size;
    l.buffers = {{p.x_name, bytes, false}, {p.y_name, bytes, true}};

    const double r = static_cast<double>(p.rows), c = static_cast<double>(p.cols), dt = p.dtype_size;
    const double t = static_cast<double>(s.steps);
    Counts& k = l.counts;
    k.global_load_bytes = (s.online ? 2.0 : 3.0) * r * c * dt;
    k.global_store_bytes = r * c * dt;
    k.smem_read_bytes = 0;
    k.smem_write_bytes = 0;
    k.flops_tensor = 0;
    k.flops_fp32 = s.online ? 5.0 * r * c + 2.0 * r * t : 5.0 * r * c;
    k.sfu_ops = s.online ? 2.0 * r * c + r * t + r : 2.0 * r * c + r;
    l.program = [s](std::int64_t item, std::vector<Step>& out) { softmax_program(s, item, out); };
    // Every block of tile_m whole rows runs the first block's program, further down the rows.
    l.repeat_of = [s](std::int64_t item, std::vector<std::int64_t>& shift) {
        const std::int64_t r0 = item * s.tm;
        if (r0 + s.tm > s.rows) return item;  // the last, partial block
        shift[kX] = shift[kY] = r0 * s.cols * s.dt;
        return std::int64_t{0};
    };
    return l;
}

Result<std::vector<Launch>> lower_softmax(const Workload& w, const Hardware& hw) {
    SoftmaxParams p;
    p.name = "softmax";
    p.rows = w.rows;
    p.cols = w.cols;
    p.tile_m = w.tile.m;
    p.tile_n = w.tile.n;
    p.warps = w.tile.warps;
    p.stages = w.tile.stages;
    p.dtype_size = dtype_bytes(w.dtype);
    p.variant = w.variant;
    p.instructions = compiled_softmax_instructions(w.variant, w.dtype);
    Launch l = make_softmax_launch(p);
    const std::string what = "softmax tile " + std::to_string(p.tile_m) + "x" + std::to_string(p.tile_n);
    if (Status s = finish_launch(l, hw, what, w.persistent); !s) return s.error();
    return std::vector<Launch>{std::move(l)};
}

}  // namespace tilescope::detail
