// lower(): summing every block's program steps gives exactly the closed-form `counts`, for every
// family, over a fixed-seed random set of shapes and tiles (ragged and causal included); every
// region stays inside its buffer; floor_sum matches brute force.
#include <catch2/catch.hpp>

#include <random>

#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "core/lower_detail.hpp"
#include "core/occupancy.hpp"

using namespace tilescope;

namespace {

Counts sum_programs(const Launch& l, std::int64_t* max_region_end_overrun) {
    Counts c;
    std::vector<Step> steps;
    *max_region_end_overrun = 0;
    for (std::int64_t item = 0; item < l.work_items; ++item) {
        steps.clear();
        l.program(item, steps);
        for (const Step& s : steps) {
            switch (s.kind) {
                case StepKind::load:
                case StepKind::store: {
                    (s.kind == StepKind::load ? c.global_load_bytes : c.global_store_bytes) += s.amount;
                    REQUIRE(s.amount == static_cast<double>(s.region.bytes()));
                    REQUIRE(s.region.buffer < l.buffers.size());
                    REQUIRE(s.region.rows >= 1);
                    REQUIRE(s.region.row_bytes >= 1);
                    REQUIRE(s.region.offset_bytes >= 0);
                    if (s.region.rows > 1) REQUIRE(s.region.stride_bytes >= s.region.row_bytes);
                    const std::int64_t end = s.region.offset_bytes + (s.region.rows - 1) * s.region.stride_bytes +
                                             s.region.row_bytes;
                    *max_region_end_overrun =
                        std::max(*max_region_end_overrun, end - l.buffers[s.region.buffer].bytes);
                    if (s.kind == StepKind::store) REQUIRE(l.buffers[s.region.buffer].written);
                    break;
                }
                case StepKind::smem_read: c.smem_read_bytes += s.amount; break;
                case StepKind::smem_write:
                case StepKind::smem_fill: c.smem_write_bytes += s.amount; break;
                case StepKind::compute:
                    if (s.unit == Unit::tensor) c.flops_tensor += s.amount;
                    else if (s.unit == Unit::fp32) c.flops_fp32 += s.amount;
                    else c.sfu_ops += s.amount;
                    break;
                case StepKind::barrier: break;
                case StepKind::reduction:
                case StepKind::issue: break;
            }
        }
    }
    return c;
}

// Launch::repeat_of's law: an item's program is its twin's, step for step, with every region of
// buffer b moved by shift[b]. Returns how many items have a twin other than themselves.
std::int64_t check_repeat(const Launch& l) {
    if (!l.repeat_of) return 0;
    std::vector<Step> mine, twin;
    std::vector<std::int64_t> shift;
    std::int64_t repeats = 0;
    for (std::int64_t item = 0; item < l.work_items; ++item) {
        shift.assign(l.buffers.size(), 0);
        const std::int64_t t = l.repeat_of(item, shift);
        INFO("item " << item << " twin " << t);
        REQUIRE(t >= 0);
        REQUIRE(t <= item);
        if (t == item) {
            for (std::int64_t x : shift) REQUIRE(x == 0);
            continue;
        }
        ++repeats;
        mine.clear();
        twin.clear();
        l.program(item, mine);
        l.program(t, twin);
        REQUIRE(mine.size() == twin.size());
        for (std::size_t i = 0; i < mine.size(); ++i) {
            const Step& a = mine[i];
            const Step& b = twin[i];
            REQUIRE(a.kind == b.kind);
            REQUIRE(a.iteration == b.iteration);
            REQUIRE(a.amount == b.amount);
            if (a.kind == StepKind::compute) REQUIRE(a.unit == b.unit);
            if (a.kind != StepKind::load && a.kind != StepKind::store) continue;
            REQUIRE(a.region.buffer == b.region.buffer);
            REQUIRE(a.region.offset_bytes == b.region.offset_bytes + shift[a.region.buffer]);
            REQUIRE(a.region.row_bytes == b.region.row_bytes);
            REQUIRE(a.region.rows == b.region.rows);
            REQUIRE(a.region.stride_bytes == b.region.stride_bytes);
        }
    }
    return repeats;
}

void check_invariant(const Workload& w, const Hardware& hw) {
    INFO(describe(w));
    auto launches = lower(w, hw);
    if (!launches.ok()) {
        INFO(launches.error().message);
        return;  // illegal on this GPU: nothing to check
    }
    for (const Launch& l : *launches) {
        INFO(l.name);
        std::int64_t overrun = 0;
        const Counts got = sum_programs(l, &overrun);
        CHECK(overrun <= 0);
        CHECK(got.global_load_bytes == l.counts.global_load_bytes);
        CHECK(got.global_store_bytes == l.counts.global_store_bytes);
        CHECK(got.smem_read_bytes == l.counts.smem_read_bytes);
        CHECK(got.smem_write_bytes == l.counts.smem_write_bytes);
        CHECK(got.flops_tensor == l.counts.flops_tensor);
        CHECK(got.flops_fp32 == l.counts.flops_fp32);
        CHECK(got.sfu_ops == l.counts.sfu_ops);
        CHECK(l.work_items == (l.persistent ? l.work_items : l.blocks()));
        CHECK(l.repeat_of);  // every kernel family names its blocks' twins
        check_repeat(l);
    }
}

const Hardware& h100() {
    static Hardware hw = *load_hardware("h100-sxm");
    return hw;
}

}  // namespace

TEST_CASE("floor_sum matches brute force", "[lower]") {
    for (std::int64_t n = 0; n < 20; ++n)
        for (std::int64_t m = 1; m < 9; ++m)
            for (std::int64_t a = 0; a < 12; ++a)
                for (std::int64_t b = 0; b < 12; ++b) {
                    std::int64_t brute = 0;
                    for (std::int64_t i = 0; i < n; ++i) brute += (a * i + b) / m;
                    REQUIRE(detail::floor_sum(n, m, a, b) == brute);
                }
}

TEST_CASE("causal attention tile pairs match enumeration", "[lower]") {
    for (std::int64_t n : {1, 15, 16, 17, 100, 128, 129, 300, 1000}) {
        for (std::int64_t br : {16, 32, 64, 128}) {
            for (std::int64_t bc : {16, 32, 64, 128}) {
                const auto t = detail::attention_tiles(n, n, br, bc, true);
                std::int64_t pairs = 0, last_users = 0;
                for (std::int64_t i = 0; i < t.q_tiles; ++i) {
                    const std::int64_t k = detail::kv_tiles_for_q(i, n, t.kv_tiles, br, bc, true);
                    pairs += k;
                    if (k == t.kv_tiles) ++last_users;
                    for (std::int64_t j = 0; j < t.kv_tiles; ++j)
                        REQUIRE((j < k) == (i >= detail::first_q_for_kv(j, br, bc, true)));
                }
                INFO("n=" << n << " br=" << br << " bc=" << bc);
                REQUIRE(t.pairs == pairs);
                REQUIRE(t.last_kv_users == last_users);
            }
        }
    }
}

TEST_CASE("counts equal the sum of program steps: fixed cases", "[lower]") {
    for (const char* k : {"attention-naive", "attention-flash1", "attention-flash2"}) {
        for (bool causal : {false, true}) {
            for (std::int64_t n : {64, 200, 333}) {
                WorkloadSpec s;
                s.kernel = k;
                s.batch = 2;
                s.heads = 3;
                s.seq = n;
                s.causal = causal;
                auto w = make_workload(s);
                REQUIRE(w.ok());
                check_invariant(*w, h100());
            }
        }
    }
    for (const char* raster : {"row", "column"}) {
        WorkloadSpec s;
        s.kernel = "gemm";
        s.m = 300;
        s.n = 200;
        s.k = 100;
        s.raster = raster;
        check_invariant(*make_workload(s), h100());
    }
    for (const char* variant : {"safe", "online"}) {
        WorkloadSpec s;
        s.kernel = "softmax";
        s.rows = 37;
        s.cols = 3000;
        s.tile_m = 4;
        s.variant = variant;
        check_invariant(*make_workload(s), h100());
    }
}

TEST_CASE("counts equal the sum of program steps: randomised (seed 1234)", "[lower]") {
    std::mt19937_64 rng(1234);
    auto pick = [&](std::initializer_list<std::int64_t> v) {
        return *(v.begin() + static_cast<std::ptrdiff_t>(rng() % v.size()));
    };
    auto range = [&](std::int64_t lo, std::int64_t hi) { return lo + static_cast<std::int64_t>(rng() % (hi - lo + 1)); };
    for (int trial = 0; trial < 60; ++trial) {
        WorkloadSpec s;
        const int fam = trial % 5;
        s.dtype = pick({0, 1, 2}) == 0 ? "fp16" : (trial % 2 ? "bf16" : "fp32");
        s.persistent = trial % 7 == 0;
        if (fam <= 2) {
            s.kernel = fam == 0 ? "attention-naive" : (fam == 1 ? "attention-flash1" : "attention-flash2");
            s.batch = range(1, 2);
            s.heads = range(1, 3);
            s.seq = range(1, 400);
            s.head_dim = pick({16, 32, 64, 128});
            s.causal = trial % 3 == 0;
            if (!*s.causal && trial % 4 == 1) s.seq_kv = range(1, 400);
            s.tile_m = pick({16, 32, 64, 128});
            s.tile_n = pick({16, 32, 64, 128});
            if (fam == 0) s.tile_k = pick({16, 32, 64});
            if (fam == 2) s.stages = range(1, 3);
        } else if (fam == 3) {
            s.kernel = "gemm";
            s.m = range(1, 300);
            s.n = range(1, 300);
            s.k = range(1, 300);
            s.tile_m = pick({16, 32, 64, 128});
            s.tile_n = pick({16, 32, 64, 128});
            s.tile_k = pick({16, 32, 64});
            s.stages = range(1, 4);
            s.warps = pick({1, 2, 4, 8});
            s.raster = trial % 2 ? "row" : "column";
        } else {
            s.kernel = "softmax";
            s.rows = range(1, 200);
            s.cols = range(1, 5000);
            s.tile_m = pick({1, 2, 4, 8});
            s.tile_n = pick({32, 256, 1024});
            s.variant = trial % 2 ? "safe" : "online";
        }
        auto w = make_workload(s);
        REQUIRE(w.ok());
        check_invariant(*w, h100());
    }
}

TEST_CASE("lower() rejects blocks that do not fit, naming the numbers", "[lower]") {
    WorkloadSpec s;
    s.kernel = "attention-flash2";
    s.head_dim = 128;
    s.tile_m = 256;
    s.tile_n = 256;
    s.stages = 1;
    s.warps = 16;
    auto w = make_workload(s);
    REQUIRE(w.ok());
    auto a100 = load_hardware("a100-40gb");
    REQUIRE(a100.ok());
    auto l = lower(*w, *a100);
    REQUIRE_FALSE(l.ok());
    // (256*128 + 1*2*256*128) * 2 B = 196608 B
    CHECK(l.error().message ==
          "tile 256x256 with head-dim 128 needs 196608 B of shared memory per block; a100-40gb allows 166912 B");
}

TEST_CASE("safe softmax: the max pass loads its steps in pairs, the other passes one per step, as compiled",
          "[lower][softmax]") {
    for (const std::int64_t cols : {1024, 768}) {  // 4 and 3 steps of 256 columns
        WorkloadSpec s;
        s.kernel = "softmax";
        s.rows = 8;
        s.cols = cols;
        s.variant = "safe";
        s.tile_m = 1;
        s.tile_n = 256;
        s.warps = 1;
        s.stages = 1;
        auto launches = lower(*make_workload(s), h100());
        REQUIRE(launches.ok());
        const Launch& l = launches->front();
        const std::int64_t steps = cols / 256;
        CHECK(l.reread_period == steps);
        std::vector<Step> prog;
        l.program(0, prog);
        std::vector<int> loads(static_cast<std::size_t>(3 * steps), 0);
        for (const Step& st : prog)
            if (st.kind == StepKind::load) ++loads[static_cast<std::size_t>(st.iteration)];
        INFO("cols " << cols);
        for (std::int64_t i = 0; i < steps; ++i)  // max pass: even steps load two chunks (the last one alone)
            CHECK(loads[static_cast<std::size_t>(i)] == (i % 2 == 1 ? 0 : (i + 1 < steps ? 2 : 1)));
        for (std::int64_t i = steps; i < 3 * steps; ++i) CHECK(loads[static_cast<std::size_t>(i)] == 1);
    }
}

TEST_CASE("softmax: the launch declares the kernel's reduction scratch, which sets the carve-out and the L1",
          "[lower][softmax]") {
    // kernels/softmax's block_reduce uses __shared__ float scratch[2][WARPS]; the measured launches
    // (profiles/validation) report 8, 16 and 32 B. With the 1 KiB reserved per block, 32 one- or
    // two-warp blocks need 33 KiB and take the 64 KiB carve-out (192 KiB of L1 on an H100); 16
    // four-warp blocks need 16.5 KiB and take 32 KiB (224 KiB of L1), as Nsight Compute reports.
    const Hardware& hw = h100();
    for (const int warps : {1, 2, 4}) {
        WorkloadSpec s;
        s.kernel = "softmax";
        s.rows = 16384;
        s.cols = 2048;
        s.variant = "online";
        s.tile_m = 1;
        s.tile_n = 256 * warps;
        s.warps = warps;
        s.stages = 1;
        auto launches = lower(*make_workload(s), hw);
        REQUIRE(launches.ok());
        const Launch& l = launches->front();
        INFO("warps " << warps);
        CHECK(l.smem_bytes_per_block == 8 * warps);
        auto occ = occupancy(l, hw);
        REQUIRE(occ.ok());
        CHECK(occ->blocks_per_sm == (warps == 4 ? 16 : 32));
        CHECK(occ->carveout_bytes == (warps == 4 ? 32 : 64) * 1024);
        CHECK(hw.l1_smem_bytes_per_sm - occ->carveout_bytes == (warps == 4 ? 224 : 192) * 1024);
    }
}

TEST_CASE("flash1: shared-memory bytes include the epilogue's round trip of O, as the kernel does it", "[lower][flash1]") {
    // One head, N = 64, Br = Bc = 32, d = 64, fp16, 2 warps: 2 K/V tiles x 2 Q tiles = 4 inner
    // steps, 2 of them (j = 1) carrying O, l, m. kernels/attention/flash1 per inner step writes
    // the new O (Br*d*2 = 4096 B) into shared memory and reads it back for its global stores,
    // and on a carrying step every lane reads m and l of its two rows (32 lanes x 16 B per warp).
    WorkloadSpec s;
    s.kernel = "attention-flash1";
    s.batch = 1;
    s.heads = 1;
    s.seq = 64;
    s.head_dim = 64;
    s.tile_m = 32;
    s.tile_n = 32;
    s.warps = 2;
    s.stages = 1;
    auto launches = lower(*make_workload(s), h100());
    REQUIRE(launches.ok());
    const Counts& c = launches->front().counts;
    const double tile = 32.0 * 64 * 2;  // one 32-row tile of Q, O, K or V
    // writes: K, V per kv tile; Q and the new O per step; old O + l, m (2 x 32 x 4 B) per carrying step
    CHECK(c.smem_write_bytes == 2 * 2 * tile + 4 * 2 * tile + 2 * (tile + 256));
    // reads: Q, K and V by both warps, the new O per step; old O + 32 B per row of m, l per carrying step
    CHECK(c.smem_read_bytes == 4 * (tile + 2 * 2 * tile + tile) + 2 * (tile + 32 * 32));
}

TEST_CASE("repeat_of finds twins: every (batch, head), row block and whole tile repeats the first", "[lower]") {
    auto twins = [](const WorkloadSpec& s) {
        auto w = make_workload(s);
        REQUIRE(w.ok());
        auto launches = lower(*w, h100());
        REQUIRE(launches.ok());
        std::vector<std::int64_t> per_launch;
        for (const Launch& l : *launches) per_launch.push_back(check_repeat(l));
        return per_launch;
    };
    WorkloadSpec f;
    f.kernel = "attention-flash2";
    f.batch = 2;
    f.heads = 3;
    f.seq = 200;  // 4 query tiles of 64, the last partial: heads 1-5 repeat head 0
    f.tile_m = 64;
    CHECK(twins(f) == std::vector<std::int64_t>{5 * 4});
    f.kernel = "attention-flash1";
    CHECK(twins(f) == std::vector<std::int64_t>{5});
    WorkloadSpec g;
    g.kernel = "gemm";
    g.m = 300;  // 3 whole tile rows of 64 and a partial one; 200 = 3 whole columns and a partial
    g.n = 200;
    g.k = 100;
    g.tile_m = 64;
    g.tile_n = 64;
    for (const char* raster : {"row", "column"}) {
        g.raster = raster;
        // 20 tiles; the first whole tile, the partial row's first tile, the partial column's
        // first tile and the corner are their own twins.
        CHECK(twins(g) == std::vector<std::int64_t>{16});
    }
    WorkloadSpec m;
    m.kernel = "softmax";
    m.rows = 37;
    m.cols = 3000;
    m.tile_m = 4;  // 10 blocks, the last with one row
    CHECK(twins(m) == std::vector<std::int64_t>{8});
}

TEST_CASE("staged stores: the fused attention kernels stage their stores in shared memory, the others do not",
          "[lower]") {
    // Launch::staged_stores (docs/validation change 76): flash1's O_i and flash2's O go through
    // shared memory to 16-byte stores; the softmax kernel stores y from registers and the GEMM
    // kernel (the GEMM family, naive attention's QK^T and P V) stores accumulator fragments.
    auto spec = [](const std::string& kernel) {
        WorkloadSpec s;
        s.kernel = kernel;
        if (kernel == "gemm") {
            s.m = s.n = s.k = 256;
        } else if (kernel == "softmax") {
            s.rows = 64;
            s.cols = 1024;
        } else {
            s.batch = 1;
            s.heads = 2;
            s.seq = 256;
            s.head_dim = 64;
        }
        return s;
    };
    for (const std::string kernel : {"attention-flash1", "attention-flash2", "attention-naive", "gemm", "softmax"}) {
        INFO(kernel);
        auto launches = lower(*make_workload(spec(kernel)), h100());
        REQUIRE(launches.ok());
        const bool fused = kernel == "attention-flash1" || kernel == "attention-flash2";
        for (const Launch& l : *launches) {
            INFO(l.name);
            CHECK(l.staged_stores == fused);
        }
    }
}
