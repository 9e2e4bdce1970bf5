// Device buffer fills used by the harness and the tests (host API, no CUDA headers):
// deterministic uniform random values (counter-based hash, so any seed gives fresh data) and
// NaN poisoning of outputs before a run.
#pragma once

#include <cstdint>

#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope::kern {

Status fill_uniform(void* data, std::int64_t count, DType dtype, std::uint64_t seed, float lo, float hi,
                    void* stream = nullptr);
Status fill_nan(void* data, std::int64_t count, DType dtype, void* stream = nullptr);
// Reads `bytes` (multiple of 16) once, leaving L2 full of clean lines of that buffer: an L2
// flush that causes no write-backs afterwards.
Status launch_l2_flush(const void* data, std::int64_t bytes, void* stream = nullptr);

}  // namespace tilescope::kern
