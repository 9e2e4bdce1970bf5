// BufferLayout: the buffers of all launches of one prediction, matched by name (launch 1's "S" is
// launch 2's "S", so dirty data carries over), and the L2 chunk size of each.
//
// The chunk size of a buffer is the largest power of two that divides every row start and row
// length of every load/store that touches it (a contiguous region counts as one row), clamped to
// [L2 sector, 64 KiB]. Worked example: flash2, d = 64 fp16, Bc = 64: a K tile is 64 rows x 128 B
// with stride 128 B, i.e. 8192 contiguous bytes at a multiple of 8192 -> chunk 8192 B, one L2
// lookup per tile. With seq 1000 the last tile is 40 rows (5120 B) -> chunk 1024 B.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "core/launch.hpp"
#include "core/result.hpp"

namespace tilescope::sim {

struct BufferLayout {
    std::vector<std::string> names;             // global buffer id -> name
    std::vector<std::int64_t> bytes;            // largest size any launch declares
    std::vector<std::int64_t> chunk_bytes;      // L2 chunk size
    std::vector<std::vector<std::uint32_t>> ids;  // [launch][local buffer index] -> global id
    std::vector<char> at_floor;                 // chunk is the sector floor: never too large
    std::int64_t min_chunk_bytes = 0;
};

enum class LayoutScan { none, sampled, full };

// Validates the regions it walks against their launch's buffers (index, non-negative offsets,
// in bounds). Scans: `none` (L2 off: every chunk is the maximum, regions are validated during
// simulation), `full` (every work item), `sampled` (launches of more than 4,096 work items: the
// first and last 1,024 items and 2,048 spread between; generating every program twice cost a
// fifth of the run time). A sampled layout can only pick chunks that are too large, never too
// small; the engine checks every access against it and simulate() reruns with a full scan if
// one breaks it, so the result always equals the full scan's.
Result<BufferLayout> make_buffer_layout(const std::vector<Launch>& launches, const Hardware& hw,
                                        LayoutScan scan);

// Checks one region of `launch`; the message names the launch, the step and the limit.
Result<bool> check_region(const Launch& launch, const Region& region, std::int64_t item);

}  // namespace tilescope::sim
