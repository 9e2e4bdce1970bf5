// Instantiates the tiled GEMM for fp16, B layout nn (nt: B stored N x K, i.e. C = A B^T).
#include "kernels/gemm/gemm_run.cuh"

namespace tilescope::kern {
template Status gemm_run<__half, false>(const GemmArgs&, KernelFacts*);
}  // namespace tilescope::kern
