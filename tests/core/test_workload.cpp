// Workload validation: defaults per family and error messages that name the flag.
#include <catch2/catch.hpp>

#include "core/workload.hpp"

using namespace tilescope;

namespace {
std::string error_of(const WorkloadSpec& s) {
    auto w = make_workload(s);
    REQUIRE_FALSE(w.ok());
    return w.error().message;
}
WorkloadSpec spec(const char* kernel) {
    WorkloadSpec s;
    s.kernel = kernel;
    return s;
}
}  // namespace

TEST_CASE("defaults per family", "[workload]") {
    auto f2 = make_workload(spec("attention-flash2"));
    REQUIRE(f2.ok());
    CHECK(f2->batch == 4);
    CHECK(f2->heads == 32);
    CHECK(f2->seq_q == 4096);
    CHECK(f2->seq_kv == 4096);
    CHECK(f2->head_dim == 64);
    CHECK(f2->tile.m == 128);
    CHECK(f2->tile.n == 64);
    CHECK(f2->tile.stages == 2);
    CHECK(f2->tile.warps == 8);
    CHECK(f2->dtype == DType::fp16);

    auto s = spec("attention-flash1");
    s.head_dim = 128;
    auto f1 = make_workload(s);
    REQUIRE(f1.ok());
    CHECK(f1->tile.m == 128);
    CHECK(f1->tile.n == 32);
    CHECK(f1->tile.stages == 1);

    auto naive = make_workload(spec("attention-naive"));
    REQUIRE(naive.ok());
    CHECK(naive->tile.m == 128);
    CHECK(naive->tile.n == 128);
    CHECK(naive->tile.k == 32);
    CHECK(naive->tile.warps == 8);
    CHECK(naive->variant == SoftmaxVariant::safe);

    auto gemm = make_workload(spec("gemm"));
    REQUIRE(gemm.ok());
    CHECK(gemm->m == 4096);
    CHECK(gemm->tile.stages == 3);
    CHECK(gemm->raster == Raster::row);

    auto sm = make_workload(spec("softmax"));
    REQUIRE(sm.ok());
    CHECK(sm->rows == 16384);
    CHECK(sm->cols == 4096);
    CHECK(sm->tile.m == 1);
    CHECK(sm->tile.n == 1024);
    CHECK(sm->tile.warps == 4);

    auto custom = spec("attention-flash2");
    custom.tile_m = 64;
    auto w = make_workload(custom);
    REQUIRE(w.ok());
    CHECK(w->tile.warps == 4);  // Br / 16
    CHECK(describe(*w) == "attention-flash2 b=4 h=32 n=4096 d=64 fp16 tile=64x64 stages=2 warps=4");
}

TEST_CASE("validation messages name the flag and the rule", "[workload]") {
    CHECK(error_of(WorkloadSpec{}) ==
          "--kernel is required (attention-naive, attention-flash1, attention-flash2, gemm, softmax)");
    CHECK_THAT(error_of(spec("attention-flash3")), Catch::StartsWith("--kernel must be one of"));
    auto s = spec("attention-flash2");
    s.tile_m = 96;
    CHECK(error_of(s) == "--tile-m must be a power of two in [16, 1024] (got 96)");
    s = spec("attention-flash2");
    s.tile_n = 8;
    CHECK(error_of(s) == "--tile-n must be a power of two in [16, 1024] (got 8)");
    s = spec("attention-flash2");
    s.seq = 0;
    CHECK(error_of(s) == "--seq must be in [1, 1048576] (got 0)");
    s = spec("attention-flash2");
    s.batch = -3;
    CHECK(error_of(s) == "--batch must be in [1, 65536] (got -3)");
    s = spec("attention-flash2");
    s.head_dim = 48;
    CHECK(error_of(s) == "--head-dim must be one of 16, 32, 64, 128, 256 (got 48)");
    s = spec("attention-flash2");
    s.stages = 9;
    CHECK(error_of(s) == "--stages must be in [1, 8] (got 9)");
    s = spec("attention-flash2");
    s.warps = 33;
    CHECK(error_of(s) == "--warps must be a power of two in [1, 32] (got 33)");
    // Every kernel's warp layout halves its tile: 5 warps would leave the GEMM's layout at 4.
    for (const char* k : {"attention-flash2", "attention-flash1", "attention-naive", "gemm", "softmax"}) {
        s = spec(k);
        s.warps = 5;
        CHECK(error_of(s) == "--warps must be a power of two in [1, 32] (got 5)");
    }
    CHECK(check_flag_value("--warps", "3").error().message == "--warps must be a power of two in [1, 32] (got 3)");
    CHECK(check_flag_value("--warps", "16").ok());
    CHECK(check_flag_value("--tile-m", "0").error().message ==
          "--tile-m must be a power of two in [1, 1024] (attention and GEMM tiles: [16, 1024]) (got 0)");
    s = spec("attention-flash2");
    s.tile_m = 1024;  // the default warps (Br / 16 = 64) are over the limit: the error names the tile
    CHECK(error_of(s) == "--tile-m 1024 needs 64 warps by default (one per 16 rows), over the limit of 32: "
                         "use --tile-m <= 512 or give --warps");
    s = spec("attention-flash1");
    s.stages = 2;
    CHECK_THAT(error_of(s), Catch::StartsWith("--stages must be 1 for attention-flash1"));
    s = spec("attention-flash2");
    s.causal = true;
    s.seq_kv = 1000;
    CHECK_THAT(error_of(s), Catch::StartsWith("--causal needs --seq-kv equal to --seq"));
    s = spec("attention-flash2");
    s.m = 128;
    CHECK(error_of(s) == "--m does not apply to --kernel attention-flash2");
    s = spec("gemm");
    s.head_dim = 64;
    CHECK(error_of(s) == "--head-dim does not apply to --kernel gemm");
    s = spec("gemm");
    s.raster = "diagonal";
    CHECK(error_of(s) == "--raster must be row or column (got 'diagonal')");
    s = spec("softmax");
    s.variant = "fast";
    CHECK(error_of(s) == "--variant must be safe or online (got 'fast')");
    s = spec("softmax");
    s.dtype = "fp8";
    CHECK(error_of(s) == "--dtype must be one of fp16, bf16, fp32 (got 'fp8')");
    s = spec("gemm");
    s.tile_k = 0;
    CHECK(error_of(s) == "--tile-k must be a power of two in [16, 1024] (got 0)");
}
