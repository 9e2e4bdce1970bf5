#include "gui/views/live.hpp"

#include <QFile>

#include "core/result_io.hpp"
#ifdef TILESCOPE_HAVE_CUDA
#include "kernels/measure.hpp"
#endif

namespace tilescope::gui {

GpuAvailability gpu_run_availability() {
#ifdef TILESCOPE_HAVE_CUDA
    const Status status = kernels::gpu_status();
    if (!status.ok()) return {false, QStringLiteral("Run on GPU is unavailable: ") + QString::fromStdString(status.error().message)};
    return {true, QStringLiteral("Measure this workload on the GPU with CUPTI counters")};
#else
    return {false, QStringLiteral("Run on GPU is unavailable: tilescope-gui was built without CUDA "
                                  "(configure with a CUDA toolkit so the target tilescope_kernels exists)")};
#endif
}

Result<Prediction> load_measurement_file(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return make_error("cannot open measurement " + path.toStdString() + ": " + file.errorString().toStdString());
    const QByteArray bytes = file.readAll();
    auto parsed = prediction_from_json(bytes.toStdString());
    if (!parsed) return make_error("measurement " + path.toStdString() + ": " + parsed.error().message);
    return parsed;
}

Result<Prediction> run_on_gpu(const Workload& workload) {
#ifdef TILESCOPE_HAVE_CUDA
    return kernels::measure(workload, kernels::MeasureOptions{});
#else
    (void)workload;
    return make_error("tilescope-gui was built without CUDA");
#endif
}

}  // namespace tilescope::gui
