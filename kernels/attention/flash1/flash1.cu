// Public flash1 entry points: menu checks and dispatch to the per-(dtype, d) instantiations.
#include "kernels/attention/flash1/flash1_run.cuh"

namespace tilescope::kern {

namespace {
bool in_menu(int x) { return x == 32 || x == 64 || x == 128; }

Status run(const AttentionArgs& a, void* ws, KernelFacts* facts) {
    Status st = flash1_supported(a);
    if (!st) return st;
    if (a.dtype == DType::fp16)
        return a.head_dim == 64 ? flash1_run<__half, 64>(a, ws, facts) : flash1_run<__half, 128>(a, ws, facts);
    return a.head_dim == 64 ? flash1_run<__nv_bfloat16, 64>(a, ws, facts)
                            : flash1_run<__nv_bfloat16, 128>(a, ws, facts);
}
}  // namespace

std::int64_t flash1_workspace_bytes(const AttentionArgs& a) {
    return 2 * a.batch * a.heads * a.seq_q * static_cast<std::int64_t>(sizeof(float));
}

std::int64_t flash1_smem_bytes(int br, int bc, int head_dim, int dtype_bytes) {
    return static_cast<std::int64_t>(2 * br * head_dim + 2 * bc * head_dim) * dtype_bytes + 2 * br * 4;
}

Status flash1_supported(const AttentionArgs& a) {
    if (a.dtype != DType::fp16 && a.dtype != DType::bf16)
        return make_error("flash1 kernel supports --dtype fp16 or bf16 only");
    if (a.head_dim != 64 && a.head_dim != 128)
        return make_error("flash1 kernel supports --head-dim 64 or 128 (got " + std::to_string(a.head_dim) + ")");
    if (!in_menu(a.br) || !in_menu(a.bc))
        return make_error("flash1 kernel tile " + std::to_string(a.br) + "x" + std::to_string(a.bc) +
                          " is not in the menu {32,64,128}x{32,64,128}");
    if (a.batch <= 0 || a.heads <= 0 || a.seq_q <= 0 || a.seq_kv <= 0)
        return make_error("flash1 kernel needs positive batch, heads and sequence lengths");
    if (a.seq_q > (1 << 30) || a.seq_kv > (1 << 30) || a.batch * a.heads > 0x7fffffffLL)
        return make_error("flash1 kernel: sequences must be <= 2^30");
    return Status::success();
}

Status launch_flash1(const AttentionArgs& a, void* workspace) {
    if (workspace == nullptr) return make_error("flash1: workspace is null");
    return run(a, workspace, nullptr);
}

Result<KernelFacts> flash1_facts(const AttentionArgs& a) {
    KernelFacts f;
    Status st = run(a, nullptr, &f);
    if (!st) return st.error();
    return f;
}

}  // namespace tilescope::kern
