// The configurations of tilescope-segment-stream-probe (kernels/tools/segment_stream_probe.cu),
// shared with the simulator's replay of the same loops (bench/segment_stream_replay.cpp), so that
// the two describe the same problems (docs/validation change 62). Plain C++, no CUDA.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tilescope::segment_probe {

constexpr int kThreads = 256;
// The timed matrix: 2 GiB, 40x the H100's L2 (the size of P in the n = 2048, d = 64 training
// sweep: 256 slices of 8 MiB). --check uses 12 MiB with rows 3 KiB apart.
constexpr std::int64_t kMatrixBytes = std::int64_t{1} << 31;
constexpr std::int64_t kCheckMatrixBytes = (std::int64_t{1} << 22) * 3;
// The L2-resident tile buffer holds 64 steps' tiles; every block reads the same one.
constexpr std::int64_t kL2Steps = 64;

struct Config {
    const char* layout;  // "strided": W bytes of each of R rows per step, the rows row_bytes apart
                         // (P in P V); "dense": the step's R x W bytes contiguous
    int segment_bytes;   // W
    int rows;            // R
    int stages;          // S
    int blocks_per_sm;
    std::int64_t row_bytes;
    int l2_bytes;        // bytes of an L2-resident tile read per step too (V in P V); 0: none
    bool dense() const { return std::strcmp(layout, "dense") == 0; }
    // From one row of a step to the next, and from one step to the next: strided, the rows are
    // row_bytes apart and a step moves W along them; dense, a step's R x W bytes are contiguous.
    std::int64_t row_stride() const { return dense() ? segment_bytes : row_bytes; }
    std::int64_t step_stride() const { return dense() ? std::int64_t{rows} * segment_bytes : segment_bytes; }
    int steps() const { return static_cast<int>(row_bytes / segment_bytes); }
    int stage_bytes() const { return rows * segment_bytes + l2_bytes; }
    std::int64_t blocks(std::int64_t matrix_bytes) const { return matrix_bytes / (std::int64_t{rows} * row_bytes); }
    std::int64_t l2_total() const { return l2_bytes > 0 ? l2_bytes * kL2Steps : 16; }
};

// Dynamic shared memory that lets exactly `per_sm` blocks share an SM, or 0 when the stages do not
// fit that many: the SM's shared memory / per_sm less the per-block reservation, at most the
// per-block limit.
inline int smem_for(std::int64_t smem_per_sm, std::int64_t reserved_per_block, std::int64_t per_block_limit,
                    int per_sm, int needed) {
    const std::int64_t budget = std::min(smem_per_sm / per_sm - reserved_per_block, per_block_limit);
    return budget >= needed ? static_cast<int>(budget) : 0;
}

// Every stage count and layout, a P-like 64-byte segment and a wider one, with and without the L2
// tile; rows 3 KiB apart (not a power of two) so that a wrong stride shows.
inline std::vector<Config> check_grid() {
    std::vector<Config> c;
    for (const char* layout : {"strided", "dense"})
        for (const int s : {2, 3, 4})
            for (const int w : {64, 256})
                for (const int l2 : {0, 4096}) c.push_back({layout, w, 64, s, 2, 3072, l2});
    return c;
}

// The timed grid.
inline std::vector<Config> timed_grid() {
    std::vector<Config> c;
    // W x R x S x blocks per SM, both layouts, rows 4 KiB apart (N = 2048).
    for (const char* layout : {"strided", "dense"})
        for (const int w : {64, 128, 256, 512})
            for (const int r : {64, 128})
                for (const int s : {2, 3, 4})
                    for (const int per_sm : {1, 2, 3, 4}) c.push_back({layout, w, r, s, per_sm, 4096, 0});
    // P V itself: W = 64, S = 2, with V's tile from the L2 (d = 64: 4 KiB per step; d = 128: 8 KiB).
    for (const int l2 : {4096, 8192})
        for (const int r : {64, 128})
            for (const int per_sm : {1, 2, 3, 4}) c.push_back({"strided", 64, r, 2, per_sm, 4096, l2});
    // Rows 32 KiB apart (N = 16384): does the distance between the rows matter?
    for (const int r : {64, 128})
        for (const int per_sm : {1, 2, 3, 4}) c.push_back({"strided", 64, r, 2, per_sm, 32768, 0});
    return c;
}

}  // namespace tilescope::segment_probe
