// Instantiates flash2 for bf16, head dimension 128 (all nine Br x Bc tiles).
#include "kernels/attention/flash2/flash2_run.cuh"

namespace tilescope::kern {
template Status flash2_run<__nv_bfloat16, 128>(const AttentionArgs&, KernelFacts*);
}  // namespace tilescope::kern
