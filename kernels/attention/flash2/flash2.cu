// Public flash2 entry points: menu checks and dispatch to the per-(dtype, d) instantiations.
#include "kernels/attention/flash2/flash2_run.cuh"

namespace tilescope::kern {

namespace {
bool in_menu(int x) { return x == 32 || x == 64 || x == 128; }

Status run(const AttentionArgs& a, KernelFacts* facts) {
    Status st = flash2_supported(a);
    if (!st) return st;
    if (a.dtype == DType::fp16)
        return a.head_dim == 64 ? flash2_run<__half, 64>(a, facts) : flash2_run<__half, 128>(a, facts);
    return a.head_dim == 64 ? flash2_run<__nv_bfloat16, 64>(a, facts) : flash2_run<__nv_bfloat16, 128>(a, facts);
}
}  // namespace

std::int64_t flash2_smem_bytes(int br, int bc, int head_dim, int dtype_bytes) {
    return static_cast<std::int64_t>(br * head_dim + 2 * 2 * bc * head_dim) * dtype_bytes;
}

Status flash2_supported(const AttentionArgs& a) {
    if (a.dtype != DType::fp16 && a.dtype != DType::bf16)
        return make_error("flash2 kernel supports --dtype fp16 or bf16 only");
    if (a.head_dim != 64 && a.head_dim != 128)
        return make_error("flash2 kernel supports --head-dim 64 or 128 (got " + std::to_string(a.head_dim) + ")");
    if (!in_menu(a.br) || !in_menu(a.bc))
        return make_error("flash2 kernel tile " + std::to_string(a.br) + "x" + std::to_string(a.bc) +
                          " is not in the menu {32,64,128}x{32,64,128}");
    if (a.batch <= 0 || a.heads <= 0 || a.seq_q <= 0 || a.seq_kv <= 0)
        return make_error("flash2 kernel needs positive batch, heads and sequence lengths");
    if (a.seq_q > (1 << 30) || a.seq_kv > (1 << 30) || a.batch * a.heads > 65535)
        return make_error("flash2 kernel: batch*heads must be <= 65535 and sequences <= 2^30");
    return Status::success();
}

Status launch_flash2(const AttentionArgs& a) { return run(a, nullptr); }

Result<KernelFacts> flash2_facts(const AttentionArgs& a) {
    KernelFacts f;
    Status st = run(a, &f);
    if (!st) return st.error();
    return f;
}

}  // namespace tilescope::kern
