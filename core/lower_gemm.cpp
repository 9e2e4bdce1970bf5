// gemm: tiled C = A * B (row-major; B optionally stored transposed), batched over grid z.
//
// Grid over output tiles in raster order: `row` has blockIdx.x walk the N tiles fastest,
// `column` the M tiles. Each block loops over ceil(K / tile_k) K steps (iteration = K step):
//   global loads   A tile: existing rows (<= tile_m) x existing cols (<= tile_k) * dtype, stride K*dtype
//                  B tile: existing rows (<= tile_k) x existing cols (<= tile_n) * dtype, stride N*dtype
//                  (transposed B: existing rows (<= tile_n) x existing cols (<= tile_k), stride K*dtype)
//   smem writes    (tile_m*tile_k + tile_k*tile_n) * dtype (zero-filled tail, full tile)
//   smem reads     (WN*tile_m*tile_k + WM*tile_k*tile_n) * dtype, warps laid out WM x WN
//                  (WM = 2^floor(log2(warps)/2), WN = warps / WM): each warp reads the A rows of its
//                  warp row and the B columns of its warp column
//   tensor flops   2*tile_m*tile_n*tile_k (per full tile)
// Epilogue: optional fp32 work per output element (full tile), store C (existing part of the tile).
// Shared memory per block (contract with kernels/gemm): stages*(tile_m*tile_k + tile_k*tile_n)*dtype.
//
// Closed form: A is read once per N-tile column, B once per M-tile row:
//   loads = batches * (Tn*M*K + Tm*K*N) * dtype, stores = batches*M*N*dtype.
#include <algorithm>

#include "core/lower_detail.hpp"

namespace tilescope::detail {
namespace {

struct Gemm {
    std::int64_t m, n, k, tiles_m, tiles_n, tiles_k, grid_x, grid_y;
    std::int64_t tm, tn, tk;
    int warps_m, warps_n, dt;
    bool b_transposed, row_raster;
    double epilogue;
};

enum : std::uint32_t { kA = 0, kB = 1, kC = 2 };

void gemm_program(const Gemm& g, std::int64_t item, std::vector<Step>& out) {
    const std::int64_t x = item % g.grid_x;
    const std::int64_t y = (item / g.grid_x) % g.grid_y;
    const std::int64_t z = item / (g.grid_x * g.grid_y);
    const std::int64_t tile_row = g.row_raster ? y : x;
    const std::int64_t tile_col = g.row_raster ? x : y;
    const std::int64_t m0 = tile_row * g.tm, n0 = tile_col * g.tn;
    const std::int64_t rm = std::min(g.tm, g.m - m0), rn = std::min(g.tn, g.n - n0);
    const std::int64_t a_base = z * g.m * g.k, b_base = z * g.k * g.n, c_base = z * g.m * g.n;
    const double tm = static_cast<double>(g.tm), tn = static_cast<double>(g.tn), tk = static_cast<double>(g.tk);
    for (std::int64_t s = 0; s < g.tiles_k; ++s) {
        const auto it = static_cast<std::int32_t>(s);
        const std::int64_t k0 = s * g.tk;
        const std::int64_t rk = std::min(g.tk, g.k - k0);
        push_load(out, it, kA, (a_base + m0 * g.k + k0) * g.dt, rk * g.dt, rm, g.k * g.dt);
        push_smem(out, StepKind::smem_fill, it, tm * tk * g.dt);
        if (g.b_transposed)
            push_load(out, it, kB, (b_base + n0 * g.k + k0) * g.dt, rk * g.dt, rn, g.k * g.dt);
        else
            push_load(out, it, kB, (b_base + k0 * g.n + n0) * g.dt, rn * g.dt, rk, g.n * g.dt);
        push_smem(out, StepKind::smem_fill, it, tk * tn * g.dt);
        push_barrier(out, it);
        push_smem(out, StepKind::smem_read, it, (g.warps_n * tm * tk + g.warps_m * tk * tn) * g.dt);
        push_compute(out, Unit::tensor, it, 2.0 * tm * tn * tk);
    }
    const auto last = static_cast<std::int32_t>(g.tiles_k);
    if (g.epilogue > 0) push_compute(out, Unit::fp32, last, g.epilogue * tm * tn);
    push_store(out, last, kC, (c_base + m0 * g.n + n0) * g.dt, rn * g.dt, rm, g.n * g.dt);
}

int gemm_registers(std::int64_t tm, std::int64_t tn, int threads) {
    const std::int64_t acc = std::max<std::int64_t>(1, tm * tn / threads);  // fp32 accumulators
    const std::int64_t regs = 32 + acc + acc / 4;                            // + operand fragments
    return static_cast<int>(std::min<std::int64_t>(ceil_div(regs, 8) * 8, 1 << 20));
}

}  // namespace

Launch make_gemm_launch(const GemmParams& p) {
    Gemm g{};
    g.m = p.m;
    g.n = p.n;
    g.k = p.k;
    g.tm = p.tile_m;
    g.tn = p.tile_n;
    g.tk = p.tile_k;
    g.tiles_m = ceil_div(p.m, p.tile_m);
    g.tiles_n = ceil_div(p.n, p.tile_n);
    g.tiles_k = ceil_div(p.k, p.tile_k);
    g.row_raster = p.raster == Raster::row;
    g.grid_x = g.row_raster ? g.tiles_n : g.tiles_m;
    g.grid_y = g.row_raster ? g.tiles_m : g.tiles_n;
    int log2w = 0;
    while ((2 << log2w) <= p.warps) ++log2w;
    g.warps_m = 1 << (log2w / 2);
    g.warps_n = std::max(1, p.warps / g.warps_m);
    g.dt = p.dtype_size;
    g.b_transposed = p.b_transposed;
    g.epilogue = p.epilogue_fp32_per_element;

    Launch l;
    l.name = p.name;
    // The kernel's own grid (kernels/gemm/gemm_run.cuh): x = the C tiles, in raster order, y = the
    // batch; the same block order as (g.grid_x, g.grid_y, batches), so `measure` and `predict`
    // print the same grid.
    l.grid_x = g.grid_x * g.grid_y;
    l.grid_y = p.batches;
    l.grid_z = 1;
    l.threads_per_block = p.warps * 32;
    l.smem_bytes_per_block = std::int64_t{p.stages} * (g.tm * g.tk + g.tk * g.tn) * g.dt;
    l.registers_per_thread = compiled_gemm_registers(p.use, p.dtype, p.tile_m, p.tile_n, p.tile_k, p.warps)
                                 .value_or(gemm_registers(g.tm, g.tn, l.threads_per_block));
    l.stages = p.stages;
    l.chain_instructions =
        compiled_gemm_instructions(p.use, p.dtype, p.tile_m, p.tile_n, p.tile_k, p.warps, p.stages).value_or(0.0);
    // kernels/gemm/gemm.cuh's main loop: cp_async_wait<STAGES - 2>, __syncthreads, then the loads
    // of k-tile kt + STAGES - 1.
    l.loads_after_wait = true;
    // The epilogue stores C from the accumulator fragments (kernels/gemm/gemm.cuh): two elements
    // per lane, four lanes per fragment row.
    l.fragment_store_row_bytes = 8 * g.dt;
    l.buffers = {{p.a_name, p.batches * p.m * p.k * g.dt, false},
                 {p.b_name, p.batches * p.k * p.n * g.dt, false},
                 {p.c_name, p.batches * p.m * p.n * g.dt, true}};

    const double batches = static_cast<double>(p.batches), m = static_cast<double>(p.m),
                 n = static_cast<double>(p.n), k = static_cast<double>(p.k), dt = g.dt;
    const double tm = static_cast<double>(g.tm), tn = static_cast<double>(g.tn), tk = static_cast<double>(g.tk);
    const double blocks = batches * static_cast<double>(g.tiles_m * g.tiles_n);
    const double steps = blocks * static_cast<double>(g.tiles_k);
    Counts& c = l.counts;
    c.global_load_bytes = batches * (static_cast<double>(g.tiles_n) * m * k + static_cast<double>(g.tiles_m) * k * n) * dt;
    c.global_store_bytes = batches * m * n * dt;
    c.smem_write_bytes = steps * (tm * tk + tk * tn) * dt;
    c.smem_read_bytes = steps * (g.warps_n * tm * tk + g.warps_m * tk * tn) * dt;
    c.flops_tensor = steps * 2.0 * tm * tn * tk;
    c.flops_fp32 = p.epilogue_fp32_per_element > 0 ? blocks * p.epilogue_fp32_per_element * tm * tn : 0.0;
    c.sfu_ops = 0;
    l.program = [g](std::int64_t item, std::vector<Step>& out) { gemm_program(g, item, out); };
    // A block with whole rows (columns) of C runs the program of tile row (column) 0 of batch 0
    // on its own slices; a partial tile at the edge repeats the same partial tile of batch 0.
    l.repeat_of = [g](std::int64_t item, std::vector<std::int64_t>& shift) {
        const std::int64_t x = item % g.grid_x;
        const std::int64_t y = (item / g.grid_x) % g.grid_y;
        const std::int64_t z = item / (g.grid_x * g.grid_y);
        const std::int64_t tile_row = g.row_raster ? y : x;
        const std::int64_t tile_col = g.row_raster ? x : y;
        const std::int64_t row = (tile_row + 1) * g.tm <= g.m ? 0 : tile_row;
        const std::int64_t col = (tile_col + 1) * g.tn <= g.n ? 0 : tile_col;
        const std::int64_t dm = (tile_row - row) * g.tm, dn = (tile_col - col) * g.tn;
        shift[kA] = (z * g.m * g.k + dm * g.k) * g.dt;
        shift[kB] = (z * g.k * g.n + (g.b_transposed ? dn * g.k : dn)) * g.dt;
        shift[kC] = (z * g.m * g.n + dm * g.n + dn) * g.dt;
        return g.row_raster ? col + row * g.grid_x : row + col * g.grid_x;
    };
    return l;
}

Result<std::vector<Launch>> lower_gemm(const Workload& w, const Hardware& hw) {
    GemmParams p;
    p.name = "gemm";
    p.m = w.m;
    p.n = w.n;
    p.k = w.k;
    p.tile_m = w.tile.m;
    p.tile_n = w.tile.n;
    p.tile_k = w.tile.k;
    p.stages = w.tile.stages;
    p.warps = w.tile.warps;
    p.dtype_size = dtype_bytes(w.dtype);
    p.dtype = w.dtype;
    p.raster = w.raster;
    Launch l = make_gemm_launch(p);
    const std::string what = "tile " + std::to_string(p.tile_m) + "x" + std::to_string(p.tile_n) + "x" +
                             std::to_string(p.tile_k) + " with " + std::to_string(p.stages) + " stages";
    if (Status s = finish_launch(l, hw, what, w.persistent); !s) return s.error();
    return std::vector<Launch>{std::move(l)};
}

}  // namespace tilescope::detail
