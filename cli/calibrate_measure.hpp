// Measuring the validation data set on the local GPU (CUDA builds with the kernels library):
// microbenchmarks first, then the cases of validate/dataset_cases.hpp (all, or only the
// training cases) from the cheapest to the most expensive (by the analytic model's time on
// `hw`), one JSON object per line, flushed per case, so a run stopped by its time budget
// (or killed) keeps everything measured so far and says in the file what it skipped.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "core/hardware.hpp"

namespace tilescope {

struct MeasureDatasetResult {
    int code = 0;              // 0 ok; else the exit code: 2 bad input, 3 no GPU / permission, 1 internal
    std::string message;
    std::size_t records = 0;   // lines written
};

struct MeasureDatasetOptions {
    bool training_only = false;
    bool microbench_only = false;  // the microbenchmarks, no cases
    int repeats = 5;           // timed repeats per case (median)
    int warmup = 2;
    bool counters = true;      // false: time only (CUPTI not used; byte metrics NaN), e.g. to re-time a data set
    double time_budget_s = 0;  // 0 = none; else cases left when it runs out are written as skipped
    std::vector<std::string> cases_matching;  // non-empty: only the cases whose name contains one of them
};

MeasureDatasetResult measure_dataset(const std::string& path, const Hardware& hw,
                                     const MeasureDatasetOptions& options, std::ostream& log);

}  // namespace tilescope
