// attention-flash2: fused attention in the FlashAttention-2 loop order.
//
// Grid (ceil(N/Br), batch*heads). A block owns Br query rows of one (batch, head): it loads its
// Q tile once, loops over the K/V tiles of Bc rows (double-buffered when stages = 2), keeps the
// running max m, sum l and the O accumulator in registers (online softmax), and at the end
// writes O once (dtype) and the logsumexp (fp32, one per row).
//
// Shared memory per block (contract with kernels/attention/flash2): (Br*d + stages*2*Bc*d) * dtype.
//
// Per K/V iteration j of one block (full-tile rule, lower_detail.hpp):
//   global loads   K_j, V_j: existing rows x d*dtype each
//   smem writes    2*Bc*d*dtype (zero-filled tail)
//   smem reads     2*warps*Bc*d*dtype (K and V by every warp) + Br*d*dtype (each warp its own Q
//                  rows) when d > 64; for d <= 64 the Q fragments stay in registers, read from
//                  shared memory once after the prologue (as kernels/attention/flash2 does)
//   tensor flops   2*Br*Bc*d (S = Q K^T) + 2*Br*Bc*d (O += P V)
//   sfu ops        Br*Bc (exp of S - m) + Br (exp(m_old - m_new) rescale)
//   fp32 ops       4*Br*Bc (scale, row max, subtract, row sum) + Br*d (rescale O)
// Prologue: load Q (existing rows), smem write Br*d*dtype. Epilogue: fp32 Br*d (O / l),
// sfu 2*Br (1/l and log l for the logsumexp), store O and lse (existing rows).
// Causal: K/V tiles entirely above the diagonal are skipped (requires seq_kv == seq); the mask
// compare on diagonal tiles is not counted as work.
#include <algorithm>

#include "core/kernel_registers.hpp"
#include "core/lower_detail.hpp"

namespace tilescope::detail {
namespace {

struct Flash2 : FusedAttention {
    bool q_in_registers;  // d <= 64: Q fragments loaded from smem once, kept in registers
};

enum : std::uint32_t { kQ = 0, kK = 1, kV = 2, kO = 3, kLse = 4 };

void flash2_program(const Flash2& p, std::int64_t item, std::vector<Step>& out) {
    const std::int64_t i = item % p.t.q_tiles;
    const std::int64_t head = item / p.t.q_tiles;
    const std::int64_t q0 = i * p.br;
    const std::int64_t rq = std::min(p.br, p.n - q0);
    const std::int64_t row_bytes = p.d * p.dt;
    const std::int64_t nkv = kv_tiles_for_q(i, p.n, p.t.kv_tiles, p.br, p.bc, p.causal);
    const double tile_kv_bytes = static_cast<double>(p.bc * p.d * p.dt);
    const double br = static_cast<double>(p.br), bc = static_cast<double>(p.bc), d = static_cast<double>(p.d);

    push_load(out, 0, kQ, (head * p.n + q0) * row_bytes, row_bytes, rq, row_bytes);
    push_smem(out, StepKind::smem_fill, 0, br * d * p.dt);
    const double q_read_per_iteration = p.q_in_registers ? 0.0 : br * d * p.dt;
    if (p.q_in_registers) {
        push_barrier(out, 0);
        push_smem(out, StepKind::smem_read, 0, br * d * p.dt);
    }
    for (std::int64_t j = 0; j < nkv; ++j) {
        const auto it = static_cast<std::int32_t>(j);
        const std::int64_t k0 = j * p.bc;
        const std::int64_t rk = std::min(p.bc, p.n_kv - k0);
        const std::int64_t kv_off = (head * p.n_kv + k0) * row_bytes;
        push_load(out, it, kK, kv_off, row_bytes, rk, row_bytes);
        push_smem(out, StepKind::smem_fill, it, tile_kv_bytes);
        push_load(out, it, kV, kv_off, row_bytes, rk, row_bytes);
        push_smem(out, StepKind::smem_fill, it, tile_kv_bytes);
        push_barrier(out, it);
        push_smem(out, StepKind::smem_read, it, q_read_per_iteration + 2.0 * p.warps * tile_kv_bytes);
        push_compute(out, Unit::tensor, it, 4.0 * br * bc * d);
        push_compute(out, Unit::sfu, it, br * bc + br);
        push_compute(out, Unit::fp32, it, 4.0 * br * bc + br * d);
    }
    const auto last = static_cast<std::int32_t>(nkv);
    push_compute(out, Unit::fp32, last, br * d);
    push_compute(out, Unit::sfu, last, 2.0 * br);
    push_store(out, last, kO, (head * p.n + q0) * row_bytes, row_bytes, rq, row_bytes);
    push_store(out, last, kLse, (head * p.n + q0) * 4, rq * 4, 1, rq * 4);
}

}  // namespace

Result<std::vector<Launch>> lower_flash2(const Workload& w, const Hardware& hw) {
    const Flash2 p{fused_attention(w), w.head_dim <= 64};
    const AttentionTiles& t = p.t;

    Launch l;
    l.name = "attention-flash2:fwd";
    l.grid_x = t.q_tiles;
    l.grid_y = p.bh;
    l.threads_per_block = p.warps * hw.warp_size_threads;
    l.smem_bytes_per_block = (p.br * p.d + std::int64_t{w.tile.stages} * 2 * p.bc * p.d) * p.dt;
    l.registers_per_thread = compiled_attention_registers(KernelFamily::attention_flash2, w.dtype, static_cast<int>(p.d),
                                                          static_cast<int>(p.br), static_cast<int>(p.bc), p.warps)
                                 .value_or(attention_registers(p.br, p.bc, p.d, p.warps, p.dt));
    l.stages = w.tile.stages;
    l.staged_stores = true;  // O is staged in the Q tile's shared memory for 16-byte stores
    const std::int64_t qkv_bytes = p.bh * p.n * p.d * p.dt;
    const std::int64_t kv_bytes = p.bh * p.n_kv * p.d * p.dt;
    l.buffers = {{"Q", qkv_bytes, false}, {"K", kv_bytes, false}, {"V", kv_bytes, false},
                 {"O", qkv_bytes, true}, {"lse", p.bh * p.n * 4, true}};

    // Closed form over all blocks (per (batch, head) then times bh).
    const double bh = static_cast<double>(p.bh), n = static_cast<double>(p.n), d = static_cast<double>(p.d);
    const double br = static_cast<double>(p.br), bc = static_cast<double>(p.bc), dt = p.dt;
    const double pairs = static_cast<double>(t.pairs), qt = static_cast<double>(t.q_tiles);
    // K/V rows loaded: Bc per pair, minus the missing rows of the last kv tile for each q tile using it.
    const double kv_rows = bc * pairs - static_cast<double>(t.last_kv_users * (t.kv_tiles * p.bc - p.n_kv));
    Counts& c = l.counts;
    c.global_load_bytes = bh * (n * d * dt + 2.0 * kv_rows * d * dt);
    c.global_store_bytes = bh * (n * d * dt + n * 4.0);
    c.smem_write_bytes = bh * (qt * br * d * dt + pairs * 2.0 * bc * d * dt);
    c.smem_read_bytes = p.q_in_registers ? bh * (qt * br * d * dt + pairs * 2.0 * p.warps * bc * d * dt)
                                         : bh * pairs * (br * d * dt + 2.0 * p.warps * bc * d * dt);
    c.flops_tensor = bh * pairs * 4.0 * br * bc * d;
    c.sfu_ops = bh * (pairs * (br * bc + br) + qt * 2.0 * br);
    c.flops_fp32 = bh * (pairs * (4.0 * br * bc + br * d) + qt * br * d);

    l.program = [p](std::int64_t item, std::vector<Step>& out) { flash2_program(p, item, out); };
    // Every (batch, head) runs the same programs as the first one, its buffers' slices later.
    l.repeat_of = [p](std::int64_t item, std::vector<std::int64_t>& shift) {
        const std::int64_t head = item / p.t.q_tiles;
        const std::int64_t row_bytes = p.d * p.dt;
        shift[kQ] = shift[kO] = head * p.n * row_bytes;
        shift[kK] = shift[kV] = head * p.n_kv * row_bytes;
        shift[kLse] = head * p.n * 4;
        return item % p.t.q_tiles;
    };
    // The K/V buffers are per stage: past one stage the stage count is part of the size.
    const std::string what = "tile " + std::to_string(p.br) + "x" + std::to_string(p.bc) + " with head-dim " +
                             std::to_string(p.d) +
                             (w.tile.stages > 1 ? " and " + std::to_string(w.tile.stages) + " stages" : std::string());
    if (Status s = finish_launch(l, hw, what, w.persistent); !s) return s.error();
    return std::vector<Launch>{std::move(l)};
}

}  // namespace tilescope::detail
