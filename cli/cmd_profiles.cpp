// `tilescope profiles`: the bundled GPU profiles with their key numbers.
#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "core/hardware.hpp"
#include "core/result_io.hpp"

namespace po = boost::program_options;

namespace tilescope {

int run_profiles(int argc, char** argv) {
    po::options_description opts("Options");
    opts.add_options()("help,h", "show this help")("format", po::value<std::string>()->default_value("table"),
                                                   "table | json")(
        "out", po::value<std::string>()->default_value(""), "write to this file instead of stdout")(
        "show", po::value<std::string>(), "print every field of one profile (name or path) with its source");
    po::variables_map vm;
    if (Status s = parse_command_line(argc, argv, opts, vm); !s) return cli_fail(2, s.error().message);
    if (vm.count("help")) {
        print_help(std::cout, "tilescope profiles [--format table|json] [--show NAME]", opts);
        return 0;
    }
    const std::string format = vm["format"].as<std::string>();
    if (format != "table" && format != "json") return cli_fail(2, "--format must be table or json (got '" + format + "')");
    if (vm.count("show")) {
        auto hw = load_hardware(vm["show"].as<std::string>());
        if (!hw) return cli_fail(2, hw.error().message);
        const std::string json_text = hardware_to_json(*hw);
        if (format == "json") {
            if (Status s = write_output(vm["out"].as<std::string>(), reformat_json(json_text, true)); !s)
                return cli_fail(2, s.error().message);
            return 0;
        }
        const boost::json::object root = boost::json::parse(json_text).as_object();
        std::string text = hw->name + " (" + hw->display_name + ", compute capability " +
                           std::to_string(hw->compute_capability) + ")\nfrom " + hw->origin + "\n\n";
        for (const auto& kv : root) {
            if (!kv.value().is_object() || !kv.value().as_object().contains("value")) continue;
            const auto& field = kv.value().as_object();
            std::string name(kv.key());
            name.resize(std::max<std::size_t>(name.size(), 40), ' ');
            std::string value = boost::json::serialize(field.at("value"));
            value.resize(std::max<std::size_t>(value.size(), 16), ' ');
            text += name + " " + value + " " + std::string(field.at("source").as_string()) + "\n";
        }
        if (hw->calibration.calibrated) text += "\ncalibration: " + boost::json::serialize(root.at("calibration")) + "\n";
        if (Status s = write_output(vm["out"].as<std::string>(), text); !s) return cli_fail(2, s.error().message);
        return 0;
    }

    if (list_bundled_profiles().empty())
        return cli_fail(2, "no profile found in " + profile_dir() +
                               " (set TILESCOPE_PROFILE_DIR to the directory that holds the profile JSON files)");
    boost::json::array rows;
    std::string table = "profile              GPU                             SMs  HBM GB/s  L2 MB  smem/SM KB  "
                        "smem/block B  FP16 tensor TFLOP/s  calibrated\n";
    for (const std::string& name : list_bundled_profiles()) {
        auto hw = load_hardware(name);
        if (!hw) return cli_fail(2, hw.error().message);
        const double hbm_gbs = hw->hbm_bandwidth_bytes_per_s / 1e9;
        const double l2_mb = static_cast<double>(hw->l2_bytes) / (1024.0 * 1024.0);
        const double smem_kb = static_cast<double>(hw->smem_per_sm_bytes) / 1024.0;
        const double tflops = hw->tensor_fp16_flops_per_s / 1e12;
        char line[512];
        std::snprintf(line, sizeof line, "%-20s %-30s %4d  %8.0f  %5.0f  %10.0f  %12lld  %19.1f  %s\n", name.c_str(),
                      hw->display_name.c_str(), hw->sm_count, hbm_gbs, l2_mb, smem_kb,
                      static_cast<long long>(hw->smem_per_block_max_bytes), tflops,
                      hw->calibration.calibrated ? "yes" : "no");
        table += line;
        rows.push_back(boost::json::object{{"name", name},
                                           {"display_name", hw->display_name},
                                           {"compute_capability", hw->compute_capability},
                                           {"sm_count", hw->sm_count},
                                           {"hbm_bandwidth_bytes_per_s", hw->hbm_bandwidth_bytes_per_s},
                                           {"l2_bytes", hw->l2_bytes},
                                           {"smem_per_sm_bytes", hw->smem_per_sm_bytes},
                                           {"smem_per_block_max_bytes", hw->smem_per_block_max_bytes},
                                           {"tensor_fp16_flops_per_s", hw->tensor_fp16_flops_per_s},
                                           {"calibrated", hw->calibration.calibrated},
                                           {"path", hw->origin}});
    }
    const std::string text = format == "json" ? reformat_json(boost::json::serialize(rows), true) : table;
    if (Status s = write_output(vm["out"].as<std::string>(), text); !s) return cli_fail(2, s.error().message);
    return 0;
}

}  // namespace tilescope
