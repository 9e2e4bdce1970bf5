// `tilescope compare`: the teaching comparison. Predicts attention-naive and a fused kernel
// (attention-flash2 by default) for the same shape and GPU and prints them side by side with the
// ratio naive/fused, plus the IO-complexity formulas of the FlashAttention paper evaluated for
// this shape: naive Theta(N d + N^2) and fused Theta(N^2 d^2 / M) HBM accesses per (batch, head),
// with M = the fused block's shared memory in elements. The formulas drop constants: compare
// their ratio with the predicted one, not the absolute values.
// Shape flags apply to both kernels; tile flags apply to the fused kernel (naive keeps its GEMM
// defaults); --variant applies to naive's softmax.
#include <unistd.h>

#include <boost/json.hpp>

#include <cstdio>
#include <future>
#include <iostream>
#include <sstream>

#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/models.hpp"
#include "cli/workload_options.hpp"
#include "core/lower.hpp"
#include "core/result_io.hpp"

namespace po = boost::program_options;

namespace tilescope {
namespace {

struct Row {
    const char* label;
    double naive, fused;
    bool is_time;
};

std::string fmt(double v, bool is_time) {
    return format_metric(is_time ? Metric::gpu_time_duration : Metric::dram_bytes_read, v);
}

std::string ratio_text(double a, double b) {
    char buf[32];
    if (b > 0) std::snprintf(buf, sizeof buf, "%.2fx", a / b);
    else std::snprintf(buf, sizeof buf, "-");
    return buf;
}

std::string with_commas(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    std::string s = buf, out;
    const std::size_t lead = s.size() % 3;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i && (i % 3) == lead % 3 && i >= lead && s[i - 1] != '-') out += ',';
        out += s[i];
    }
    return out;
}

}  // namespace

int run_compare(int argc, char** argv) {
    po::options_description general("Options");
    general.add_options()("help,h", "show this help")(
        "fused", po::value<std::string>()->default_value("attention-flash2"), "attention-flash2 | attention-flash1")(
        "gpu", po::value<std::string>()->default_value("a100-40gb"), "profile name or path")(
        "model", po::value<std::string>()->default_value(default_model()), "prediction model")(
        "format", po::value<std::string>()->default_value("table"), "table | json | csv")(
        "out", po::value<std::string>()->default_value(""), "write to this file instead of stdout");
    add_model_options(general);
    po::options_description all;
    // compare is attention only: the other families' flags and the kernel choice are not offered.
    all.add(workload_options("Workload (shape flags for both; tile flags for the fused kernel)",
                             {"kernel", "m", "n", "k", "rows", "cols", "raster", "tile-k"}))
        .add(general);
    po::variables_map vm;
    if (Status s = parse_command_line(argc, argv, all, vm); !s) return cli_fail(2, s.error().message);
    if (vm.count("help")) {
        print_help(std::cout, "tilescope compare [--seq N --head-dim D ...] [--fused attention-flash2] [--gpu G]", all);
        return 0;
    }
    const std::string format = vm["format"].as<std::string>();
    if (format != "table" && format != "json" && format != "csv")
        return cli_fail(2, "--format must be table, json or csv (got '" + format + "')");
    const std::string fused_kernel = vm["fused"].as<std::string>();
    if (fused_kernel != "attention-flash2" && fused_kernel != "attention-flash1")
        return cli_fail(2, "--fused must be attention-flash2 or attention-flash1 (got '" + fused_kernel + "')");
    auto spec = workload_spec_from(vm);
    if (!spec) return cli_fail(2, spec.error().message);

    WorkloadSpec naive_spec = *spec, fused_spec = *spec;
    naive_spec.kernel = "attention-naive";
    naive_spec.tile_m.reset();
    naive_spec.tile_n.reset();
    naive_spec.tile_k.reset();
    naive_spec.stages.reset();
    naive_spec.warps.reset();
    fused_spec.kernel = fused_kernel;
    fused_spec.variant.reset();
    auto naive_w = make_workload(naive_spec);
    if (!naive_w) return cli_fail(2, naive_w.error().message);
    auto fused_w = make_workload(fused_spec);
    if (!fused_w) return cli_fail(2, fused_w.error().message);
    auto hw = load_hardware(vm["gpu"].as<std::string>());
    if (!hw) return cli_fail(2, hw.error().message);
    const std::string model = vm["model"].as<std::string>();
    auto model_options = model_options_from(vm);
    if (!model_options) return cli_fail(2, model_options.error().message);
    if (Status s = model_accepts(model, *model_options); !s) return cli_fail(2, s.error().message);
    // The two predictions are independent: the fused one runs on a second thread while the naive
    // one (three launches, the long one) runs here. A terminal is told why it waits.
    const bool tty = isatty(STDERR_FILENO) != 0;
    if (tty && model == "sim")
        std::cerr << "simulating attention-naive (3 launches) and " << fused_kernel << " on " << hw->name << " ..."
                  << std::flush;
    auto fused_future = std::async(std::launch::async, [&] { return predict_with_model(model, *fused_w, *hw, *model_options); });
    auto naive = predict_with_model(model, *naive_w, *hw, *model_options);
    auto fused = fused_future.get();
    if (tty && model == "sim") std::cerr << "\r\033[K" << std::flush;
    if (!naive) return cli_fail(2, "attention-naive: " + naive.error().message);
    if (!fused) return cli_fail(2, fused_kernel + ": " + fused.error().message);

    if (format == "csv") {
        const std::string text = csv_header() + "\n" + csv_row(*naive) + "\n" + csv_row(*fused) + "\n";
        if (Status s = write_output(vm["out"].as<std::string>(), text); !s) return cli_fail(2, s.error().message);
        return 0;
    }

    // IO formulas per (batch, head), in elements.
    const Workload& w = *fused_w;
    const double n = static_cast<double>(w.seq_q), d = static_cast<double>(w.head_dim);
    const double bh = static_cast<double>(w.batch * w.heads);
    const double smem_elems = static_cast<double>(fused->launches.at(0).facts.smem_bytes_per_block) /
                              dtype_bytes(w.dtype);
    const double naive_formula = n * d + n * n;
    const double fused_formula = n * n * d * d / smem_elems;

    auto m = [](const Prediction& p, Metric k) { return p.total[k]; };
    auto hbm = [&](const Prediction& p) { return m(p, Metric::dram_bytes_read) + m(p, Metric::dram_bytes_write); };
    auto smem = [&](const Prediction& p) { return m(p, Metric::smem_bytes_read) + m(p, Metric::smem_bytes_write); };
    const std::vector<Row> rows = {
        {"HBM bytes (read + write)", hbm(*naive), hbm(*fused), false},
        {"  dram__bytes_read.sum", m(*naive, Metric::dram_bytes_read), m(*fused, Metric::dram_bytes_read), false},
        {"  dram__bytes_write.sum", m(*naive, Metric::dram_bytes_write), m(*fused, Metric::dram_bytes_write), false},
        {"L2 bytes (lts__t_bytes.sum)", m(*naive, Metric::lts_t_bytes), m(*fused, Metric::lts_t_bytes), false},
        {"smem bytes (read + write)", smem(*naive), smem(*fused), false},
        {"time (gpu__time_duration.sum)", m(*naive, Metric::gpu_time_duration), m(*fused, Metric::gpu_time_duration),
         true},
    };

    std::string text;
    if (format == "json") {
        boost::json::object o;
        o["gpu"] = hw->name;
        o["model"] = model;
        o["naive"] = boost::json::parse(to_json(*naive));
        o["fused"] = boost::json::parse(to_json(*fused));
        boost::json::object ratio;
        ratio["hbm_bytes"] = hbm(*fused) > 0 ? hbm(*naive) / hbm(*fused) : 0.0;
        ratio["lts__t_bytes.sum"] = m(*naive, Metric::lts_t_bytes) / m(*fused, Metric::lts_t_bytes);
        ratio["smem_bytes"] = smem(*fused) > 0 ? smem(*naive) / smem(*fused) : 0.0;
        ratio["gpu__time_duration.sum"] =
            m(*naive, Metric::gpu_time_duration) / m(*fused, Metric::gpu_time_duration);
        o["ratio_naive_over_fused"] = std::move(ratio);
        o["io_formulas"] = boost::json::object{
            {"naive", "Theta(N*d + N^2) per (batch, head)"},
            {"fused", "Theta(N^2*d^2/M) per (batch, head), M = fused block shared memory in elements"},
            {"M_elements", smem_elems},
            {"naive_elements", bh * naive_formula},
            {"fused_elements", bh * fused_formula},
            {"ratio", naive_formula / fused_formula}};
        text = reformat_json(boost::json::serialize(o), true);
    } else {
        std::ostringstream os;
        os << "attention on " << hw->name << " (model " << model << ")\n";
        os << "profile " << vm["gpu"].as<std::string>() << ": " << profile_status(*hw) << "\n";
        os << "  naive: " << describe(*naive_w) << "\n";
        os << "  fused: " << describe(*fused_w) << "\n\n";
        char line[256];
        std::snprintf(line, sizeof line, "%-32s %14s %14s %12s\n", "", "naive", fused_kernel.c_str() + 10,
                      "naive/fused");
        os << line;
        for (const Row& r : rows) {
            std::snprintf(line, sizeof line, "%-32s %14s %14s %12s\n", r.label, fmt(r.naive, r.is_time).c_str(),
                          fmt(r.fused, r.is_time).c_str(), ratio_text(r.naive, r.fused).c_str());
            os << line;
        }
        std::snprintf(line, sizeof line, "%-32s %14s %14s\n", "bound", naive->bound.c_str(), fused->bound.c_str());
        os << line;
        os << "\nIO complexity per (batch, head) in elements, constants dropped (FlashAttention, Dao et al. 2022):\n";
        os << "  naive  Theta(N d + N^2)   = " << w.seq_q << "*" << w.head_dim << " + " << w.seq_q
           << "^2 = " << with_commas(naive_formula) << "\n";
        os << "  fused  Theta(N^2 d^2 / M) = " << w.seq_q << "^2*" << w.head_dim << "^2 / " << with_commas(smem_elems)
           << " = " << with_commas(fused_formula) << "   (M = shared memory of one fused block, elements)\n";
        std::snprintf(line, sizeof line, "  formula ratio naive/fused = %.2fx; predicted HBM ratio = %.2fx\n",
                      naive_formula / fused_formula, hbm(*naive) / hbm(*fused));
        os << line;
        text = os.str();
    }
    if (Status s = write_output(vm["out"].as<std::string>(), text); !s) return cli_fail(2, s.error().message);
    return 0;
}

}  // namespace tilescope
