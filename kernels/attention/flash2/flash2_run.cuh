// flash2_run<T, D>(): picks the (Br, Bc) instantiation of flash2_fwd_kernel for one element
// type and head dimension. Each (T, D) pair is instantiated in its own .cu file so the nine
// tile configurations of each compile in parallel.
#pragma once

#include <cmath>
#include <string>

#include "kernels/attention/attention.hpp"
#include "kernels/attention/flash2/flash2.cuh"
#include "kernels/common/launch.cuh"

namespace tilescope::kern {

template <class T, int BR, int BC, int D>
Status flash2_launch_one(const AttentionArgs& a, KernelFacts* facts) {
    const dim3 grid(static_cast<unsigned>((a.seq_q + BR - 1) / BR), static_cast<unsigned>(a.batch * a.heads));
    const dim3 block(BR * 2);
    const size_t smem = static_cast<size_t>(BR * D + 2 * 2 * BC * D) * sizeof(T);
    const float scale = a.scale > 0 ? a.scale : 1.0f / std::sqrt(static_cast<float>(D));
    const float scale_log2 = scale * 1.4426950408889634f;
    return launch_or_facts(flash2_fwd_kernel<T, BR, BC, D>, grid, block, smem, a.stream, facts,
                           static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v),
                           static_cast<T*>(a.o), a.lse, static_cast<int>(a.seq_q), static_cast<int>(a.seq_kv),
                           scale_log2, a.causal ? 1 : 0);
}

template <class T, int D>
Status flash2_run(const AttentionArgs& a, KernelFacts* facts) {
#define TS_F2(BR_, BC_) \
    if (a.br == BR_ && a.bc == BC_) return flash2_launch_one<T, BR_, BC_, D>(a, facts);
    TS_F2(32, 32) TS_F2(32, 64) TS_F2(32, 128)
    TS_F2(64, 32) TS_F2(64, 64) TS_F2(64, 128)
    TS_F2(128, 32) TS_F2(128, 64) TS_F2(128, 128)
#undef TS_F2
    return make_error("flash2: tile " + std::to_string(a.br) + "x" + std::to_string(a.bc) +
                      " is not in the menu {32,64,128}x{32,64,128}");
}

// Explicit instantiations live in flash2_<dtype>_d<D>.cu.
extern template Status flash2_run<__half, 64>(const AttentionArgs&, KernelFacts*);
extern template Status flash2_run<__half, 128>(const AttentionArgs&, KernelFacts*);
extern template Status flash2_run<__nv_bfloat16, 64>(const AttentionArgs&, KernelFacts*);
extern template Status flash2_run<__nv_bfloat16, 128>(const AttentionArgs&, KernelFacts*);

}  // namespace tilescope::kern
