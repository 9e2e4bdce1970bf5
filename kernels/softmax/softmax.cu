// softmax: the launches of the row softmax kernel (kernels/softmax/softmax.cuh: what it does,
// the safe and online variants) for the tool's fp16 and bf16 tiles.
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "kernels/common/launch.cuh"
#include "kernels/softmax/softmax.cuh"
#include "kernels/softmax/softmax.hpp"

namespace tilescope::kern {

namespace {

template <class T, int WARPS>
Status launch_w(const SoftmaxArgs& s, KernelFacts* facts) {
    const int64_t blocks = (s.rows + s.tile.m - 1) / s.tile.m;
    const dim3 grid(static_cast<unsigned>(blocks));
    const dim3 block(WARPS * 32);
    if (s.variant == SoftmaxVariant::online)
        return launch_or_facts(softmax_kernel<T, WARPS, true>, grid, block, 0, s.stream, facts,
                               static_cast<const T*>(s.x), static_cast<T*>(s.y), s.rows, s.cols, s.tile.m, s.causal_period);
    return launch_or_facts(softmax_kernel<T, WARPS, false>, grid, block, 0, s.stream, facts,
                           static_cast<const T*>(s.x), static_cast<T*>(s.y), s.rows, s.cols, s.tile.m, s.causal_period);
}

template <class T>
Status launch_t(const SoftmaxArgs& s, KernelFacts* facts) {
    switch (s.tile.warps) {
        case 1: return launch_w<T, 1>(s, facts);
        case 2: return launch_w<T, 2>(s, facts);
        case 4: return launch_w<T, 4>(s, facts);
        case 8: return launch_w<T, 8>(s, facts);
        default: return launch_w<T, 16>(s, facts);
    }
}

Status run(const SoftmaxArgs& s, KernelFacts* facts) {
    Status st = softmax_supported(s);
    if (!st) return st;
    return s.dtype == DType::fp16 ? launch_t<__half>(s, facts) : launch_t<__nv_bfloat16>(s, facts);
}

}  // namespace

Status softmax_supported(const SoftmaxArgs& s) {
    if (s.dtype != DType::fp16 && s.dtype != DType::bf16)
        return make_error("softmax kernel supports --dtype fp16 or bf16 only");
    if (s.rows <= 0 || s.cols <= 0) return make_error("softmax kernel needs positive rows and cols");
    if (s.cols % 8 != 0)
        return make_error("softmax kernel needs --cols to be a multiple of 8 (got " + std::to_string(s.cols) + ")");
    const int w = s.tile.warps;
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
        return make_error("softmax kernel supports --warps 1, 2, 4, 8 or 16 (got " + std::to_string(w) + ")");
    if (s.tile.n != w * 256)
        return make_error("softmax kernel needs --tile-n = warps * 256 = " + std::to_string(w * 256) + " (got " +
                          std::to_string(s.tile.n) + ")");
    if (s.tile.m < 1 || s.tile.m > 64)
        return make_error("softmax kernel supports --tile-m (rows per block) in [1, 64] (got " +
                          std::to_string(s.tile.m) + ")");
    if ((s.rows + s.tile.m - 1) / s.tile.m > 0x7fffffffLL) return make_error("softmax kernel: too many blocks");
    return Status::success();
}

Status launch_softmax(const SoftmaxArgs& s) { return run(s, nullptr); }

Result<KernelFacts> softmax_facts(const SoftmaxArgs& s) {
    KernelFacts f;
    Status st = run(s, &f);
    if (!st) return st.error();
    return f;
}

}  // namespace tilescope::kern
