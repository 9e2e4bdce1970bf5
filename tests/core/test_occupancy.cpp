// Occupancy against cases worked out by hand with the CUDA occupancy calculator's rules.
#include <catch2/catch.hpp>

#include "core/hardware.hpp"
#include "core/occupancy.hpp"

using namespace tilescope;

namespace {
const Hardware& gpu(const char* name) {
    static std::map<std::string, Hardware> cache;
    auto it = cache.find(name);
    if (it == cache.end()) {
        auto hw = load_hardware(name);
        REQUIRE(hw.ok());
        it = cache.emplace(name, *hw).first;
    }
    return it->second;
}
}  // namespace

TEST_CASE("A100: 256 threads, 64 regs, 48 KB smem", "[occupancy]") {
    // warps: 64 / 8 = 8 blocks. registers: 64*32 = 2048 per warp; 16384 per sub-partition / 2048
    // = 8 warps x 4 = 32 warps -> 4 blocks. smem: 49152 + 1024 = 50176; 167936 / 50176 = 3.
    // -> 3 blocks (shared memory), 3*50176 = 150528 B needs the 164 KB carve-out (132 KB < it).
    auto o = occupancy(256, 64, 48 * 1024, 108 * 3 + 1, gpu("a100-40gb"));
    REQUIRE(o.ok());
    CHECK(o->by_warps == 8);
    CHECK(o->by_registers == 4);
    CHECK(o->by_smem == 3);
    CHECK(o->blocks_per_sm == 3);
    CHECK(o->limiter == "shared memory");
    CHECK(o->carveout_bytes == 164 * 1024);
    CHECK(o->slots == 324);
    CHECK(o->waves == 2);
    CHECK(o->tail_blocks == 1);
    CHECK(o->occupancy_fraction == Approx(24.0 / 64.0));
}

TEST_CASE("register allocation granularity", "[occupancy]") {
    // 96 threads = 3 warps. 40 regs: 1280 per warp (already a multiple of 256);
    // 16384 / 1280 = 12 warps per sub-partition -> 48 warps -> 16 blocks.
    auto a = occupancy(96, 40, 0, 1, gpu("a100-40gb"));
    REQUIRE(a.ok());
    CHECK(a->by_registers == 16);
    CHECK(a->by_warps == 21);
    CHECK(a->blocks_per_sm == 16);
    CHECK(a->limiter == "registers");
    // 41 regs: 1312 rounds up to 1536 per warp; 16384 / 1536 = 10 -> 40 warps -> 13 blocks.
    auto b = occupancy(96, 41, 0, 1, gpu("a100-40gb"));
    REQUIRE(b.ok());
    CHECK(b->by_registers == 13);
    CHECK(b->blocks_per_sm == 13);
    // 1024 threads x 64 regs = 65536 per block: exactly the per-block limit; 1 block.
    auto c = occupancy(1024, 64, 0, 1, gpu("a100-40gb"));
    REQUIRE(c.ok());
    CHECK(c->blocks_per_sm == 1);
    // 1024 threads x 72 regs exceeds 65536 registers per block.
    auto d = occupancy(1024, 72, 0, 1, gpu("a100-40gb"));
    REQUIRE_FALSE(d.ok());
    CHECK_THAT(d.error().message, Catch::Contains("73728 registers"));
}

TEST_CASE("H100: flash2 default block and the block limit", "[occupancy]") {
    // 256 threads, 128 regs: 4096 per warp -> 4 warps per sub-partition -> 16 warps -> 2 blocks.
    // smem 49152 + 1024 = 50176 -> 4 blocks by smem. 2 blocks use 100352 B -> 100 KB carve-out.
    auto o = occupancy(256, 128, 49152, 132 + 1, gpu("h100-sxm"));
    REQUIRE(o.ok());
    CHECK(o->blocks_per_sm == 2);
    CHECK(o->limiter == "registers");
    CHECK(o->by_smem == 4);
    CHECK(o->carveout_bytes == 100 * 1024);
    // 32 threads, 16 regs, no smem: warps allow 64, registers 128, smem 228; the 32-block limit wins.
    auto small = occupancy(32, 16, 0, 1, gpu("h100-sxm"));
    REQUIRE(small.ok());
    CHECK(small->blocks_per_sm == 32);
    CHECK(small->limiter == "blocks");
    CHECK(small->carveout_bytes == 32 * 1024);  // 32 x 1 KB reservation
    // 133 blocks at one block per SM: two waves, a tail of one block.
    auto one = occupancy(1024, 64, 0, 133, gpu("h100-sxm"));
    REQUIRE(one.ok());
    CHECK(one->blocks_per_sm == 1);
    CHECK(one->waves == 2);
    CHECK(one->tail_blocks == 1);
}

TEST_CASE("illegal blocks are rejected with the limit", "[occupancy]") {
    auto t = occupancy(2048, 32, 0, 1, gpu("a100-40gb"));
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().message == "block of 2048 threads exceeds a100-40gb's limit of 1024 threads per block");
    auto s = occupancy(128, 32, 200000, 1, gpu("a100-40gb"));
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == "block needs 200000 B of shared memory; a100-40gb allows 166912 B");
    auto r = occupancy(128, 300, 0, 1, gpu("a100-40gb"));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("300 registers per thread"));
}
