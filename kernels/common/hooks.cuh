// Hooks of the tool's tiled kernels (kernels/gemm/gemm.cuh, kernels/attention/flash2/flash2.cuh,
// kernels/attention/flash1/flash1.cuh, kernels/softmax/softmax.cuh):
// a template parameter the probes of kernels/tools set to watch or take apart a kernel's loop;
// every kernel the tool itself runs uses NoHooks, which compiles to nothing.
//   at(point)  called by every thread at the kernel's named points (gemm: 0 on entry, 1 after the
//              K loop, 2 after the stores; tilescope-qk-timeline-probe records clocks there;
//              flash1: the points its header lists, timed by tilescope-flash1-step-probe);
//   kStores    false: the GEMM epilogue stores nothing (tilescope-qk-timeline-probe);
//   kMma       false: the main loop skips its shared-memory fragment reads, mma and (flash2) the
//              online softmax; its loads, waits and barriers stay (tilescope-loop-overlap-probe);
//   kLoads     false: the prologue fills every stage buffer once and the main loop issues no load
//              (tilescope-loop-overlap-probe).
// HookMma / HookLoads read kMma / kLoads where a Hooks type declares them, else true, so the
// probes' older Hooks types need not name them.
#pragma once

#include <type_traits>

namespace tilescope::kern {

struct NoHooks {
    static constexpr bool kStores = true;
    __device__ static void at(int) {}
};

template <class H, class = void>
struct HookMma : std::true_type {};
template <class H>
struct HookMma<H, std::void_t<decltype(H::kMma)>> : std::bool_constant<H::kMma> {};
template <class H, class = void>
struct HookLoads : std::true_type {};
template <class H>
struct HookLoads<H, std::void_t<decltype(H::kLoads)>> : std::bool_constant<H::kLoads> {};

}  // namespace tilescope::kern
