// `tilescope calibrate`: fit the simulator's free parameters to measurements and write a
// calibrated profile (same schema as profiles/*.json + "calibration" + "provenance").
//
//   tilescope calibrate --gpu h100-sxm --from FILE.jsonl --out profiles/calibrated/h100-sxm.json
//   tilescope calibrate --gpu h100-sxm --out ...            (CUDA build + GPU: measures first)
//   tilescope calibrate --gpu h100-sxm --measure-dataset FILE.jsonl   (CUDA: measure only)
//
// The fit uses TRAINING cases only (validate/split.hpp); see validate/calibrate.hpp for the
// parameters and the objective. --out also writes the fit report (parameters, residuals per
// training case, provenance; JSON) to --fit-report or <out stem>.fit-report.
#include <boost/program_options.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli/calibrate_measure.hpp"
#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/models.hpp"
#include "cli/workload_options.hpp"
#include "core/hardware.hpp"
#include "validate/build_info.hpp"
#include "validate/calibrate.hpp"
#include "validate/dataset.hpp"

namespace po = boost::program_options;

namespace tilescope {

namespace {

bool write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    return static_cast<bool>(f);
}

// Whether `path` could be written after the fit, checked before it so that a bad --out or
// --fit-report costs seconds, not the fit: not a directory, its directories can be made, the
// file opens for appending. Nothing is left behind: an existing file is not truncated, and a
// file or directories made here are removed again.
Status check_writable(const std::string& flag, const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (path.empty()) return make_error(flag + " has an empty value");
    if (fs::is_directory(path, ec)) return make_error(flag + ": '" + path.string() + "' is a directory");
    fs::path first_missing;  // the outermost directory that create_directories makes
    for (fs::path p = path.parent_path(); !p.empty() && p != p.parent_path() && !fs::exists(p, ec); p = p.parent_path())
        first_missing = p;
    Status result;
    if (path.has_parent_path() && !fs::create_directories(path.parent_path(), ec) && ec) {
        result = make_error(flag + ": cannot create directory '" + path.parent_path().string() + "' (" + ec.message() + ")");
    } else {
        const bool existed = fs::exists(path, ec);
        if (!std::ofstream(path, std::ios::binary | std::ios::app).is_open())
            result = make_error(flag + ": cannot open '" + path.string() + "' for writing");
        if (!existed) fs::remove(path, ec);
    }
    if (!first_missing.empty())
        for (fs::path p = path.parent_path();; p = p.parent_path()) {
            fs::remove(p, ec);  // only if empty: made above
            if (p == first_missing) break;
        }
    return result;
}

}  // namespace

int run_calibrate(int argc, char** argv) {
    const validate::CalibrateOptions defaults;
    std::string default_fit;
    for (const auto& f : defaults.fit) default_fit += (default_fit.empty() ? "" : ",") + f;
    po::options_description opts("tilescope calibrate options");
    opts.add_options()
        ("help,h", "show this help")
        ("gpu", po::value<std::string>(), "base profile name or path (datasheet numbers), e.g. h100-sxm")
        ("from", po::value<std::string>(), "JSONL of earlier measurements (skip measuring)")
        ("measure-dataset", po::value<std::string>(),
         "CUDA builds: measure microbenchmarks + every data-set case into this JSONL file and stop")
        ("microbench-only", "with --measure-dataset: the microbenchmarks only (seconds), no cases")
        ("cases-matching", po::value<std::vector<std::string>>()->composing(),
         "with --measure-dataset: only the data-set cases whose name contains this text (e.g. "
         "'softmax/fp16/safe/r8192/c1024|'); repeatable (any one matches). To measure cases added to "
         "validate/dataset_cases.cpp and append them to a data set; the microbenchmarks still run")
        ("also-train", po::value<std::vector<std::string>>()->composing(),
         "a JSONL of extra measured cases (e.g. a residency series) that all join the time fit, "
         "whatever their hash; repeatable. Refused if a case shares a held-out sweep's shape; "
         "cases of a kernel family with no training case are left out (listed in the fit report)")
        ("out", po::value<std::string>(), "calibrated profile to write (default: stdout)")
        ("fit-report", po::value<std::string>(),
         "with --out: where the fit report (JSON: parameters, residuals, provenance) goes; default "
         "<out without .json>.fit-report (no .json suffix: `tilescope profiles` reads every *.json of "
         "profiles/calibrated/ as a profile)")
        ("model", po::value<std::string>()->default_value("sim"), "model whose parameters are fitted")
        ("exact", po::bool_switch(),
         "sim: predict the fit cases with every iteration of every block simulated (no coarsening of "
         "long launches; slower); the profile's provenance records it")
        ("fit", po::value<std::string>()->default_value(default_fit),
         "comma-separated Calibration fields to fit (efficiencies without a microbenchmark are added)")
        ("start", po::value<std::string>(),
         "where the search starts, NAME=VALUE,... for fitted parameters (e.g. an earlier fit's result); "
         "without it, the base profile's values (an uncalibrated base: the tensor and FP32 efficiencies "
         "at their microbenchmarks)")
        ("method", po::value<std::string>()->default_value("lm"),
         "lm (Levenberg-Marquardt on the per-case log errors; a Jacobian costs one evaluation per fitted "
         "parameter, predicted side by side) or nelder-mead")
        ("max-evals", po::value<int>()->default_value(defaults.max_evaluations),
         "parameter points evaluated (each predicts every fit case)")
        ("max-fit-cases", po::value<int>()->default_value(0),
         "0 = every training case, else this many training cases, the cheapest to simulate")
        ("min-per-family", po::value<int>()->default_value(0),
         "with --max-fit-cases: at least this many training cases of every kernel family (its cheapest)")
        ("fit-include", po::value<std::vector<std::string>>()->composing(),
         "with --max-fit-cases: the training cases whose name contains this text join the fit set as "
         "well, whatever their cost (e.g. a whole sweep, 'attention-naive/fp16/b8/h32/n2048/'); "
         "repeatable. Refused if it names no training case")
        ("within-sweep-weight", po::value<double>()->default_value(0.0),
         "fitting: weight w in [0, 100] of the within-sweep residuals: each fit case of a sweep with two or "
         "more fit cases adds w x (its ln(t_pred/t_meas) - the sweep's mean), so the fit also weighs "
         "how tiles rank against each other (0 = none)")
        ("hold-unfitted", po::bool_switch(),
         "fitting a calibrated base profile: every field not in --fit keeps the base's value (the "
         "microbenchmarks are references only and no efficiency joins the fit on its own)")
        ("repeats", po::value<int>()->default_value(5), "measuring: timed repeats per case (median)")
        ("warmup", po::value<int>()->default_value(2), "measuring: untimed warm-up runs per case")
        ("no-counters", "measuring: time only, no CUPTI pass (byte metrics are NaN); for re-timing a data set "
                        "whose counters were measured before (validate/scripts/retime_merge.py)")
        ("time-budget-s", po::value<double>()->default_value(0.0),
         "measuring: stop starting new cases after this many seconds (0 = no limit); the rest are listed as skipped")
        ("fit-budget-s", po::value<double>()->default_value(0.0),
         "fitting: stop the search after this many seconds, keeping the best point (0 = no limit)")
        ("no-lrc-fit", "do not fit the L2 request coalescer (lrc_* fields) to the training flash2 and GEMM cases' L2 bytes")
        ("lrc-loss", po::value<double>(),
         "hold the coalescer's loss per iteration (lrc_lock_loss_per_iteration) at this value and fit only its two "
         "probabilities (3 predictions per case instead of 33)")
        ("jobs", po::value<int>()->default_value(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
         "prediction threads");
    po::variables_map vm;
    if (Status parsed = parse_command_line(argc, argv, opts, vm); !parsed)
        return cli_fail(2, "calibrate: " + parsed.error().message);
    if (vm.count("help") != 0) {
        std::cout << "usage: tilescope calibrate --gpu PROFILE [--from FILE.jsonl] [--out FILE.json] [options]\n"
                  << opts
                  << "\nFits on training cases only (train iff FNV-1a-64 of the case's sweep key is even).\n"
                     "Exit codes: 0 ok, 2 bad input, 3 no GPU / no profiling permission, 1 internal failure.\n";
        return 0;
    }
    if (vm.count("gpu") == 0) return cli_fail(2, "calibrate: --gpu is required");
    auto base = load_hardware(vm["gpu"].as<std::string>());
    if (!base) return cli_fail(2, base.error().message);
    const int jobs = vm["jobs"].as<int>();
    if (jobs < 1 || jobs > 1024) return cli_fail(2, "calibrate: --jobs must be in [1, 1024] (got " + std::to_string(jobs) + ")");
    const int max_evals = vm["max-evals"].as<int>();
    if (max_evals < 1 || max_evals > 100000)
        return cli_fail(2, "calibrate: --max-evals must be in [1, 100000] (got " + std::to_string(max_evals) + ")");
    const int max_fit_cases = vm["max-fit-cases"].as<int>();
    if (max_fit_cases < 0) return cli_fail(2, "calibrate: --max-fit-cases must be >= 0 (got " + std::to_string(max_fit_cases) + ")");
    const int min_per_family = vm["min-per-family"].as<int>();
    if (min_per_family < 0 || min_per_family > 100000)
        return cli_fail(2, "calibrate: --min-per-family must be in [0, 100000] (got " + std::to_string(min_per_family) + ")");
    if (min_per_family > 0 && max_fit_cases == 0)
        return cli_fail(2, "calibrate: --min-per-family needs --max-fit-cases N (without it every training case is fitted)");
    if (vm.count("fit-include") != 0) {
        if (max_fit_cases == 0)
            return cli_fail(2, "calibrate: --fit-include needs --max-fit-cases N (without it every training case is fitted)");
        for (const std::string& t : vm["fit-include"].as<std::vector<std::string>>())
            if (t.empty()) return cli_fail(2, "calibrate: --fit-include must not be empty");
    }
    // The measuring options do nothing with --from: refused rather than ignored.
    if (vm.count("from") != 0)
        for (const char* flag : {"no-counters", "time-budget-s", "repeats", "warmup"})
            if (vm.count(flag) != 0 && !vm[flag].defaulted())
                return cli_fail(2, std::string("calibrate: --") + flag +
                                       " applies only when calibrate measures (not with --from)");
    const int repeats = vm["repeats"].as<int>();
    if (repeats < 1 || repeats > 1000) return cli_fail(2, "calibrate: --repeats must be in [1, 1000] (got " + std::to_string(repeats) + ")");

    const int warmup = vm["warmup"].as<int>();
    if (warmup < 0 || warmup > 1000) return cli_fail(2, "calibrate: --warmup must be in [0, 1000] (got " + std::to_string(warmup) + ")");

    MeasureDatasetOptions mo;
    mo.repeats = repeats;
    mo.warmup = warmup;
    mo.counters = vm.count("no-counters") == 0;
    mo.time_budget_s = vm["time-budget-s"].as<double>();
    mo.microbench_only = vm.count("microbench-only") != 0;
    if (mo.microbench_only && vm.count("measure-dataset") == 0)
        return cli_fail(2, "calibrate: --microbench-only needs --measure-dataset FILE");
    if (!(mo.time_budget_s >= 0)) return cli_fail(2, "calibrate: --time-budget-s must be >= 0");
    if (vm.count("cases-matching") != 0) {
        if (vm.count("measure-dataset") == 0)
            return cli_fail(2, "calibrate: --cases-matching needs --measure-dataset FILE");
        mo.cases_matching = vm["cases-matching"].as<std::vector<std::string>>();
        for (const std::string& m : mo.cases_matching)
            if (m.empty()) return cli_fail(2, "calibrate: --cases-matching must not be empty");
    }
    if (vm.count("measure-dataset") != 0) {
        const std::string path = vm["measure-dataset"].as<std::string>();
        const MeasureDatasetResult m = measure_dataset(path, *base, mo, std::cerr);
        if (m.code != 0) return cli_fail(m.code, "calibrate: " + m.message);
        std::cout << "wrote " << m.records << " records to " << path << "\n";
        return 0;
    }

    // Checked before measuring or fitting, which take minutes to hours.
    const std::string model = vm["model"].as<std::string>();
    if (const auto models = available_models(); std::find(models.begin(), models.end(), model) == models.end()) {
        std::string list;
        for (const auto& m : models) list += (list.empty() ? "" : ", ") + m;
        return cli_fail(2, "calibrate: --model must be one of " + list + " (got '" + model + "')");
    }
    std::vector<std::string> fit_fields = split_commas(vm["fit"].as<std::string>());
    for (const std::string& f : fit_fields)
        if (f.empty())
            return cli_fail(2, "calibrate: --fit has an empty field name (got '" + vm["fit"].as<std::string>() +
                                   "'); it takes a comma-separated list of Calibration fields");
    std::filesystem::path out, fit_path;
    if (vm.count("out") != 0) {
        out = vm["out"].as<std::string>();
        fit_path = out;
        fit_path.replace_extension(".fit-report");
        if (vm.count("fit-report") != 0) fit_path = vm["fit-report"].as<std::string>();
        if (Status s = check_writable("--out", out); !s) return cli_fail(2, "calibrate: " + s.error().message);
        if (Status s = check_writable("--fit-report", fit_path); !s) return cli_fail(2, "calibrate: " + s.error().message);
    } else if (vm.count("fit-report") != 0) {
        return cli_fail(2, "calibrate: --fit-report needs --out FILE (without it the profile goes to standard output "
                           "and the fit report, as a table, to standard error)");
    }

    Result<validate::Dataset> data = make_error("no data");
    if (vm.count("from") != 0) {
        data = validate::load_dataset(vm["from"].as<std::string>());
        if (!data) return cli_fail(2, data.error().message);
    } else {
        const std::string tmp = (std::filesystem::temp_directory_path() / "tilescope_calibrate_training.jsonl").string();
        mo.training_only = true;
        const MeasureDatasetResult m = measure_dataset(tmp, *base, mo, std::cerr);
        if (m.code != 0) return cli_fail(m.code, "calibrate: " + m.message);
        data = validate::load_dataset(tmp);
        if (!data) return cli_fail(1, data.error().message);
    }

    validate::CalibrateOptions co;
    if (vm.count("also-train") != 0) {
        for (const auto& path : vm["also-train"].as<std::vector<std::string>>()) {
            auto extra = validate::load_dataset(path);
            if (!extra) return cli_fail(2, extra.error().message);
            if (extra->cases.empty()) return cli_fail(2, "calibrate: --also-train " + path + " has no measured case");
            co.extra_training.push_back(std::move(*extra));
        }
    }
    co.fit = fit_fields;
    co.max_evaluations = max_evals;
    co.fit_lrc = vm.count("no-lrc-fit") == 0;
    if (vm.count("lrc-loss")) {
        const double loss = vm["lrc-loss"].as<double>();
        if (!(loss >= 0 && loss <= 1))
            return cli_fail(2, "calibrate: --lrc-loss must be in [0, 1] per iteration (got " + std::to_string(loss) + ")");
        if (!co.fit_lrc) return cli_fail(2, "calibrate: --lrc-loss needs the coalescer fit (not with --no-lrc-fit)");
        co.lrc_fixed_loss = loss;
    }
    if (const std::string method = vm["method"].as<std::string>(); method == "lm") {
        co.method = validate::FitMethod::levenberg_marquardt;
    } else if (method == "nelder-mead") {
        co.method = validate::FitMethod::nelder_mead;
    } else {
        return cli_fail(2, "calibrate: --method must be lm or nelder-mead (got '" + method + "')");
    }
    if (vm.count("start") != 0)
        for (const auto& item : split_commas(vm["start"].as<std::string>())) {
            if (item.empty()) continue;  // "a=1,,b=2" and a trailing comma are fine
            const auto eq = item.find('=');
            double value = 0;
            std::size_t used = 0;
            try {
                if (eq != std::string::npos) value = std::stod(item.substr(eq + 1), &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (eq == std::string::npos || used == 0 || used != item.size() - eq - 1)
                return cli_fail(2, "calibrate: --start items must be NAME=NUMBER (got '" + item + "')");
            co.start[item.substr(0, eq)] = value;
        }
    co.max_fit_cases = max_fit_cases;
    co.min_per_family = min_per_family;
    if (vm.count("fit-include") != 0) co.fit_include = vm["fit-include"].as<std::vector<std::string>>();
    co.jobs = jobs;
    co.within_sweep_weight = vm["within-sweep-weight"].as<double>();
    co.hold_unfitted = vm["hold-unfitted"].as<bool>();
    if (!(co.within_sweep_weight >= 0 && co.within_sweep_weight <= 100))
        return cli_fail(2, "calibrate: --within-sweep-weight must be in [0, 100] (got " +
                               std::to_string(co.within_sweep_weight) + ")");
    co.time_budget_s = vm["fit-budget-s"].as<double>();
    if (!(co.time_budget_s >= 0)) return cli_fail(2, "calibrate: --fit-budget-s must be >= 0");
    co.progress = [](const std::string& line) { std::cerr << "calibrate: " << line << std::endl; };
    co.provenance["calibrated_date"] = validate::utc_now_iso();
    co.provenance["calibrate_commit"] = validate::build_commit();
    ModelOptions model_opts;
    model_opts.exact = vm["exact"].as<bool>();
    if (model_opts.exact) model_opts.sim_only_flags.push_back("--exact");
    if (auto ok = model_accepts(model, model_opts); !ok) return cli_fail(2, "calibrate: " + ok.error().message);
    co.provenance["calibrated_model"] = model_label(model, model_opts);
    co.provenance["base_profile"] = base->origin;
    const validate::Predictor predict = [model, model_opts](const Workload& w, const Hardware& h) {
        return predict_with_model(model, w, h, model_opts);
    };
    auto r = validate::calibrate(*data, *base, predict, co);
    if (!r) return cli_fail(2, r.error().message);
    r->hw.origin.clear();

    const std::string profile = validate::calibrated_profile_json(*r);
    // A profile that `predict --gpu` would refuse is not written.
    if (auto reloaded = parse_hardware(profile, "the calibrated profile"); !reloaded)
        return cli_fail(2, "calibrate: " + reloaded.error().message + " (not written)");
    if (vm.count("out") == 0) {
        std::cout << profile << std::flush;
        if (!std::cout) return cli_fail(2, "calibrate: cannot write to standard output");
        std::cerr << validate::fit_report_table(*r);
        return 0;
    }
    for (const std::filesystem::path& p : {out, fit_path})
        if (p.has_parent_path()) {
            std::error_code ec;
            std::filesystem::create_directories(p.parent_path(), ec);
        }
    if (!write_file(out, profile)) return cli_fail(2, "calibrate: cannot write " + out.string());
    if (!write_file(fit_path, validate::fit_report_json(*r))) return cli_fail(2, "calibrate: cannot write " + fit_path.string());
    std::cout << validate::fit_report_table(*r) << "wrote " << out.string() << " and " << fit_path.string() << "\n";
    return 0;
}

}  // namespace tilescope
