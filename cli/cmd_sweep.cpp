// `tilescope sweep`: the cartesian product of workload flag lists/ranges (x --gpu list), predicted
// on all cores. Output CSV (one header row) or JSON Lines, in input order whatever --jobs is.
// A configuration that is invalid or does not fit the GPU is a row with status "illegal" and the
// reason, not an abort. Progress goes to stderr only when stderr is a terminal.
// With --rank every row also gets its tile's rank among the tiles of the same workload, GPU and
// model (1 = the fastest predicted) and its predicted time over the fastest one's, minus 1: the
// rows are then held until the sweep ends, so --rank takes at most kMaxRanked configurations.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/models.hpp"
#include "cli/workload_options.hpp"
#include "core/metrics.hpp"
#include "core/result_io.hpp"

namespace po = boost::program_options;

namespace tilescope {
namespace {

constexpr std::size_t kMaxConfigurations = 10'000'000;
constexpr std::size_t kMaxRanked = 1'000'000;
constexpr std::size_t kChunk = 8192;

struct Job {
    const std::vector<WorkloadSpec>* specs;
    const std::vector<Hardware>* gpus;
    std::string model;
    bool jsonl;
    ModelOptions model_options;
};

// What --rank needs of a row: the group it is ranked in (its workload with the tile fields reset,
// its GPU and model) and its predicted time (NaN for an illegal row, which is not ranked).
struct RankInfo {
    std::string group;
    double time_ns = std::numeric_limits<double>::quiet_NaN();
};

std::string row_for(const Job& job, std::size_t index, RankInfo* rank) {
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
    if (rank != nullptr) {
        Workload shape = *w;
        shape.tile = Tile{};
        rank->group = hw.name + "|" + job.model + "|" + workload_json(shape);
        rank->time_ns = p->total[Metric::gpu_time_duration];
    }
    return job.jsonl ? to_json_line(*p) : csv_row(*p);
}

// Competition ranks (ties share the better rank) by predicted time within each group, and each
// row's time over its group's fastest, minus 1; rank 0 for rows without a time.
void rank_rows(const std::vector<RankInfo>& info, std::vector<std::size_t>& rank, std::vector<double>& over) {
    std::map<std::string, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < info.size(); ++i)
        if (std::isfinite(info[i].time_ns)) groups[info[i].group].push_back(i);
    rank.assign(info.size(), 0);
    over.assign(info.size(), std::numeric_limits<double>::quiet_NaN());
    for (auto& [key, members] : groups) {
        std::stable_sort(members.begin(), members.end(),
                         [&](std::size_t a, std::size_t b) { return info[a].time_ns < info[b].time_ns; });
        const double best = info[members.front()].time_ns;
        for (std::size_t k = 0; k < members.size(); ++k) {
            const std::size_t i = members[k];
            rank[i] = (k > 0 && info[i].time_ns == info[members[k - 1]].time_ns) ? rank[members[k - 1]] : k + 1;
            over[i] = best > 0 ? info[i].time_ns / best - 1.0 : std::numeric_limits<double>::quiet_NaN();
        }
    }
}

// The row with --rank's two fields appended (CSV columns, or JSON members before the closing brace).
std::string with_rank(const std::string& row, bool jsonl, std::size_t rank, double over) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", over);
    const bool has = rank > 0 && std::isfinite(over);
    if (!jsonl) return row + "," + (has ? std::to_string(rank) : "") + "," + (has ? buf : "");
    const std::size_t close = row.rfind('}');
    if (close == std::string::npos) return row;
    return row.substr(0, close) + ",\"tile_rank\":" + (has ? std::to_string(rank) : "null") +
           ",\"time_over_best\":" + (has ? buf : "null") + row.substr(close);
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
        "jobs,j", po::value<int>()->default_value(static_cast<int>(cores)), "worker threads")(
        "rank", "add tile_rank (1 = fastest predicted tile of the same workload, GPU and model) and "
                "time_over_best (predicted time / the fastest's - 1); holds the rows until the end");
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
    if (Status s = model_accepts(model, *model_options); !s) return cli_fail(2, s.error().message);
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

    const bool ranked = vm.count("rank") > 0;
    if (ranked && total > kMaxRanked)
        return cli_fail(2, "--rank: the sweep has " + std::to_string(total) + " configurations; --rank takes at most " +
                               std::to_string(kMaxRanked) + " (it holds every row until the end)");

    const std::string out_path = vm["out"].as<std::string>();
    std::ofstream file;
    if (!out_path.empty() && out_path != "-") {
        file.open(out_path, std::ios::binary);
        if (!file) return cli_fail(2, "--out: cannot open '" + out_path + "' for writing");
    }
    std::ostream& out = file.is_open() ? static_cast<std::ostream&>(file) : std::cout;
    const bool jsonl = format == "jsonl";
    if (!jsonl) out << csv_header() << (ranked ? ",tile_rank,time_over_best" : "") << "\n";

    const Job job{&*specs, &gpus, model, jsonl, *model_options};
    const bool progress = isatty(STDERR_FILENO) != 0;
    std::vector<std::string> rows;
    std::vector<RankInfo> rank_info;     // --rank: the current chunk's
    std::vector<std::string> held_rows;  // --rank: every row, written at the end
    std::vector<RankInfo> held_info;
    std::string failure;
    std::mutex failure_mutex;
    std::size_t ok_rows = 0;
    for (std::size_t base = 0; base < total; base += kChunk) {
        const std::size_t n = std::min(kChunk, total - base);
        rows.assign(n, std::string());
        if (ranked) rank_info.assign(n, RankInfo{});
        std::atomic<std::size_t> next{0};
        auto worker = [&] {
            try {
                for (std::size_t i = next++; i < n; i = next++)
                    rows[i] = row_for(job, base + i, ranked ? &rank_info[i] : nullptr);
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
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const std::string& r = rows[i];
            if (jsonl ? r.find("\"status\":\"ok\"") != std::string::npos : r.size() >= 4 && r.compare(r.size() - 4, 4, ",ok,") == 0)
                ++ok_rows;
            if (ranked) {
                held_rows.push_back(r);
                held_info.push_back(std::move(rank_info[i]));
            } else {
                out << r << "\n";
            }
        }
        if (progress) std::cerr << "\rsweep: " << base + n << "/" << total << " configurations" << std::flush;
    }
    if (ranked) {
        std::vector<std::size_t> rank;
        std::vector<double> over;
        rank_rows(held_info, rank, over);
        for (std::size_t i = 0; i < held_rows.size(); ++i) out << with_rank(held_rows[i], jsonl, rank[i], over[i]) << "\n";
    }
    out.flush();
    if (!out)
        return cli_fail(2, file.is_open() ? "--out: cannot write '" + out_path + "'" : std::string("cannot write to standard output"));
    if (progress) std::cerr << "\rsweep: " << total << " configurations, " << ok_rows << " ok, " << total - ok_rows
                            << " illegal\n";
    return 0;
}

}  // namespace tilescope
