#include "gui/models/compare.hpp"

#include <cmath>

namespace tilescope::gui {

IoFormulas io_formulas(const Workload& w, const Hardware& hw) {
    IoFormulas io;
    io.n = static_cast<double>(w.seq_q);
    io.d = static_cast<double>(w.head_dim);
    io.heads_total = static_cast<double>(w.batch * w.heads);
    io.dtype_bytes = dtype_bytes(w.dtype);
    io.sram_elements = static_cast<double>(hw.smem_per_sm_bytes) / io.dtype_bytes;
    io.naive_elements = io.heads_total * (io.n * io.d + io.n * io.n);
    io.fused_elements = io.sram_elements > 0 ? io.heads_total * io.n * io.n * io.d * io.d / io.sram_elements : 0;
    io.block_rows = w.tile.m;
    if (w.tile.m > 0) {
        const double q_tiles = std::ceil(io.n / w.tile.m);
        io.fused_tile_elements = io.heads_total * (2 * io.n * io.d + 2 * io.n * io.d * q_tiles);
    }
    return io;
}

Result<Comparison> compute_comparison(const PredictRequest& base) {
    Comparison cmp;
    WorkloadSpec shape = base.spec;
    bool fused_tiles = false;
    auto family = parse_kernel_family(shape.kernel.value_or(""));
    if (!family || !is_attention(family.value())) {
        shape = WorkloadSpec{};
        shape.dtype = base.spec.dtype;
        cmp.note = "the panel's kernel is not attention: the default attention shape is compared";
    } else {
        fused_tiles = family.value() == KernelFamily::attention_flash2 || family.value() == KernelFamily::attention_flash1;
    }
    auto clear_tiles = [](WorkloadSpec& s) {
        s.tile_m.reset(); s.tile_n.reset(); s.tile_k.reset(); s.stages.reset(); s.warps.reset();
    };
    WorkloadSpec naive = shape;
    naive.kernel = "attention-naive";
    clear_tiles(naive);
    WorkloadSpec fused = shape;
    fused.kernel = "attention-flash2";
    if (!fused_tiles) clear_tiles(fused);
    fused.stages.reset();  // flash1 and flash2 differ in their default pipeline depth

    auto hw = load_hardware(base.profile);
    if (!hw) return hw.error();
    PredictRequest req = base;
    req.timeline = false;
    req.spec = naive;
    auto n = compute_prediction(req, hw.value());
    if (!n) return make_error("attention-naive: " + n.error().message);
    req.spec = fused;
    auto f = compute_prediction(req, hw.value());
    if (!f) return make_error("attention-flash2: " + f.error().message);
    cmp.naive = n.value();
    cmp.fused = f.value();
    cmp.io = io_formulas(cmp.fused.workload, hw.value());
    return cmp;
}

}  // namespace tilescope::gui
