// Instantiates flash1 for bf16, head dimension 64 (all nine Br x Bc tiles).
#include "kernels/attention/flash1/flash1_run.cuh"

namespace tilescope::kern {
template Status flash1_run<__nv_bfloat16, 64>(const AttentionArgs&, void*, KernelFacts*);
}  // namespace tilescope::kern
