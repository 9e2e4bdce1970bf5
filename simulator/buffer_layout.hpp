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
    std::int64_t min_chunk_bytes = 0;
};

// Validates every region against its launch's buffers (index, non-negative offsets, in bounds).
// When `scan_programs` is false (L2 off) the programs are not walked and every chunk is the
// maximum; the validation then happens during simulation.
Result<BufferLayout> make_buffer_layout(const std::vector<Launch>& launches, const Hardware& hw,
                                        bool scan_programs);

// Checks one region of `launch`; the message names the launch, the step and the limit.
Result<bool> check_region(const Launch& launch, const Region& region, std::int64_t item);

}  // namespace tilescope::sim
