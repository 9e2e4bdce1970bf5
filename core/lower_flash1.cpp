// attention-flash1: fused attention in the FlashAttention-1 loop order (Algorithm 1 of the paper).
//
// One block per (batch, head). Outer loop over K/V tiles of Bc rows (each loaded once into shared
// memory); inner loop over Q tiles of Br rows: each inner step reads Q_i, O_i (dtype) and l_i, m_i
// (fp32) from HBM, updates them with the K_j/V_j tile, and writes O_i, l_i, m_i back. O, l and m
// start as (0, 0, -inf): on the first outer step (j = 0) they are not read from HBM (nor written
// to or read from shared memory), as in kernels/attention/flash1. Each warp loads and stores its
// own 16 query rows, so the inner loop needs no block barrier; one barrier follows the K_j/V_j
// load and one precedes the next K/V load.
//
// Shared memory per block (contract with kernels/attention/flash1):
//   (Br*d (Q_i) + Br*d (O_i) + 2*Bc*d (K_j, V_j)) * dtype + 2*Br*4 (l_i, m_i).
//
// Per outer step j: global loads K_j, V_j (existing rows), smem writes 2*Bc*d*dtype, barrier.
// Per inner step (i, j) (full-tile rule, lower_detail.hpp):
//   global loads   Q_i: existing rows x d*dtype; for j > 0 also O_i (existing rows x d*dtype) and
//                  l_i, m_i (existing rows x 4 B)
//   smem writes    Br*d*dtype (+ Br*d*dtype + 2*Br*4 for j > 0)
//   smem reads     Br*d*dtype (Q: each warp its rows) + 2*warps*Bc*d*dtype (K, V by every warp)
//                  + Br*d*dtype (the new O_i read back out of shared memory for its 16-byte
//                  global stores) (+ Br*d*dtype + 32*Br for O, l, m when j > 0: every lane reads
//                  m and l of both its rows, 16 B, and shared-memory counters count each lane)
//   smem writes    + Br*d*dtype: the new O_i, written over the old in shared memory (fragments)
//   tensor flops   4*Br*Bc*d        sfu ops  Br*Bc + 2*Br (exp of S - m, two rescale exps)
//   fp32 ops       4*Br*Bc + 3*Br*d (scale/max/subtract/sum; rescale and combine O, divide by l)
//   global stores  O_i (existing rows x d*dtype), l_i, m_i (existing rows x 4 B)
// Causal (seq_kv == seq): for K/V tile j only the Q tiles i >= floor(j*Bc/Br) are processed.
#include <algorithm>

#include "core/kernel_registers.hpp"
#include "core/lower_detail.hpp"

namespace tilescope::detail {
namespace {

using Flash1 = FusedAttention;

enum : std::uint32_t { kQ = 0, kK = 1, kV = 2, kO = 3, kL = 4, kM = 5 };

void flash1_program(const Flash1& p, std::int64_t head, std::vector<Step>& out) {
    const std::int64_t row_bytes = p.d * p.dt;
    const double br = static_cast<double>(p.br), bc = static_cast<double>(p.bc), d = static_cast<double>(p.d);
    const double q_tile_bytes = br * d * p.dt;
    const double kv_tile_bytes = bc * d * p.dt;
    std::int32_t it = 0;
    for (std::int64_t j = 0; j < p.t.kv_tiles; ++j) {
        if (j > 0) push_barrier(out, it);  // every warp is done with K_{j-1}, V_{j-1}
        const std::int64_t k0 = j * p.bc;
        const std::int64_t rk = std::min(p.bc, p.n_kv - k0);
        const std::int64_t kv_off = (head * p.n_kv + k0) * row_bytes;
        push_load(out, it, kK, kv_off, row_bytes, rk, row_bytes);
        push_smem(out, StepKind::smem_fill, it, kv_tile_bytes);
        push_load(out, it, kV, kv_off, row_bytes, rk, row_bytes);
        push_smem(out, StepKind::smem_fill, it, kv_tile_bytes);
        push_barrier(out, it);
        for (std::int64_t i = first_q_for_kv(j, p.br, p.bc, p.causal); i < p.t.q_tiles; ++i, ++it) {
            const std::int64_t q0 = i * p.br;
            const std::int64_t rq = std::min(p.br, p.n - q0);
            const std::int64_t q_off = (head * p.n + q0) * row_bytes;
            const std::int64_t lm_off = (head * p.n + q0) * 4;
            const bool carry = j > 0;  // O_i, l_i, m_i hold a previous step's values
            push_load(out, it, kQ, q_off, row_bytes, rq, row_bytes);
            push_smem(out, StepKind::smem_fill, it, q_tile_bytes);
            if (carry) {
                push_load(out, it, kO, q_off, row_bytes, rq, row_bytes);
                push_smem(out, StepKind::smem_fill, it, q_tile_bytes);
                push_load(out, it, kL, lm_off, rq * 4, 1, rq * 4);
                push_smem(out, StepKind::smem_write, it, br * 4);
                push_load(out, it, kM, lm_off, rq * 4, 1, rq * 4);
                push_smem(out, StepKind::smem_write, it, br * 4);
            }
            push_smem(out, StepKind::smem_read, it,
                      q_tile_bytes + 2.0 * p.warps * kv_tile_bytes + (carry ? q_tile_bytes + 32.0 * br : 0.0));
            push_compute(out, Unit::tensor, it, 4.0 * br * bc * d);
            push_compute(out, Unit::sfu, it, br * bc + 2.0 * br);
            push_compute(out, Unit::fp32, it, 4.0 * br * bc + 3.0 * br * d);
            // The epilogue: the new O_i goes into shared memory and is read back out for the
            // coalesced global stores (kernels/attention/flash1).
            push_smem(out, StepKind::smem_write, it, q_tile_bytes);
            push_smem(out, StepKind::smem_read, it, q_tile_bytes);
            push_store(out, it, kO, q_off, row_bytes, rq, row_bytes);
            push_store(out, it, kL, lm_off, rq * 4, 1, rq * 4);
            push_store(out, it, kM, lm_off, rq * 4, 1, rq * 4);
        }
    }
}

}  // namespace

Result<std::vector<Launch>> lower_flash1(const Workload& w, const Hardware& hw) {
    const Flash1 p = fused_attention(w);
    const AttentionTiles& t = p.t;

    Launch l;
    l.name = "attention-flash1:fwd";
    l.grid_x = p.bh;
    l.threads_per_block = p.warps * hw.warp_size_threads;
    l.smem_bytes_per_block = (2 * p.br * p.d + 2 * p.bc * p.d) * p.dt + 2 * p.br * 4;
    l.registers_per_thread = compiled_attention_registers(KernelFamily::attention_flash1, w.dtype, static_cast<int>(p.d),
                                                          static_cast<int>(p.br), static_cast<int>(p.bc), p.warps)
                                 .value_or(attention_registers(p.br, p.bc, p.d, p.warps, p.dt));
    l.stages = 1;
    l.staged_stores = true;  // the new O_i goes through shared memory to 16-byte stores
    const std::int64_t q_bytes = p.bh * p.n * p.d * p.dt;
    const std::int64_t kv_bytes = p.bh * p.n_kv * p.d * p.dt;
    l.buffers = {{"Q", q_bytes, false}, {"K", kv_bytes, false}, {"V", kv_bytes, false},
                 {"O", q_bytes, true},  {"l", p.bh * p.n * 4, true}, {"m", p.bh * p.n * 4, true}};

    const double bh = static_cast<double>(p.bh), n_kv = static_cast<double>(p.n_kv), d = static_cast<double>(p.d);
    const double br = static_cast<double>(p.br), bc = static_cast<double>(p.bc), dt = p.dt;
    const double pairs = static_cast<double>(t.pairs), kvt = static_cast<double>(t.kv_tiles);
    const double qt = static_cast<double>(t.q_tiles), n = static_cast<double>(p.n);
    // Existing query rows summed over processed (i, j) pairs: Br per pair, minus the missing rows
    // of the last q tile, which processes every kv tile (causal too: its last row is N-1).
    const double q_rows = br * pairs - static_cast<double>((t.q_tiles * p.br - p.n) * t.kv_tiles);
    Counts& c = l.counts;
    // Every q tile processes kv tile 0 (causal too), where O, l, m are not read: those are the
    // pairs (Tq of them, N existing rows) without the carry traffic.
    const double carry_pairs = pairs - qt, carry_rows = q_rows - n;
    c.global_load_bytes = bh * (2.0 * n_kv * d * dt + q_rows * d * dt + carry_rows * (d * dt + 8.0));
    c.global_store_bytes = bh * q_rows * (d * dt + 8.0);
    c.smem_write_bytes =
        bh * (kvt * 2.0 * bc * d * dt + pairs * 2.0 * br * d * dt + carry_pairs * (br * d * dt + 2.0 * br * 4.0));
    c.smem_read_bytes =
        bh * (pairs * (2.0 * br * d * dt + 2.0 * p.warps * bc * d * dt) + carry_pairs * (br * d * dt + 32.0 * br));
    c.flops_tensor = bh * pairs * 4.0 * br * bc * d;
    c.sfu_ops = bh * pairs * (br * bc + 2.0 * br);
    c.flops_fp32 = bh * pairs * (4.0 * br * bc + 3.0 * br * d);

    l.program = [p](std::int64_t item, std::vector<Step>& out) { flash1_program(p, item, out); };
    // One block per (batch, head): every one runs the first one's program on its own slices.
    l.repeat_of = [p](std::int64_t item, std::vector<std::int64_t>& shift) {
        const std::int64_t row_bytes = p.d * p.dt;
        shift[kQ] = shift[kO] = item * p.n * row_bytes;
        shift[kK] = shift[kV] = item * p.n_kv * row_bytes;
        shift[kL] = shift[kM] = item * p.n * 4;
        return std::int64_t{0};
    };
    const std::string what = "tile " + std::to_string(p.br) + "x" + std::to_string(p.bc) + " with head-dim " +
                             std::to_string(p.d);
    if (Status s = finish_launch(l, hw, what, w.persistent); !s) return s.error();
    return std::vector<Launch>{std::move(l)};
}

}  // namespace tilescope::detail
