// lower(): dispatch by kernel family, plus the helpers shared by lower_*.cpp.
#include "core/lower.hpp"

#include <algorithm>
#include <utility>

#include "core/lower_detail.hpp"
#include "core/occupancy.hpp"

namespace tilescope {

namespace detail {

std::int64_t floor_sum(std::int64_t n, std::int64_t m, std::int64_t a, std::int64_t b) {
    // Euclid-like reduction: take out the integer parts of a/m and b/m, then swap the roles of
    // the axes (count lattice points under the line from the other side) until nothing is left.
    std::int64_t total = 0;
    while (n > 0) {
        if (a >= m) {
            total += n * (n - 1) / 2 * (a / m);
            a %= m;
        }
        if (b >= m) {
            total += n * (b / m);
            b %= m;
        }
        const std::int64_t y_max = a * n + b;
        if (y_max < m) break;
        n = y_max / m;
        b = y_max % m;
        std::swap(m, a);
    }
    return total;
}

FusedAttention fused_attention(const Workload& w) {
    FusedAttention p{};
    p.bh = w.batch * w.heads;
    p.n = w.seq_q;
    p.n_kv = w.seq_kv;
    p.d = w.head_dim;
    p.br = w.tile.m;
    p.bc = w.tile.n;
    p.warps = w.tile.warps;
    p.dt = dtype_bytes(w.dtype);
    p.causal = w.causal;
    p.t = attention_tiles(p.n, p.n_kv, p.br, p.bc, p.causal);
    return p;
}

AttentionTiles attention_tiles(std::int64_t seq_q, std::int64_t seq_kv, std::int64_t br, std::int64_t bc, bool causal) {
    AttentionTiles t;
    t.q_tiles = ceil_div(seq_q, br);
    t.kv_tiles = ceil_div(seq_kv, bc);
    if (!causal) {
        t.pairs = t.q_tiles * t.kv_tiles;
        t.last_kv_users = t.q_tiles;
        return t;
    }
    // Causal (seq_q == seq_kv): q tile i (rows i*Br .. last_i) processes kv tiles
    // 0 .. floor(last_i / Bc). Full q tiles have last_i = (i+1)*Br - 1; the last q tile has
    // last_i = N - 1 and so processes every kv tile.
    t.pairs = floor_sum(t.q_tiles - 1, bc, br, br - 1) + (t.q_tiles - 1) + t.kv_tiles;
    // q tile i reaches kv tile j iff last_i >= j*Bc iff i >= floor(j*Bc / Br).
    t.last_kv_users = t.q_tiles - first_q_for_kv(t.kv_tiles - 1, br, bc, true);
    return t;
}

std::int64_t kv_tiles_for_q(std::int64_t i, std::int64_t seq_q, std::int64_t kv_tiles, std::int64_t br,
                            std::int64_t bc, bool causal) {
    if (!causal) return kv_tiles;
    const std::int64_t last_row = std::min((i + 1) * br, seq_q) - 1;
    return std::min(kv_tiles, last_row / bc + 1);
}

std::int64_t first_q_for_kv(std::int64_t j, std::int64_t br, std::int64_t bc, bool causal) {
    return causal ? j * bc / br : 0;
}

int attention_registers(std::int64_t br, std::int64_t bc, std::int64_t head_dim, int warps, int dtype_size) {
    const std::int64_t rows_per_warp = std::max<std::int64_t>(1, br / warps);
    const std::int64_t o_acc = rows_per_warp * head_dim / 32;                 // fp32
    const std::int64_t s_acc = rows_per_warp * bc / 32;                       // fp32
    const std::int64_t p_frag = rows_per_warp * bc * dtype_size / (4 * 32);   // packed dtype
    const std::int64_t q_frag = rows_per_warp * head_dim * dtype_size / (4 * 32);
    const std::int64_t regs = 32 + o_acc + s_acc + p_frag + q_frag;
    return static_cast<int>(std::min<std::int64_t>(ceil_div(regs, 8) * 8, 1 << 20));
}

Status finish_launch(Launch& launch, const Hardware& hw, const std::string& what, bool persistent) {
    if (launch.smem_bytes_per_block > hw.smem_per_block_max_bytes)
        return make_error(what + " needs " + std::to_string(launch.smem_bytes_per_block) +
                          " B of shared memory per block; " + hw.name + " allows " +
                          std::to_string(hw.smem_per_block_max_bytes) + " B");
    if (launch.registers_per_thread > hw.max_registers_per_thread)
        return make_error(what + " needs ~" + std::to_string(launch.registers_per_thread) +
                          " registers per thread (estimate); " + hw.name + " allows " +
                          std::to_string(hw.max_registers_per_thread));
    if (launch.threads_per_block > hw.max_threads_per_block)
        return make_error(what + " needs " + std::to_string(launch.threads_per_block) + " threads per block; " +
                          hw.name + " allows " + std::to_string(hw.max_threads_per_block));
    launch.work_items = launch.blocks();
    auto occ = occupancy(launch, hw);
    if (!occ) return make_error(what + ": " + occ.error().message);
    if (persistent) {
        launch.persistent = true;
        launch.grid_x = std::min(launch.work_items, occ->slots);
        launch.grid_y = 1;
        launch.grid_z = 1;
    }
    return {};
}

}  // namespace detail

namespace {

Result<std::vector<Launch>> lower_family(const Workload& workload, const Hardware& hw) {
    switch (workload.kernel) {
        case KernelFamily::attention_naive: return detail::lower_naive(workload, hw);
        case KernelFamily::attention_flash1: return detail::lower_flash1(workload, hw);
        case KernelFamily::attention_flash2: return detail::lower_flash2(workload, hw);
        case KernelFamily::gemm: return detail::lower_gemm(workload, hw);
        case KernelFamily::softmax: return detail::lower_softmax(workload, hw);
    }
    return make_error("unknown kernel family");
}

}  // namespace

std::int64_t device_footprint_bytes(const std::vector<Launch>& launches, std::string* names) {
    // Launches of one workload share buffers by name (naive attention's S and P): count each once.
    std::vector<std::pair<std::string, std::int64_t>> seen;
    for (const Launch& l : launches)
        for (const Buffer& b : l.buffers) {
            auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == b.name; });
            if (it == seen.end()) seen.emplace_back(b.name, b.bytes);
            else it->second = std::max(it->second, b.bytes);
        }
    std::int64_t total = 0;
    for (const auto& [name, bytes] : seen) {
        total += bytes;
        if (names) *names += (names->empty() ? "" : ", ") + name;
    }
    return total;
}

Result<std::vector<Launch>> lower(const Workload& workload, const Hardware& hw) {
    auto launches = lower_family(workload, hw);
    if (!launches) return launches;
    // A workload whose buffers do not fit in device memory cannot run; say so with the numbers
    // (and do not try to simulate terabytes of traffic).
    std::string names;
    const std::int64_t footprint = device_footprint_bytes(*launches, &names);
    if (footprint > hw.hbm_bytes)
        return make_error(describe(workload) + " needs " + std::to_string(footprint) + " B of device memory (" + names +
                          "); " + hw.name + " has " + std::to_string(hw.hbm_bytes) + " B");
    return launches;
}

}  // namespace tilescope
