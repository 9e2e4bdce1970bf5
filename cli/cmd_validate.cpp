// `tilescope validate`: predict every measured case with a model and report the errors.
//
//   tilescope validate --gpu PROFILE --measurements FILE [--model sim] [--split heldout|train|all]
//                      [--format table|json|markdown] [--out DIR] [--check] [--jobs N]
//                      [--save-predictions FILE | --predictions FILE [--verify-sample K]]
//   tilescope validate --measurements FILE --list-split [--split train|heldout|all]
//
// --list-split prints each case's side of the fixed split (validate/split.hpp) from the
// measurements alone: no profile, no prediction (validate/scripts/fit_l1.py reads it).
// --out DIR writes DIR/validation.{txt,json} or, for markdown, DIR/README.md plus one PNG
// scatter plot per metric; without --out the report goes to stdout (markdown without plots).
// --check exits with code 5 when a held-out target is missed (targets: validate/validate.hpp).
#include <boost/program_options.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/models.hpp"
#include "core/hardware.hpp"
#include "core/result_io.hpp"
#include "validate/dataset.hpp"
#include "validate/prediction_cache.hpp"
#include "validate/report_format.hpp"
#include "validate/validate.hpp"

namespace po = boost::program_options;

namespace tilescope {

namespace {

bool write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    return static_cast<bool>(f);
}

}  // namespace

int run_validate(int argc, char** argv) {
    po::options_description opts("tilescope validate options");
    opts.add_options()
        ("help,h", "show this help")
        ("gpu", po::value<std::string>(), "GPU profile name or path (e.g. calibrated/h100-sxm)")
        ("measurements", po::value<std::string>(), "JSONL of measurements (tilescope measure / calibrate --measure-dataset)")
        ("model", po::value<std::string>()->default_value("sim"), "model to validate: sim or analytic")
        ("exact", po::bool_switch(),
         "sim: simulate every iteration of every block (no coarsening of long launches; slower); the "
         "report and stored predictions name the model 'sim --exact'")
        ("split", po::value<std::string>()->default_value("heldout"), "cases listed: heldout, train or all")
        ("format", po::value<std::string>()->default_value("table"), "table, json or markdown")
        ("out", po::value<std::string>(), "output directory (markdown: README.md + PNG plots)")
        ("check", po::bool_switch(), "exit with code 5 if a held-out target is missed (with --baseline: "
                                     "missed and worse than its recorded figure)")
        ("baseline", po::value<std::string>(),
         "JSON record of held-out figures that miss their targets ({\"recorded\": {id: figure}}); "
         "a missed target no worse than its figure does not fail --check, and is still reported as missed")
        ("save-predictions", po::value<std::string>(), "also write every case's predictions (JSONL) to this file")
        ("predictions", po::value<std::string>(),
         "use stored predictions (from --save-predictions) instead of running the model")
        ("verify-sample", po::value<int>()->default_value(12),
         "with --predictions: re-predict this many of the cheapest cases; they must match the stored values")
        ("jobs", po::value<int>()->default_value(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
         "prediction threads")
        ("cases-matching", po::value<std::vector<std::string>>()->composing(),
         "repeatable: only the cases whose name contains one of these (e.g. softmax/fp16/online, "
         "|t64x64); the report names the selection")
        ("list-costs", po::bool_switch(),
         "print each case's simulation cost proxy and name, a line each in data-set order, and stop "
         "(the COSTS input of validate/scripts/shard_dataset.py)")
        ("list-split", po::bool_switch(),
         "print each case's side of the fixed split and its name ('train NAME' or 'heldout NAME'), a line "
         "each in data-set order, and stop; needs no --gpu, predicts nothing; every case unless --split "
         "is given");
    po::variables_map vm;
    if (Status parsed = parse_command_line(argc, argv, opts, vm); !parsed)
        return cli_fail(2, "validate: " + parsed.error().message);
    if (vm.count("help") != 0) {
        std::cout << "usage: tilescope validate --gpu PROFILE --measurements FILE [options]\n" << opts
                  << "\nTargets (held-out): HBM bytes MAPE <= 5%, lts__t_bytes MAPE <= 10%, time MAPE <= 10%,\n"
                     "mean Spearman of time per tile sweep >= 0.9, mean top-1 regret <= 5%.\n"
                     "Exit codes: 0 ok, 2 bad input, 5 targets missed (--check), 1 internal failure.\n";
        return 0;
    }
    const bool list_split = vm["list-split"].as<bool>();
    if (vm.count("gpu") == 0 && !list_split) return cli_fail(2, "validate: --gpu is required");
    if (vm.count("measurements") == 0) return cli_fail(2, "validate: --measurements is required");
    if (list_split) {
        // Only the measurements' case names and the split rule: options that predict or report
        // would be silently ignored, so refuse them.
        // Given = on the command line: present and not a default (a bool switch is always present).
        for (const char* o : {"gpu", "model", "exact", "format", "out", "check", "baseline", "save-predictions",
                              "predictions", "verify-sample", "jobs", "list-costs"})
            if (vm.count(o) != 0 && !vm[o].defaulted())
                return cli_fail(2, std::string("validate: --list-split lists the cases' split and predicts nothing: it takes no --") + o);
    }
    if (vm["verify-sample"].as<int>() < 0) return cli_fail(2, "validate: --verify-sample must be >= 0");
    if (vm["list-costs"].as<bool>() && vm["check"].as<bool>())
        return cli_fail(2, "validate: --list-costs lists the cases' costs and predicts nothing: it takes no --check");
    const std::string format = vm["format"].as<std::string>();
    if (format != "table" && format != "json" && format != "markdown")
        return cli_fail(2, "validate: --format must be table, json or markdown (got '" + format + "')");
    auto filter = validate::parse_split_filter(vm["split"].as<std::string>());
    if (!filter) return cli_fail(2, "validate: " + filter.error().message);
    const int jobs = vm["jobs"].as<int>();
    if (jobs < 1 || jobs > 1024) return cli_fail(2, "validate: --jobs must be in [1, 1024] (got " + std::to_string(jobs) + ")");

    auto data = validate::load_dataset(vm["measurements"].as<std::string>());
    if (!data) return cli_fail(2, data.error().message);
    if (vm.count("cases-matching") != 0) {
        const auto wanted = vm["cases-matching"].as<std::vector<std::string>>();
        for (const std::string& m : wanted)
            if (m.empty()) return cli_fail(2, "validate: --cases-matching must not be empty");
        const std::size_t before = data->cases.size();
        std::erase_if(data->cases, [&](const validate::Case& c) {
            return std::none_of(wanted.begin(), wanted.end(),
                                [&](const std::string& m) { return c.name.find(m) != std::string::npos; });
        });
        std::string list;
        for (const std::string& m : wanted) list += (list.empty() ? "'" : ", '") + m + "'";
        if (data->cases.empty())
            return cli_fail(2, "validate: no case of " + data->origin + " matches --cases-matching " + list);
        data->origin += " (the " + std::to_string(data->cases.size()) + " of " + std::to_string(before) +
                        " cases matching " + list + ")";
    }
    if (list_split) {
        // As a report would: a file with no measured case is an input error, not an empty list.
        if (data->cases.empty()) return cli_fail(2, "measurements " + data->origin + " hold no usable case");
        const bool all = vm["split"].defaulted() || *filter == validate::SplitFilter::all;
        for (const auto& c : data->cases) {
            if (!all && (c.split == validate::Split::train) != (*filter == validate::SplitFilter::train)) continue;
            std::cout << validate::to_string(c.split) << ' ' << c.name << '\n';
        }
        return 0;
    }
    auto hw = load_hardware(vm["gpu"].as<std::string>());
    if (!hw) return cli_fail(2, hw.error().message);
    if (vm["list-costs"].as<bool>()) {
        for (const auto& c : data->cases)
            std::cout << validate::simulation_cost(c.measured.workload, *hw) << ' ' << c.name << '\n';
        return 0;
    }

    // Measurements of another GPU are allowed (how far one card's calibration carries to another
    // is a question worth asking), but never by accident: say so.
    {
        std::map<std::string, std::size_t> other;
        for (const auto& c : data->cases)
            if (!c.measured.gpu.empty() && c.measured.gpu != hw->name) ++other[c.measured.gpu];
        for (const auto& [gpu, n] : other)
            std::cerr << "validate: warning: " << n << " of " << data->cases.size() << " cases were measured on '" << gpu
                      << "', and the profile is '" << hw->name << "'\n";
    }

    const std::string model = vm["model"].as<std::string>();
    ModelOptions mo;
    mo.exact = vm["exact"].as<bool>();
    if (mo.exact) mo.sim_only_flags.push_back("--exact");
    if (auto ok = model_accepts(model, mo); !ok) return cli_fail(2, "validate: " + ok.error().message);
    const validate::Predictor predict = [model, mo](const Workload& w, const Hardware& h) {
        return predict_with_model(model, w, h, mo);
    };
    validate::ValidateOptions vo;
    vo.filter = *filter;
    vo.jobs = jobs;
    validate::PredictionCache cache;
    if (vm.count("predictions") != 0) {
        auto c = validate::load_prediction_cache(vm["predictions"].as<std::string>());
        if (!c) return cli_fail(2, "validate: " + c.error().message);
        cache = std::move(*c);
        vo.cache = &cache;
        vo.verify_sample = vm["verify-sample"].as<int>();
    }
    auto report = validate::run_validation(*data, *hw, model_label(model, mo), predict, vo);
    if (!report) return cli_fail(2, report.error().message);
    // Stored predictions that are not this model's on this profile, lack cases or do not
    // reproduce would make a report about something else: refuse them (the library keeps the
    // failed check, last, for callers that want the report anyway).
    if (vo.cache != nullptr && !report->checks.empty() && !report->checks.back().pass) {
        const std::string& what = report->checks.back().what;
        const std::string prefix = "stored predictions reproduce: ";
        return cli_fail(2, "validate: --predictions " + vm["predictions"].as<std::string>() + ": " +
                               (what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what));
    }
    if (vm.count("baseline") != 0) {
        const std::string path = vm["baseline"].as<std::string>();
        auto text = read_text_file(path, "--baseline " + path);
        if (!text) return cli_fail(2, "validate: " + text.error().message);
        if (auto st = validate::apply_baseline(*report, *text, path); !st)
            return cli_fail(2, "validate: " + st.error().message);
    }
    if (vm.count("save-predictions") != 0) {
        const std::filesystem::path path = vm["save-predictions"].as<std::string>();
        std::error_code ec;
        if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
        if (!write_file(path, validate::prediction_cache_jsonl(*report, validate::profile_fingerprint(*hw))))
            return cli_fail(2, "validate: cannot write " + path.string());
    }

    std::string text;
    std::vector<std::string> plots;
    std::filesystem::path out_file;
    if (vm.count("out") != 0) {
        const std::filesystem::path dir = vm["out"].as<std::string>();
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) return cli_fail(2, "validate: cannot create --out directory " + dir.string() + ": " + ec.message());
        if (format == "markdown") {
            auto files = validate::write_plots(*report, dir.string());
            if (!files) return cli_fail(2, "validate: " + files.error().message);
            plots = *files;
            out_file = dir / "README.md";
        } else {
            out_file = dir / (format == "json" ? "validation.json" : "validation.txt");
        }
    }
    if (format == "table") text = validate::report_table(*report);
    else if (format == "json") text = validate::report_json(*report);
    else text = validate::report_markdown(*report, plots);

    if (out_file.empty()) {
        std::cout << text << std::flush;
        if (!std::cout) return cli_fail(2, "validate: cannot write to standard output");
    } else {
        if (!write_file(out_file, text)) return cli_fail(2, "validate: cannot write " + out_file.string());
        std::cout << "wrote " << out_file.string();
        for (const auto& p : plots) std::cout << ", " << p;
        std::cout << "\n";
        for (const auto& c : report->checks) std::cout << "  " << validate::check_line(c) << "\n";
    }
    if (vm["check"].as<bool>() && !report->pass_with_baseline) {
        std::cerr << "tilescope: validate: held-out targets missed"
                  << (report->baseline.empty() ? ":" : " and worse than the recorded baseline:");
        for (const auto& c : report->checks)
            if (!c.pass && !c.within_recorded) std::cerr << " [" << c.what << "]";
        std::cerr << "\n";
        return 5;
    }
    return 0;
}

}  // namespace tilescope
