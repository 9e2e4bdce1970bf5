// Instantiates flash1 for fp16, head dimension 128 (all nine Br x Bc tiles).
#include "kernels/attention/flash1/flash1_run.cuh"

namespace tilescope::kern {
template Status flash1_run<__half, 128>(const AttentionArgs&, void*, KernelFacts*);
}  // namespace tilescope::kern
