// `tilescope sweep`: the cartesian product of workload flag lists/ranges (x --gpu list), predicted
// on all cores. Output CSV (one header row) or JSON Lines, in input order whatever --jobs is.
// A configuration that is invalid or does not fit the GPU is a row with status "illegal" and the
// reason, not an abort. Progress goes to stderr only when stderr is a terminal.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/models.hpp"
#include "cli/workload_options.hpp"
#include "core/result_io.hpp"

namespace po = boost::program_options;

namespace tilescope {
namespace {

constexpr std::size_t kMaxConfigurations = 10'000'000;
constexpr std::size_t kChunk = 8192;

struct Job {
    const std::vector<WorkloadSpec>* specs;
    const std::vector<Hardware>* gpus;
    std::string model;
    bool jsonl;
    ModelOptions model_options;
};

std::string row_for(const Job& job, std::size_t index) {
    const WorkloadSpec& spec = (*job.specs)[index % job.specs->size()];
    const Hardware& hw = (*job.gpus)[index / job.specs->size()];
    auto w = make_workload(spec);
    if (!w)
        return job.jsonl ? json_line_illegal(spec, job.model, hw.name, w.error().message)
                         : csv_row_illegal(spec, job.model, hw.name, w.error().message);
    auto p = predict_with_model(job.model, *w, hw, job.model_options);
    if (!p)
        return job.jsonl ? json_line_illegal(*w, job.model, hw.name, p.error().message)
                         : csv_row_illegal(*w, job.model, hw.name, p.error().message);
    return job.jsonl ? to_json_line(*p) : csv_row(*p);
}

}  // namespace

int run_sweep(int argc, char** argv) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    po::options_description general("Options");
    general.add_options()("help,h", "show this help")(
        "gpu", po::value<std::string>()->default_value("a100-40gb"), "profile name(s) or path(s), comma-separated")(
        "model", po::value<std::string>()->default_value(default_model()), "prediction model")(
        "format", po::value<std::string>()->default_value("csv"), "csv | jsonl")(
        "out", po::value<std::string>()->default_value(""), "write to this file instead of stdout")(
        "jobs,j", po::value<int>()->default_value(static_cast<int>(cores)), "worker threads");
    add_model_options(general);
    po::options_description all;
    all.add(workload_options("Workload (each flag takes a list a,b,c and/or ranges 64:512:*2, 512:4096:+512)"))
        .add(general);
    po::variables_map vm;
    if (Status s = parse_command_line(argc, argv, all, vm); !s) return cli_fail(2, s.error().message);
    if (vm.count("help")) {
        print_help(std::cout, "tilescope sweep --kernel K [--seq 1024,2048 --tile-m 32:128:*2 ...] [--format csv|jsonl]",
                   all);
        return 0;
    }
    const std::string format = vm["format"].as<std::string>();
    if (format != "csv" && format != "jsonl") return cli_fail(2, "--format must be csv or jsonl (got '" + format + "')");
    const int jobs = vm["jobs"].as<int>();
    if (jobs < 1 || jobs > 1024) return cli_fail(2, "--jobs must be in [1, 1024] (got " + std::to_string(jobs) + ")");
    const std::string model = vm["model"].as<std::string>();
    auto model_options = model_options_from(vm);
    if (!model_options) return cli_fail(2, model_options.error().message);
    const auto models = available_models();
    if (std::find(models.begin(), models.end(), model) == models.end()) {
        std::string list;
        for (const auto& m : models) list += (list.empty() ? "" : ", ") + m;
        return cli_fail(2, "--model must be one of " + list + " (got '" + model + "')");
    }
    auto specs = workload_specs_from(vm, kMaxConfigurations);
    if (!specs) return cli_fail(2, specs.error().message);
    std::vector<Hardware> gpus;
    for (const std::string& g : split_commas(vm["gpu"].as<std::string>())) {
        auto hw = load_hardware(g);
        if (!hw) return cli_fail(2, hw.error().message);
        gpus.push_back(std::move(*hw));
    }
    const std::size_t total = specs->size() * gpus.size();
    if (total > kMaxConfigurations)
        return cli_fail(2, "the sweep has " + std::to_string(total) + " configurations; the limit is " +
                               std::to_string(kMaxConfigurations));

    const std::string out_path = vm["out"].as<std::string>();
    std::ofstream file;
    if (!out_path.empty() && out_path != "-") {
        file.open(out_path, std::ios::binary);
        if (!file) return cli_fail(2, "--out: cannot open '" + out_path + "' for writing");
    }
    std::ostream& out = file.is_open() ? static_cast<std::ostream&>(file) : std::cout;
    const bool jsonl = format == "jsonl";
    if (!jsonl) out << csv_header() << "\n";

    const Job job{&*specs, &gpus, model, jsonl, *model_options};
    const bool progress = isatty(STDERR_FILENO) != 0;
    std::vector<std::string> rows;
    std::string failure;
    std::mutex failure_mutex;
    std::size_t ok_rows = 0;
    for (std::size_t base = 0; base < total; base += kChunk) {
        const std::size_t n = std::min(kChunk, total - base);
        rows.assign(n, std::string());
        std::atomic<std::size_t> next{0};
        auto worker = [&] {
            try {
                for (std::size_t i = next++; i < n; i = next++) rows[i] = row_for(job, base + i);
            } catch (const std::exception& e) {
                std::lock_guard<std::mutex> lock(failure_mutex);
                failure = e.what();
            }
        };
        const std::size_t threads = std::min<std::size_t>(static_cast<std::size_t>(jobs), n);
        std::vector<std::thread> pool;
        for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
        worker();
        for (auto& t : pool) t.join();
        if (!failure.empty()) return cli_fail(1, "internal failure in sweep: " + failure);
        for (const std::string& r : rows) {
            out << r << "\n";
            if (jsonl ? r.find("\"status\":\"ok\"") != std::string::npos : r.size() >= 4 && r.compare(r.size() - 4, 4, ",ok,") == 0)
                ++ok_rows;
        }
        if (progress) std::cerr << "\rsweep: " << base + n << "/" << total << " configurations" << std::flush;
    }
    out.flush();
    if (!out) return cli_fail(2, "--out: cannot write '" + out_path + "'");
    if (progress) std::cerr << "\rsweep: " << total << " configurations, " << ok_rows << " ok, " << total - ok_rows
                            << " illegal\n";
    return 0;
}

}  // namespace tilescope
