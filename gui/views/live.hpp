// Live data: load a `tilescope measure` JSON file, and run the workload on the GPU when this
// build has the CUDA kernels (TILESCOPE_HAVE_CUDA, set by gui/CMakeLists.txt when the target
// tilescope_kernels and kernels/measure/measure.hpp exist).
#pragma once

#include <QString>

#include <vector>

#include "core/prediction.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope::gui {

struct GpuAvailability {
    bool available = false;
    QString reason;  // why "Run on GPU" is disabled (tooltip)
};

// Was this build linked with the CUDA kernels?
bool gpu_support_built();
// Built with CUDA and a GPU with profiling permission present? Initialises CUDA and runs a tiny
// kernel under CUPTI: call from a worker thread.
GpuAvailability gpu_run_availability();

// Reads a measurement (or prediction) file written by `tilescope measure`: one JSON object, or
// JSON Lines with one measurement per line (a measured data set such as
// profiles/validation/*.jsonl; lines that are not measurements, e.g. microbenchmarks or
// comments, are skipped). Error when the file holds no measurement.
Result<std::vector<Prediction>> load_measurement_file(const QString& path);

// Measures the workload on the GPU (blocking: call from a worker thread). `gpu_label` names the
// profile the measurement is compared with.
Result<Prediction> run_on_gpu(const Workload& workload, const std::string& gpu_label);

}  // namespace tilescope::gui
