#include "gui/views/live.hpp"

#include <QFile>

#include "core/result_io.hpp"
#ifdef TILESCOPE_HAVE_CUDA
#include "kernels/measure/measure.hpp"
#endif

namespace tilescope::gui {

bool gpu_support_built() {
#ifdef TILESCOPE_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

GpuAvailability gpu_run_availability() {
#ifdef TILESCOPE_HAVE_CUDA
    const Status status = kern::gpu_status();
    if (!status.ok()) return {false, QStringLiteral("Run on GPU is unavailable: ") + QString::fromStdString(status.error().message)};
    return {true, QStringLiteral("Measure this workload on the GPU with CUPTI counters")};
#else
    return {false, QStringLiteral("Run on GPU is unavailable: tilescope-gui was built without CUDA "
                                  "(configure with a CUDA toolkit so the target tilescope_kernels exists)")};
#endif
}

Result<std::vector<Prediction>> load_measurement_file(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return make_error("cannot open measurement " + path.toStdString() + ": " + file.errorString().toStdString());
    const QByteArray bytes = file.readAll();
    // One JSON document first; otherwise JSON Lines.
    auto whole = prediction_from_json(bytes.toStdString());
    if (whole) return std::vector<Prediction>{whole.value()};
    std::vector<Prediction> out;
    std::string first_error;
    int json_lines = 0;
    for (const QByteArray& raw : bytes.split('\n')) {
        const QByteArray line = raw.trimmed();
        if (!line.startsWith('{')) continue;  // blank lines and "# ..." comments
        ++json_lines;
        auto p = prediction_from_json(line.toStdString());
        if (p) out.push_back(std::move(p).value());
        else if (first_error.empty()) first_error = p.error().message;
    }
    if (out.empty()) {
        const std::string why = json_lines <= 1 ? whole.error().message : first_error;
        return make_error("measurement " + path.toStdString() + ": " + why);
    }
    return out;
}

Result<Prediction> run_on_gpu(const Workload& workload, const std::string& gpu_label) {
#ifdef TILESCOPE_HAVE_CUDA
    kern::MeasureOptions options;
    options.gpu_label = gpu_label;
    return kern::measure(workload, options);
#else
    (void)workload;
    (void)gpu_label;
    return make_error("tilescope-gui was built without CUDA");
#endif
}

}  // namespace tilescope::gui
