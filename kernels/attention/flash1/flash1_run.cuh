// flash1_run<T, D>(): picks the (Br, Bc) instantiation of flash1_fwd_kernel. Each (T, D) pair
// is instantiated in its own .cu file.
#pragma once

#include <cmath>
#include <string>

#include "kernels/attention/attention.hpp"
#include "kernels/attention/flash1/flash1.cuh"
#include "kernels/common/launch.cuh"

namespace tilescope::kern {

template <class T, int BR, int BC, int D>
Status flash1_launch_one(const AttentionArgs& a, void* workspace, KernelFacts* facts) {
    const dim3 grid(static_cast<unsigned>(a.batch * a.heads));
    const dim3 block(BR * 2);
    const size_t smem = static_cast<size_t>(2 * BR * D + 2 * BC * D) * sizeof(T) + 2 * BR * sizeof(float);
    const float scale = a.scale > 0 ? a.scale : 1.0f / std::sqrt(static_cast<float>(D));
    float* l_ws = static_cast<float*>(workspace);
    float* m_ws = l_ws == nullptr ? nullptr : l_ws + a.batch * a.heads * a.seq_q;
    return launch_or_facts(flash1_fwd_kernel<T, BR, BC, D>, grid, block, smem, a.stream, facts,
                           static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v),
                           static_cast<T*>(a.o), l_ws, m_ws, static_cast<int>(a.seq_q), static_cast<int>(a.seq_kv),
                           scale * 1.4426950408889634f, a.causal ? 1 : 0);
}

template <class T, int D>
Status flash1_run(const AttentionArgs& a, void* workspace, KernelFacts* facts) {
#define TS_F1(BR_, BC_) \
    if (a.br == BR_ && a.bc == BC_) return flash1_launch_one<T, BR_, BC_, D>(a, workspace, facts);
    TS_F1(32, 32) TS_F1(32, 64) TS_F1(32, 128)
    TS_F1(64, 32) TS_F1(64, 64) TS_F1(64, 128)
    TS_F1(128, 32) TS_F1(128, 64) TS_F1(128, 128)
#undef TS_F1
    return make_error("flash1: tile " + std::to_string(a.br) + "x" + std::to_string(a.bc) +
                      " is not in the menu {32,64,128}x{32,64,128}");
}

extern template Status flash1_run<__half, 64>(const AttentionArgs&, void*, KernelFacts*);
extern template Status flash1_run<__half, 128>(const AttentionArgs&, void*, KernelFacts*);
extern template Status flash1_run<__nv_bfloat16, 64>(const AttentionArgs&, void*, KernelFacts*);
extern template Status flash1_run<__nv_bfloat16, 128>(const AttentionArgs&, void*, KernelFacts*);

}  // namespace tilescope::kern
