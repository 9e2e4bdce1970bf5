// core/kernel_registers: lower() uses the compiled kernels' register counts for the tiles they are
// built for, so the occupancy the simulator assumes is the one the H100 ran. Checked against every
// launch of the measured data set (cudaFuncGetAttributes of the sm_90 fp16 kernels).
#include <catch2/catch.hpp>

#include "core/kernel_registers.hpp"
#include "core/lower.hpp"
#include "core/occupancy.hpp"
#include "validate/dataset.hpp"

using namespace tilescope;

TEST_CASE("lower() gives every measured launch its compiled registers and blocks per SM",
          "[validate][registers]") {
    auto hw = load_hardware_file(TILESCOPE_SOURCE_DIR "/profiles/h100-sxm.json");
    REQUIRE(hw.ok());
    auto data = validate::load_dataset(TILESCOPE_SOURCE_DIR "/profiles/validation/h100-sxm-dataset.jsonl");
    REQUIRE(data.ok());
    REQUIRE(data->cases.size() == 386);
    int attention_and_gemm = 0;
    for (const auto& c : data->cases) {
        auto launches = lower(c.measured.workload, *hw);
        REQUIRE(launches.ok());
        REQUIRE(launches->size() == c.measured.launches.size());
        for (std::size_t i = 0; i < launches->size(); ++i) {
            const Launch& l = (*launches)[i];
            const LaunchFacts& m = c.measured.launches[i].facts;
            INFO(c.name << " launch " << l.name);
            auto occ = occupancy(l, *hw);
            REQUIRE(occ.ok());
            CHECK(occ->blocks_per_sm == m.blocks_per_sm);
            // Softmax launches keep the estimate (their count varies with the row length the
            // compiler specialises for; the block limit sets their occupancy either way).
            if (l.name.find("softmax") == std::string::npos) {
                CHECK(l.registers_per_thread == m.registers_per_thread);
                ++attention_and_gemm;
            }
        }
    }
    CHECK(attention_and_gemm > 300);
}

TEST_CASE("compiled register counts only for the kernel menu", "[validate][registers]") {
    using KF = KernelFamily;
    CHECK(compiled_attention_registers(KF::attention_flash2, DType::fp16, 64, 128, 64, 8) == 162);
    CHECK(compiled_attention_registers(KF::attention_flash2, DType::fp16, 64, 128, 32, 8) == 128);  // launch bounds
    CHECK_FALSE(compiled_attention_registers(KF::attention_flash2, DType::fp16, 64, 256, 64, 16).has_value());
    CHECK_FALSE(compiled_attention_registers(KF::attention_flash2, DType::fp16, 96, 64, 64, 4).has_value());
    CHECK_FALSE(compiled_attention_registers(KF::attention_flash2, DType::bf16, 64, 64, 64, 4).has_value());
    CHECK_FALSE(compiled_attention_registers(KF::attention_flash2, DType::fp16, 64, 64, 64, 8).has_value());  // warps
    CHECK_FALSE(compiled_attention_registers(KF::gemm, DType::fp16, 64, 64, 64, 4).has_value());
    CHECK(compiled_gemm_registers(GemmUse::gemm, DType::fp16, 128, 128, 32, 8) == 158);
    CHECK_FALSE(compiled_gemm_registers(GemmUse::gemm, DType::fp16, 128, 128, 64, 8).has_value());
    CHECK_FALSE(compiled_gemm_registers(GemmUse::gemm, DType::fp16, 32, 128, 32, 8).has_value());
}

// Change 56: the plain GEMM kernel's instructions per warp and k-iteration, as Nsight Compute
// counted them (bench/results/h200_gemm_inst_counts_2026-11-28.tgz), reach its launches; no other
// kernel, use, dtype or warp count has a count.
TEST_CASE("compiled instruction counts only for the plain 8-warp fp16 GEMM kernel", "[validate][registers][chain]") {
    CHECK(compiled_gemm_instructions(GemmUse::gemm, DType::fp16, 64, 64, 32, 8, 3) == 140.0);
    CHECK(compiled_gemm_instructions(GemmUse::gemm, DType::fp16, 64, 128, 32, 8, 3) == 179.0);
    CHECK(compiled_gemm_instructions(GemmUse::gemm, DType::fp16, 128, 64, 32, 8, 3) == 185.0);
    CHECK(compiled_gemm_instructions(GemmUse::gemm, DType::fp16, 128, 128, 32, 8, 3) == 229.0);
    CHECK(compiled_gemm_instructions(GemmUse::gemm, DType::fp16, 64, 64, 32, 8, 2) == 146.0);
    CHECK(compiled_gemm_instructions(GemmUse::gemm, DType::fp16, 128, 128, 32, 8, 4) == 229.0);
    CHECK_FALSE(compiled_gemm_instructions(GemmUse::gemm, DType::fp16, 64, 64, 32, 4, 3));
    CHECK_FALSE(compiled_gemm_instructions(GemmUse::gemm, DType::fp16, 64, 64, 32, 8, 5));
    CHECK_FALSE(compiled_gemm_instructions(GemmUse::gemm, DType::bf16, 64, 64, 32, 8, 3));
    CHECK_FALSE(compiled_gemm_instructions(GemmUse::gemm, DType::fp16, 64, 64, 64, 8, 3));
    CHECK_FALSE(compiled_gemm_instructions(GemmUse::gemm, DType::fp16, 32, 64, 32, 8, 3));
    CHECK_FALSE(compiled_gemm_instructions(GemmUse::attention_qk, DType::fp16, 64, 64, 32, 8, 2));
    CHECK_FALSE(compiled_gemm_instructions(GemmUse::attention_pv, DType::fp16, 64, 64, 32, 8, 2));

    auto hw = load_hardware_file(TILESCOPE_SOURCE_DIR "/profiles/h100-sxm.json");
    REQUIRE(hw.ok());
    Workload g;
    g.kernel = KernelFamily::gemm;
    g.m = g.n = g.k = 1024;
    g.tile.m = 64;
    g.tile.n = 128;
    g.tile.k = 32;
    g.tile.stages = 3;
    g.tile.warps = 8;
    auto l = lower(g, *hw);
    REQUIRE(l.ok());
    REQUIRE(l->size() == 1);
    CHECK((*l)[0].chain_instructions == 179.0);
    g.tile.warps = 4;
    l = lower(g, *hw);
    REQUIRE(l.ok());
    CHECK((*l)[0].chain_instructions == 0.0);
    // Naive attention's QK^T and P V run the same kernel with other epilogues and B layouts:
    // not counted.
    Workload a;
    a.kernel = KernelFamily::attention_naive;
    a.batch = 1;
    a.heads = 1;
    a.seq_q = a.seq_kv = 512;
    a.head_dim = 64;
    a.tile.m = a.tile.n = 64;
    a.tile.k = 32;
    a.tile.stages = 2;
    a.tile.warps = 8;
    auto n = lower(a, *hw);
    REQUIRE(n.ok());
    for (const Launch& x : *n) CHECK(x.chain_instructions == 0.0);
}
