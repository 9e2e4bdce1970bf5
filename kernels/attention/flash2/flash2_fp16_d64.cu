// Instantiates flash2 for fp16, head dimension 64 (all nine Br x Bc tiles).
#include "kernels/attention/flash2/flash2_run.cuh"

namespace tilescope::kern {
template Status flash2_run<__half, 64>(const AttentionArgs&, KernelFacts*);
}  // namespace tilescope::kern
