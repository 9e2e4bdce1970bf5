// Instantiates the tiled GEMM for bf16, B layout nn (nt: B stored N x K, i.e. C = A B^T).
#include "kernels/gemm/gemm_run.cuh"

namespace tilescope::kern {
template Status gemm_run<__nv_bfloat16, false>(const GemmArgs&, KernelFacts*);
}  // namespace tilescope::kern
