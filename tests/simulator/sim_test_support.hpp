// Helpers for simulator tests: a hand-written H100-like GPU (no profile file needed) and
// hand-built launches whose every block runs the same simple program.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "core/launch.hpp"
#include "core/lower.hpp"
#include "core/workload.hpp"
#include "simulator/simulate.hpp"

namespace tilescope::test {

inline Hardware test_gpu() {
    Hardware hw;
    hw.name = "test-gpu";
    hw.display_name = "Test GPU (H100-like)";
    hw.compute_capability = 90;
    hw.sm_count = 132;
    hw.max_threads_per_sm = 2048;
    hw.max_warps_per_sm = 64;
    hw.max_blocks_per_sm = 32;
    hw.max_threads_per_block = 1024;
    hw.warp_size_threads = 32;
    hw.registers_per_sm = 65536;
    hw.max_registers_per_thread = 255;
    hw.max_registers_per_block = 65536;
    hw.register_allocation_unit = 256;
    hw.smem_carveout_steps_bytes = {0, 8192, 16384, 32768, 65536, 102400, 135168, 167936, 200704, 233472};
    hw.smem_per_sm_bytes = 233472;
    hw.smem_per_block_max_bytes = 232448;
    hw.smem_reserved_per_block_bytes = 1024;
    hw.smem_bandwidth_bytes_per_cycle_per_sm = 128;
    hw.l2_bytes = 50 * 1024 * 1024;
    hw.l2_line_bytes = 128;
    hw.l2_sector_bytes = 32;
    hw.l2_bandwidth_bytes_per_s = 5.5e12;
    hw.l2_latency_ns = 200;
    hw.hbm_bytes = 80LL << 30;
    hw.hbm_bandwidth_bytes_per_s = 3.35e12;
    hw.hbm_latency_ns = 600;
    hw.sm_clock_hz = 1.755e9;
    hw.memory_clock_hz = 2.6e9;
    hw.tensor_fp16_flops_per_s = 989e12;
    hw.tensor_bf16_flops_per_s = 989e12;
    hw.tensor_tf32_flops_per_s = 494e12;
    hw.fp32_flops_per_s = 67e12;
    hw.sfu_ops_per_s = 3.9e12;
    hw.kernel_launch_latency_ns = 3000;
    return hw;
}

// A random workload of `kernel` (small shapes; ragged edges, causal, persistent, every dtype
// and tile of the menus; some illegal on a given GPU, which callers skip).
inline WorkloadSpec random_spec(const std::string& kernel, std::mt19937_64& rng) {
    auto pick = [&](std::initializer_list<std::int64_t> xs) {
        std::vector<std::int64_t> v(xs);
        return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
    };
    auto between = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
    WorkloadSpec s;
    s.kernel = kernel;
    s.dtype = std::vector<std::string>{"fp16", "bf16", "fp32"}[static_cast<std::size_t>(between(0, 2))];
    s.persistent = between(0, 3) == 0;
    if (kernel.rfind("attention", 0) == 0) {
        s.batch = between(1, 3);
        s.heads = between(1, 3);
        s.seq = between(1, 600);
        s.causal = between(0, 1) == 1;
        if (!*s.causal && between(0, 1) == 1) s.seq_kv = between(1, 600);
        s.head_dim = pick({32, 64, 128});
        s.tile_m = pick({16, 32, 64, 128});
        s.tile_n = pick({16, 32, 64, 128});
        if (kernel == "attention-naive") {
            s.tile_k = pick({16, 32, 64});
            s.variant = between(0, 1) ? "safe" : "online";
        }
        if (kernel != "attention-flash1") s.stages = between(1, 3);
        s.warps = pick({1, 2, 4, 8});
    } else if (kernel == "gemm") {
        s.m = between(1, 700);
        s.n = between(1, 700);
        s.k = between(1, 700);
        s.tile_m = pick({16, 32, 64, 128});
        s.tile_n = pick({16, 32, 64, 128});
        s.tile_k = pick({16, 32, 64});
        s.stages = between(1, 4);
        s.warps = pick({1, 2, 4, 8});
        s.raster = between(0, 1) ? "row" : "column";
    } else {
        s.rows = between(1, 3000);
        s.cols = between(1, 5000);
        s.tile_m = pick({1, 2, 4, 8});
        s.tile_n = pick({128, 256, 512, 1024});
        s.variant = between(0, 1) ? "safe" : "online";
        s.warps = pick({1, 2, 4, 8});
    }
    return s;
}

// A softmax workload of one row per block, `warps` warps (tile_n = 256 x warps), one stage.
inline Workload softmax_workload(const std::string& variant, std::int64_t rows, std::int64_t cols, int warps,
                                 const std::string& dtype = "fp16") {
    WorkloadSpec s;
    s.kernel = "softmax";
    s.variant = variant;
    s.dtype = dtype;
    s.rows = rows;
    s.cols = cols;
    s.tile_m = 1;
    s.tile_n = warps * 256;
    s.warps = warps;
    s.stages = 1;
    auto w = make_workload(s);
    INFO((w ? std::string() : w.error().message));
    REQUIRE(w.ok());
    return *w;
}

// A GEMM of size x size outputs in 64 x 64 x 32 tiles: square (k = size) with 2 stages and
// 4 warps unless told otherwise.
inline Workload small_gemm_workload(std::int64_t size = 512, std::int64_t k = 0, int stages = 2, int warps = 4) {
    WorkloadSpec g;
    g.kernel = "gemm";
    g.m = g.n = size;
    g.k = k > 0 ? k : size;
    g.tile_m = g.tile_n = 64;
    g.tile_k = 32;
    g.stages = stages;
    g.warps = warps;
    auto w = make_workload(g);
    REQUIRE(w.ok());
    return *w;
}

inline Workload test_workload() {
    Workload w;
    w.kernel = KernelFamily::gemm;
    w.dtype = DType::fp16;
    return w;
}

// `blocks` blocks of `threads` threads with `regs` registers each; every block runs `iterations`
// iterations of: load `load_bytes` contiguous bytes of buffer "X" (at `offset(block, it)`),
// then `fp32_flops` of FP32 work; then stores `store_bytes` to buffer "Y" at block * store_bytes.
struct SimpleLaunch {
    std::int64_t blocks = 1;
    int threads = 128;
    int regs = 32;
    int stages = 1;
    std::int64_t iterations = 1;
    std::int64_t load_bytes = 0;
    std::int64_t x_bytes = 0;  // size of X; loads wrap around modulo this
    double fp32_flops = 0;
    std::int64_t store_bytes = 0;
    bool same_data = false;    // every block reads the same offsets (else block-private data)
};

inline Launch make_simple_launch(const SimpleLaunch& s, std::string name = "simple") {
    Launch l;
    l.name = std::move(name);
    l.grid_x = s.blocks;
    l.threads_per_block = s.threads;
    l.registers_per_thread = s.regs;
    l.stages = s.stages;
    l.work_items = s.blocks;
    const std::int64_t per_block = s.iterations * s.load_bytes;
    const std::int64_t x_bytes = s.x_bytes > 0 ? s.x_bytes : std::max<std::int64_t>(1, per_block * (s.same_data ? 1 : s.blocks));
    l.buffers = {Buffer{"X", x_bytes, false}, Buffer{"Y", std::max<std::int64_t>(1, s.store_bytes * s.blocks), true}};
    l.counts.global_load_bytes = static_cast<double>(per_block * s.blocks);
    l.counts.global_store_bytes = static_cast<double>(s.store_bytes * s.blocks);
    l.counts.flops_fp32 = s.fp32_flops * static_cast<double>(s.iterations * s.blocks);
    l.program = [s, x_bytes](std::int64_t block, std::vector<Step>& out) {
        const std::int64_t block_bytes = s.iterations * s.load_bytes;
        for (std::int64_t it = 0; it < s.iterations; ++it) {
            if (s.load_bytes > 0) {
                Step ld;
                ld.kind = StepKind::load;
                ld.iteration = static_cast<std::int32_t>(it);
                const std::int64_t base = s.same_data ? 0 : block * block_bytes;
                ld.region = Region{0, (base + it * s.load_bytes) % x_bytes, s.load_bytes, 1, s.load_bytes};
                ld.amount = static_cast<double>(s.load_bytes);
                out.push_back(ld);
            }
            if (s.fp32_flops > 0) {
                Step c;
                c.kind = StepKind::compute;
                c.unit = Unit::fp32;
                c.iteration = static_cast<std::int32_t>(it);
                c.amount = s.fp32_flops;
                out.push_back(c);
            }
        }
        if (s.store_bytes > 0) {
            Step st;
            st.kind = StepKind::store;
            st.iteration = static_cast<std::int32_t>(s.iterations);
            st.region = Region{1, block * s.store_bytes, s.store_bytes, 1, s.store_bytes};
            st.amount = static_cast<double>(s.store_bytes);
            out.push_back(st);
        }
    };
    return l;
}

// `blocks` blocks of `threads` threads, each doing `iterations` x `flops` tensor FLOP after a
// small load, then a small store.
inline Launch tensor_launch(std::int64_t blocks, int threads, double flops, std::int64_t iterations = 2) {
    test::SimpleLaunch s;
    s.blocks = blocks;
    s.threads = threads;
    s.regs = 32;
    s.iterations = iterations;
    s.load_bytes = 4096;
    s.store_bytes = 1024;
    Launch l = make_simple_launch(s, "tensor");
    auto base = l.program;
    l.program = [base, flops](std::int64_t block, std::vector<Step>& out) {
        base(block, out);
        std::vector<Step> with;
        for (const Step& st : out) {
            with.push_back(st);
            if (st.kind == StepKind::load) {
                Step c;
                c.kind = StepKind::compute;
                c.unit = Unit::tensor;
                c.iteration = st.iteration;
                c.amount = flops;
                with.push_back(c);
            }
        }
        out = std::move(with);
    };
    l.counts.flops_tensor = flops * static_cast<double>(blocks * iterations);
    return l;
}

// Every block reads the same 64 KiB in 32 steps of 2 KiB: after the first touch every load hits in
// the L2 (the queueing tests of changes 65 and 81).
inline Launch shared_reads(std::int64_t blocks) {
    SimpleLaunch s;
    s.blocks = blocks;
    s.threads = 128;
    s.iterations = 32;
    s.load_bytes = 2048;
    s.same_data = true;
    return make_simple_launch(s);
}

// Simulates `launches` on `hw` (default options; `l2` = false switches the L2 model off) and
// requires that it succeeds, reporting the error message otherwise.
inline Prediction run(const std::vector<Launch>& launches, const Hardware& hw, bool l2 = true) {
    sim::Options opt;
    opt.l2 = l2;
    auto p = sim::simulate(test_workload(), launches, hw, opt);
    INFO((p ? std::string() : p.error().message));
    REQUIRE(p.ok());
    return std::move(p).value();
}

// Lowers workload `w` for `hw` and simulates it (default options), requiring both to succeed.
inline Prediction predict(const Workload& w, const Hardware& hw) {
    auto launches = lower(w, hw);
    INFO((launches ? std::string() : launches.error().message));
    REQUIRE(launches.ok());
    auto p = sim::simulate(w, *launches, hw, sim::Options{});
    INFO((p ? std::string() : p.error().message));
    REQUIRE(p.ok());
    return std::move(p).value();
}

// The profile JSON `text` with field `key`'s value replaced by `value` (the field must be there).
inline std::string with_field(std::string text, const std::string& key, const std::string& value) {
    const auto at = text.find("\"" + key + "\":");
    REQUIRE(at != std::string::npos);
    const auto end = text.find_first_of(",}", at);
    text.replace(at, end - at, "\"" + key + "\":" + value);
    return text;
}

// An optional calibration field `name`: absent from the profile while 0, in it and in the
// fingerprint once set to `value`, read back as set, and each of `bad` refused by name.
inline void check_optional_field(const char* name, double Calibration::*field, double value,
                                 std::initializer_list<const char*> bad) {
    INFO(name);
    Hardware hw = test_gpu();
    hw.calibration.calibrated = true;
    const std::string fp0 = profile_fingerprint(hw);
    CHECK(hardware_to_json(hw).find(name) == std::string::npos);
    hw.calibration.*field = value;
    CHECK(profile_fingerprint(hw) != fp0);
    const std::string text = hardware_to_json(hw);
    auto back = parse_hardware(text, "test");
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back.ok());
    CHECK(back->calibration.*field == value);
    CHECK(profile_fingerprint(*back) != fp0);
    for (const char* b : bad) {
        auto r = parse_hardware(with_field(text, name, b), "test");
        INFO(b);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find(name) != std::string::npos);
    }
}

// A 0/1/2 calibration field (the pipeline laws of changes 63 and 64, warp_wait_shared): absent
// when 0, round-trips 1 and 2, enters the fingerprint, and anything else is refused by name.
inline void check_flag012_field(const char* name, double Calibration::*field) {
    INFO(name);
    check_optional_field(name, field, 1.0, {"3", "0.5", "-1"});
    Hardware hw = test_gpu();
    hw.calibration.calibrated = true;
    hw.calibration.*field = 1.0;
    const std::string text = hardware_to_json(hw);
    auto two = parse_hardware(with_field(text, name, "2"), "test");
    REQUIRE(two.ok());
    CHECK(two->calibration.*field == 2.0);
    CHECK(profile_fingerprint(*two) != profile_fingerprint(hw));
    for (const char* bad : {"3", "0.5", "-1"}) {
        auto r = parse_hardware(with_field(text, name, bad), "test");
        INFO(bad);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find("0, 1 or 2") != std::string::npos);
    }
}

}  // namespace tilescope::test
