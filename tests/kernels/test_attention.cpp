// Attention kernels (naive, flash1, flash2) vs a CPU float64 reference on fresh random inputs,
// outputs poisoned with NaN before every run, incl. ragged lengths, causal and bf16.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <string>
#include <tuple>
#include <vector>

#include "reference.hpp"

using namespace tilescope;

namespace {

Workload attn(KernelFamily k, std::int64_t b, std::int64_t h, std::int64_t nq, std::int64_t nkv, std::int64_t d,
              int br, int bc, bool causal, DType dt = DType::fp16) {
    Workload w;
    w.kernel = k;
    w.dtype = dt;
    w.batch = b;
    w.heads = h;
    w.seq_q = nq;
    w.seq_kv = nkv;
    w.head_dim = d;
    w.causal = causal;
    if (k == KernelFamily::attention_naive) w.tile = Tile{br, bc, 32, 2, 8};
    else w.tile = Tile{br, bc, 0, k == KernelFamily::attention_flash1 ? 1 : 2, br / 16};
    return w;
}

std::string label(const Workload& w) {
    return std::string(w.kernel == KernelFamily::attention_naive    ? "naive"
                       : w.kernel == KernelFamily::attention_flash1 ? "flash1"
                                                                    : "flash2") +
           " nq=" + std::to_string(w.seq_q) + " nkv=" + std::to_string(w.seq_kv) + " d=" + std::to_string(w.head_dim) +
           " tile=" + std::to_string(w.tile.m) + "x" + std::to_string(w.tile.n) + (w.causal ? " causal" : "") +
           (w.dtype == DType::bf16 ? " bf16" : " fp16");
}

// Runs `w` with inputs from `seed` and returns (output error, lse error or 0).
std::pair<double, double> run_and_compare(const Workload& w, std::uint64_t seed) {
    auto r = kern::WorkloadRunner::create(w, seed);
    INFO(label(w));
    if (!r) FAIL(r.error().message);
    Status st = (*r)->run_all(nullptr);
    REQUIRE(st.ok());
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto q = test::download(**r, "Q"), k = test::download(**r, "K"), v = test::download(**r, "V");
    const auto o = test::download(**r, "O");
    std::vector<double> ref, lse_ref;
    const bool has_lse = (*r)->buffers().count("lse") > 0;
    test::attention_reference(q, k, v, w.batch * w.heads, w.seq_q, w.seq_kv, w.head_dim, w.causal, ref,
                              has_lse ? &lse_ref : nullptr);
    double lse_err = 0;
    if (has_lse) lse_err = test::rel_error(test::download(**r, "lse"), lse_ref);
    return {test::rel_error(o, ref), lse_err};
}

void check(const Workload& w) {
    for (std::uint64_t seed : {11u, 12u}) {
        const auto [err, lse_err] = run_and_compare(w, seed);
        INFO(label(w) << " seed " << seed << " rel err " << err << " lse rel err " << lse_err);
        CHECK(err <= 1e-2);
        CHECK(lse_err <= 1e-3);
    }
}

}  // namespace

TEST_CASE("flash2 matches the float64 reference for every tile of the menu", "[flash2]") {
    for (int br : {32, 64, 128})
        for (int bc : {32, 64, 128}) {
            check(attn(KernelFamily::attention_flash2, 1, 2, 256, 256, 64, br, bc, false));
            check(attn(KernelFamily::attention_flash2, 1, 2, 200, 200, 128, br, bc, true));
        }
}

TEST_CASE("flash2 ragged, causal, cross-length and bf16 shapes", "[flash2]") {
    check(attn(KernelFamily::attention_flash2, 2, 3, 200, 200, 64, 64, 64, false));
    check(attn(KernelFamily::attention_flash2, 2, 3, 200, 200, 64, 64, 64, true));
    check(attn(KernelFamily::attention_flash2, 1, 2, 100, 300, 64, 64, 32, false));
    check(attn(KernelFamily::attention_flash2, 1, 2, 17, 17, 128, 32, 32, true));
    check(attn(KernelFamily::attention_flash2, 1, 2, 256, 256, 64, 128, 64, true, DType::bf16));
    check(attn(KernelFamily::attention_flash2, 1, 2, 333, 333, 128, 128, 64, false, DType::bf16));
}

TEST_CASE("flash1 matches the float64 reference", "[flash1]") {
    for (int br : {32, 64, 128})
        for (int bc : {32, 64, 128}) check(attn(KernelFamily::attention_flash1, 1, 2, 256, 256, 64, br, bc, false));
    check(attn(KernelFamily::attention_flash1, 2, 2, 200, 200, 128, 64, 64, true));
    check(attn(KernelFamily::attention_flash1, 1, 2, 100, 300, 64, 32, 64, false));
    check(attn(KernelFamily::attention_flash1, 1, 2, 333, 333, 128, 128, 32, true, DType::bf16));
}

TEST_CASE("naive attention (three launches) matches the float64 reference", "[naive]") {
    check(attn(KernelFamily::attention_naive, 1, 2, 256, 256, 64, 128, 128, false));
    check(attn(KernelFamily::attention_naive, 2, 2, 200, 200, 128, 128, 128, true));
    check(attn(KernelFamily::attention_naive, 1, 2, 104, 296, 64, 64, 64, false));
    check(attn(KernelFamily::attention_naive, 1, 2, 256, 256, 128, 64, 128, true, DType::bf16));
}

TEST_CASE("unsupported attention configurations are rejected with a message", "[menu]") {
    Workload w = attn(KernelFamily::attention_flash2, 1, 1, 128, 128, 96, 64, 64, false);
    CHECK_FALSE(kern::workload_supported(w).ok());
    w = attn(KernelFamily::attention_flash2, 1, 1, 128, 128, 64, 256, 64, false);
    CHECK_FALSE(kern::workload_supported(w).ok());
    w = attn(KernelFamily::attention_flash2, 1, 1, 128, 128, 64, 64, 64, false);
    w.tile.warps = 8;
    const Status st = kern::workload_supported(w);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().message.find("Br/16") != std::string::npos);
    w = attn(KernelFamily::attention_naive, 1, 1, 100, 100, 64, 128, 128, false);  // 100 % 8 != 0
    CHECK_FALSE(kern::workload_supported(w).ok());
}
