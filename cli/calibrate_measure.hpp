// Measuring the validation data set on the local GPU (CUDA builds with the kernels library):
// microbenchmarks first, then every case of validate/dataset_cases.hpp (or only the training
// cases), one JSON object per line, flushed per case so a killed run keeps what it measured.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace tilescope {

struct MeasureDatasetResult {
    int code = 0;              // 0 ok; else the exit code: 2 bad input, 3 no GPU / permission, 1 internal
    std::string message;
    std::size_t records = 0;   // lines written
};

MeasureDatasetResult measure_dataset(const std::string& path, bool training_only, int repeats, std::ostream& log);

}  // namespace tilescope
