#include "cli/calibrate_measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>

#include "core/analytic.hpp"
#include "core/lower.hpp"
#include "core/result_io.hpp"
#include "validate/dataset.hpp"
#include "validate/dataset_cases.hpp"
#include "validate/split.hpp"

#ifdef TILESCOPE_HAVE_CUDA
#include <boost/json.hpp>

#include "kernels/measure/measure.hpp"
#include "kernels/microbench/microbench.hpp"
#endif

namespace tilescope {

#ifndef TILESCOPE_HAVE_CUDA

MeasureDatasetResult measure_dataset(const std::string&, const Hardware&, const MeasureDatasetOptions&,
                                     std::ostream&) {
    return {3,
            "this tilescope was built without CUDA, so it cannot measure; build with CUDA on a GPU "
            "machine, or pass --from FILE.jsonl with measurements taken elsewhere",
            0};
}

#else

namespace {

std::string nvidia_driver_version() {
    std::ifstream f("/proc/driver/nvidia/version");
    std::string line;
    std::getline(f, line);
    return line;
}

std::string skip_line(const std::string& status, const std::string& name, const std::string& reason) {
    boost::json::object o;
    o["status"] = status;
    o["case"] = name;
    o["reason"] = reason;
    return boost::json::serialize(o);
}

}  // namespace

MeasureDatasetResult measure_dataset(const std::string& path, const Hardware& hw,
                                     const MeasureDatasetOptions& options, std::ostream& log) {
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };

    const kern::GpuCheck gpu = kern::check_gpu(options.counters);
    if (gpu.state == kern::GpuState::no_gpu || gpu.state == kern::GpuState::no_permission)
        return {3, gpu.message, 0};
    if (gpu.state != kern::GpuState::ok) return {1, gpu.message, 0};

    // Cases, cheapest first by the analytic model (so a time budget drops the most expensive).
    struct Item {
        Workload w;
        std::string name;
        double cost_ns;
    };
    std::vector<Item> items;
    auto cases = validate::dataset_cases(options.training_only, options.cases_matching);
    if (!cases) return {options.cases_matching.empty() ? 1 : 2, cases.error().message, 0};
    for (const Workload& w : *cases) {
        double cost = 0;
        if (auto l = lower(w, hw); l) cost = analytic(w, *l, hw).total[Metric::gpu_time_duration];
        items.push_back({w, validate::case_name(w), cost});
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.cost_ns < b.cost_ns; });

    std::ofstream out(path, std::ios::binary);
    if (!out) return {2, "cannot write " + path, 0};
    MeasureDatasetResult result;
    auto emit = [&](const std::string& line) {
        out << line << "\n";
        out.flush();
        ++result.records;
    };
    out << "# tilescope calibrate --measure-dataset: " << gpu.gpu_name << ", " << nvidia_driver_version() << "\n";

    // Microbenchmarks (names as validate/dataset.hpp documents them).
    struct Bench {
        const char* name;
        std::function<Result<kern::MicrobenchResult>()> run;
    };
    const std::int64_t l2_fit = std::max<std::int64_t>(hw.l2_bytes / 4, 1 << 20);
    const Bench benches[] = {
        {"hbm_bandwidth", [] { return kern::bench_hbm_copy(std::int64_t{2} << 30, 20); }},
        {"l2_bandwidth", [&] { return kern::bench_l2_read(l2_fit, 20); }},
        {"smem_bandwidth", [] { return kern::bench_smem_read(20); }},
        {"l2_latency", [&] { return kern::bench_latency(l2_fit / 2, 200000); }},
        {"hbm_latency", [] { return kern::bench_latency(std::int64_t{512} << 20, 200000); }},
        {"tensor_fp16", [] { return kern::bench_tensor_peak(20); }},
        {"launch_overhead", [] { return kern::bench_launch_overhead(50); }},
    };
    for (const Bench& b : benches) {
        auto r = b.run();
        if (!r) {
            log << "microbench " << b.name << ": " << r.error().message << "\n";
            emit(skip_line("error", std::string("microbench:") + b.name, r.error().message));
            continue;
        }
        emit(validate::microbench_json({b.name, r->value, r->unit}));
        log << "microbench " << b.name << " = " << r->value << " " << r->unit << "\n";
    }

    if (options.microbench_only) return result;

    kern::MeasureOptions mo;
    mo.repeats = options.repeats;
    mo.warmup = options.warmup;
    mo.counters = options.counters;
    mo.gpu_label = hw.name;
    auto measurer = kern::Measurer::create(mo);
    if (!measurer) return {1, measurer.error().message, result.records};
    const std::string driver = nvidia_driver_version();
    std::size_t done = 0, failed = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const Item& it = items[i];
        if (options.time_budget_s > 0 && elapsed_s() > options.time_budget_s) {
            emit(skip_line("skipped", it.name, "time budget of " + std::to_string(options.time_budget_s) + " s used up"));
            continue;
        }
        auto m = (*measurer)->measure(it.w);
        if (!m) {
            ++failed;
            log << "[" << i + 1 << "/" << items.size() << "] " << it.name << ": " << m.error().message << "\n";
            emit(skip_line("error", it.name, m.error().message));
            continue;
        }
        if (!driver.empty()) m->provenance["nvidia_driver"] = driver;
        emit(to_json_line(*m));
        ++done;
        char buf[160];
        std::snprintf(buf, sizeof buf, "[%zu/%zu] %.1f s  t=%.0f ns  ", i + 1, items.size(), elapsed_s(),
                      m->total[Metric::gpu_time_duration]);
        log << buf << it.name << "\n";
    }
    log << "measured " << done << " cases, " << failed << " failed, in " << elapsed_s() << " s\n";
    if (done == 0) return {1, "no case could be measured (see " + path + ")", result.records};
    return result;
}

#endif

}  // namespace tilescope
