#include "core/kernel_registers.hpp"

namespace tilescope {

namespace {

// Index of a tile size in {32, 64, 128}, or -1.
int menu_index(int v) { return v == 32 ? 0 : v == 64 ? 1 : v == 128 ? 2 : -1; }

}  // namespace

std::optional<int> compiled_attention_registers(KernelFamily family, DType dtype, int head_dim, int br, int bc,
                                                int warps) {
    const int r = menu_index(br), c = menu_index(bc);
    if (dtype != DType::fp16 || r < 0 || c < 0 || warps != br / 16 || (head_dim != 64 && head_dim != 128))
        return std::nullopt;
    const bool d64 = head_dim == 64;
    if (family == KernelFamily::attention_flash2) {
        // By Bc (each warp holds 16 rows whatever Br is); __launch_bounds__ caps two tiles.
        if (d64 && br == 128 && bc == 32) return 128;   // at least 2 blocks per SM
        if (!d64 && br == 64 && bc == 32) return 167;   // at least 3 blocks per SM
        static constexpr int kD64[3] = {148, 162, 238}, kD128[3] = {197, 208, 244};
        return d64 ? kD64[c] : kD128[c];
    }
    if (family == KernelFamily::attention_flash1) {
        static constexpr int kD64[3] = {121, 137, 174}, kD128[3] = {155, 168, 228};
        static constexpr int kD128Br128[3] = {195, 194, 228};
        if (d64) return kD64[c];
        return br == 128 ? kD128Br128[c] : kD128[c];
    }
    return std::nullopt;
}

std::optional<int> compiled_gemm_registers(GemmUse use, DType dtype, int tile_m, int tile_n, int tile_k, int warps) {
    const int m = menu_index(tile_m), n = menu_index(tile_n);
    if (dtype != DType::fp16 || tile_k != 32 || warps != 8 || m < 1 || n < 1) return std::nullopt;
    // [tile_m 64/128][tile_n 64/128]
    static constexpr int kGemm[2][2] = {{80, 118}, {122, 158}};
    static constexpr int kQk[2][2] = {{64, 100}, {100, 125}};
    static constexpr int kPv[2][2] = {{80, 120}, {120, 158}};
    const auto& t = use == GemmUse::gemm ? kGemm : use == GemmUse::attention_qk ? kQk : kPv;
    return t[m - 1][n - 1];
}

std::optional<double> compiled_gemm_instructions(GemmUse use, DType dtype, int tile_m, int tile_n, int tile_k,
                                                 int warps, int stages) {
    const int m = menu_index(tile_m), n = menu_index(tile_n);
    if (use != GemmUse::gemm || dtype != DType::fp16 || tile_k != 32 || warps != 8 || m < 1 || n < 1 ||
        stages < 2 || stages > 4)
        return std::nullopt;
    // [tile_m 64/128][tile_n 64/128][stages 2, 3, 4]
    static constexpr double kInst[2][2][3] = {{{146, 140, 139}, {182, 179, 181}}, {{188, 185, 187}, {235, 229, 229}}};
    return kInst[m - 1][n - 1][stages - 2];
}

std::optional<SoftmaxInstructions> compiled_softmax_instructions(SoftmaxVariant variant, DType dtype) {
    if (dtype != DType::fp16) return std::nullopt;
    return variant == SoftmaxVariant::online ? SoftmaxInstructions{114.0, 215.2} : SoftmaxInstructions{111.2, 267.7};
}

}  // namespace tilescope
