// The grids of tilescope-gemm-order-probe (kernels/tools/gemm_order_probe.cu), shared with the
// simulator's what-if of the same grids (bench/gemm_order_whatif.cpp) so that the two describe
// the same problems (docs/validation change 55). Plain C++, no CUDA.
#pragma once

namespace tilescope::order_probe {

// The problem of a grid of `blocks` tiles of tm x tn: 11 x 12 tiles per wave on 132 SMs (the
// iteration series'), i.e. 12 tile columns whenever `blocks` is a multiple of 12, else one row
// of tiles.
inline void grid_shape(int blocks, int tm, int tn, int* m, int* n) {
    const int tiles_n = blocks % 12 == 0 ? 12 : blocks;
    *m = blocks / tiles_n * tm;
    *n = tiles_n * tn;
}

}  // namespace tilescope::order_probe
