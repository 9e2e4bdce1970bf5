#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "core/metrics.hpp"
#include "validate/calibrate.hpp"

using namespace tilescope;
using namespace tilescope::validate;

namespace {

// A toy time model with the structure of a roofline plus overheads:
//   t = max(flops / (tensor_eff * 1e3), bytes / (hbm_eff * 2e3)) + launch + blocks * block
// (units arbitrary but consistent). Calibrate must recover the parameters that generated the data.
double toy_time(const Workload& w, const Calibration& c) {
    const double flops = 2.0 * double(w.m) * double(w.n) * double(w.k);
    const double bytes = 2.0 * double(w.m * w.k + w.k * w.n + w.m * w.n) * 64.0 / double(w.tile.m);
    const double blocks = double(w.m / w.tile.m) * double(w.n / w.tile.n);
    return std::max(flops / (c.tensor_efficiency * 1e3), bytes / (c.hbm_efficiency * 2e3)) +
           c.launch_overhead_ns + blocks * c.block_overhead_ns;
}

using TimeModel = double (*)(const Workload&, const Calibration&);

Predictor toy(TimeModel time = toy_time) {
    return [time](const Workload& w, const Hardware& h) -> Result<Prediction> {
        Prediction p;
        p.model = "toy";
        p.workload = w;
        p.total.values.fill(0);
        p.total[Metric::gpu_time_duration] = time(w, h.calibration);
        return p;
    };
}

// A measured case of `w` whose time is the toy model's with `truth`, split by the hash rule.
Case toy_case(const Workload& w, const Calibration& truth) {
    Case c;
    c.measured.model = "measured";
    c.measured.workload = w;
    c.measured.total.values.fill(NAN);
    c.measured.total[Metric::gpu_time_duration] = toy_time(w, truth);
    c.name = case_name(w);
    c.key = sweep_key(w);
    c.split = split_of(w);
    return c;
}

Dataset toy_data(const Calibration& truth) {
    Dataset d;
    d.origin = "toy";
    d.provenance = {{"gpu", "Toy GPU"}, {"driver", "1.0"}};
    for (int64_t m : {128, 256, 512, 1024, 2048, 4096})
        for (int64_t k : {64, 1024, 8192})
            for (int tm : {64, 128}) {
                Workload w;
                w.kernel = KernelFamily::gemm;
                w.m = m;
                w.n = m;
                w.k = k;
                w.tile = Tile{tm, 64, 32, 3, 8};
                d.cases.push_back(toy_case(w, truth));
            }
    return d;
}

// The parameters most tests generate their data with.
Calibration toy_truth() {
    Calibration truth;
    truth.tensor_efficiency = 0.62;
    truth.launch_overhead_ns = 3000;
    truth.block_overhead_ns = 400;
    return truth;
}

}  // namespace

TEST_CASE("calibrate recovers the parameters that generated the data", "[validate][calibrate]") {
    Calibration truth = toy_truth();
    truth.hbm_efficiency = 0.9;
    Dataset d = toy_data(truth);
    d.microbench.push_back({"hbm_bandwidth", 0.9 * 3.0e12, "bytes_per_s"});
    Hardware base;
    base.name = "toy";
    base.hbm_bandwidth_bytes_per_s = 3.0e12;
    CalibrateOptions o;
    o.fit = {"tensor_efficiency", "launch_overhead_ns", "block_overhead_ns"};
    o.max_evaluations = 600;
    // l2/smem/fp32 have no microbenchmark, so they join the fit; the toy ignores them.
    auto r = calibrate(d, base, toy(), o);
    REQUIRE(r.ok());
    CHECK(r->hw.calibration.calibrated);
    CHECK(r->hw.calibration.hbm_efficiency == Approx(0.9));
    CHECK(r->hw.calibration.tensor_efficiency == Approx(0.62).epsilon(0.02));
    CHECK(r->hw.calibration.launch_overhead_ns == Approx(3000).epsilon(0.05));
    CHECK(r->hw.calibration.block_overhead_ns == Approx(400).epsilon(0.05));
    CHECK(r->rms_log_error_after < 0.01);
    CHECK(r->rms_log_error_after < r->rms_log_error_before);
    CHECK(r->fit_cases == r->training_cases);
    CHECK(r->training_cases < d.cases.size());  // held-out cases were not used
    CHECK(r->hw.provenance.at("gpu") == "Toy GPU");
    CHECK(r->hw.provenance.count("fit") == 1);
    // The fit report lists every fit case.
    CHECK(r->residuals.size() == r->fit_cases);
    CHECK(fit_report_json(*r).find("\"residuals\"") != std::string::npos);
}

TEST_CASE("a launch_overhead microbenchmark sets launch_overhead_ns, which is then not fitted", "[validate][calibrate]") {
    const Calibration truth = toy_truth();
    Dataset d = toy_data(truth);
    // Measured a little off the truth: the fit must keep the measured value and absorb the rest.
    d.microbench.push_back({"launch_overhead", 2500, "ns"});
    Hardware base;
    base.name = "toy";
    CalibrateOptions o;
    o.fit = {"tensor_efficiency", "launch_overhead_ns", "block_overhead_ns"};
    o.max_evaluations = 600;
    auto r = calibrate(d, base, toy(), o);
    REQUIRE(r.ok());
    CHECK(r->hw.calibration.launch_overhead_ns == 2500);
    CHECK(r->hw.calibration.tensor_efficiency == Approx(0.62).epsilon(0.05));
    int measured = 0, fitted = 0;
    for (const auto& p : r->parameters)
        if (p.name == "launch_overhead_ns") (p.how.rfind("microbenchmark", 0) == 0 ? measured : fitted)++;
    CHECK(measured == 1);
    CHECK(fitted == 0);
    CHECK(r->hw.provenance.at("fitted_parameters").find("launch_overhead_ns") == std::string::npos);
    // Starting a parameter that is measured, not fitted, is an error.
    o.start = {{"launch_overhead_ns", 1000}};
    CHECK_FALSE(calibrate(d, base, toy(), o).ok());
}

TEST_CASE("calibrate fits fragment_store_bytes_per_s, a rate in bytes per second", "[validate][calibrate]") {
    // The toy plus its output written at the fragment-store rate (in bytes/s: ~1e12, far above the
    // ns-sized parameters, so the fit's log space must reach e^28).
    Calibration truth;
    truth.tensor_efficiency = 0.62;
    truth.hbm_efficiency = 0.9;
    truth.fragment_store_bytes_per_s = 0.9e12;
    TimeModel with_stores = [](const Workload& w, const Calibration& c) {
        const double store_bytes = 2.0 * double(w.m) * double(w.n);
        return toy_time(w, c) + store_bytes / (c.fragment_store_bytes_per_s * 1e-9);
    };
    Dataset d = toy_data(truth);
    for (Case& c : d.cases) c.measured.total[Metric::gpu_time_duration] = with_stores(c.measured.workload, truth);
    d.microbench.push_back({"hbm_bandwidth", 0.9 * 3.0e12, "bytes_per_s"});
    Hardware base;
    base.name = "toy";
    base.hbm_bandwidth_bytes_per_s = 3.0e12;
    base.calibration.fragment_store_bytes_per_s = 0.6e12;  // the start, 1.5x off
    CalibrateOptions o;
    o.fit = {"tensor_efficiency", "fragment_store_bytes_per_s"};
    o.max_evaluations = 600;
    auto r = calibrate(d, base, toy(with_stores), o);
    INFO((r ? std::string() : r.error().message));
    REQUIRE(r.ok());
    CHECK(r->hw.calibration.fragment_store_bytes_per_s == Approx(0.9e12).epsilon(0.02));
    CHECK(r->hw.calibration.tensor_efficiency == Approx(0.62).epsilon(0.02));
    CHECK(r->hw.provenance.at("fitted_parameters").find("fragment_store_bytes_per_s") != std::string::npos);
}

TEST_CASE("calibrate fits load_latency_ns_per_tbps, the queueing term of the load latency", "[validate][calibrate]") {
    // The toy plus k waits of L = L0 + c B / L (L0 = 400 ns, B = 1 MB per 1024 rows of m):
    // the field's meaning in the simulator, solved the same way.
    Calibration truth = toy_truth();
    truth.load_latency_ns_per_tbps = 150;
    TimeModel with_queueing = [](const Workload& w, const Calibration& c) {
        const double b = 1e6 * double(w.m) / 1024.0, l0 = 400.0, q = c.load_latency_ns_per_tbps * 1e-3 * b;
        return toy_time(w, c) + double(w.k) / 64.0 * 0.5 * (l0 + std::sqrt(l0 * l0 + 4 * q));
    };
    Dataset d = toy_data(truth);
    for (Case& c : d.cases) c.measured.total[Metric::gpu_time_duration] = with_queueing(c.measured.workload, truth);
    Hardware base;
    base.name = "toy";
    CalibrateOptions o;
    o.fit = {"tensor_efficiency", "launch_overhead_ns", "block_overhead_ns", "load_latency_ns_per_tbps"};
    o.max_evaluations = 600;
    auto r = calibrate(d, base, toy(with_queueing), o);
    INFO((r ? std::string() : r.error().message));
    REQUIRE(r.ok());
    CHECK(r->hw.calibration.load_latency_ns_per_tbps == Approx(150).epsilon(0.02));
    CHECK(r->hw.calibration.tensor_efficiency == Approx(0.62).epsilon(0.02));
}

TEST_CASE("both fit methods recover the generating parameters, LM with fewer points", "[validate][calibrate]") {
    const Calibration truth = toy_truth();
    const Dataset d = toy_data(truth);
    Hardware base;
    base.name = "toy";
    CalibrateOptions o;
    o.fit = {"tensor_efficiency", "launch_overhead_ns", "block_overhead_ns", "hbm_efficiency",
             "l2_efficiency", "smem_efficiency", "fp32_efficiency"};
    o.max_evaluations = 600;
    int evaluations[2] = {0, 0};
    for (const FitMethod method : {FitMethod::levenberg_marquardt, FitMethod::nelder_mead}) {
        o.method = method;
        auto r = calibrate(d, base, toy(), o);
        REQUIRE(r.ok());
        CHECK(r->hw.calibration.tensor_efficiency == Approx(0.62).epsilon(0.02));
        CHECK(r->hw.calibration.launch_overhead_ns == Approx(3000).epsilon(0.05));
        CHECK(r->hw.calibration.block_overhead_ns == Approx(400).epsilon(0.05));
        CHECK(r->rms_log_error_after < 0.01);
        CHECK(r->hw.provenance.at("fit").find(method_name(method)) == 0);
        evaluations[method == FitMethod::nelder_mead] = r->evaluations;
    }
    CHECK(evaluations[0] < evaluations[1]);
}

TEST_CASE("case residuals: their sum of squares is the case error", "[validate][calibrate]") {
    Case c;
    c.measured.total[Metric::gpu_time_duration] = 4000;
    c.measured.launches.resize(3);
    Prediction p;
    p.total[Metric::gpu_time_duration] = 3700;
    p.launches.resize(3);
    const double meas[3] = {1000, 2500, 500}, pred[3] = {2000, 1000, 700};
    for (int l = 0; l < 3; ++l) {
        c.measured.launches[l].metrics[Metric::gpu_time_duration] = meas[l];
        p.launches[l].metrics[Metric::gpu_time_duration] = pred[l];
    }
    auto sum_sq = [](const std::vector<double>& r) {
        double s = 0;
        for (double x : r) s += x * x;
        return s;
    };
    auto r = case_residuals(c, p);
    REQUIRE(r.size() == 3);
    CHECK(r[0] == Approx(std::log(2.0) / std::sqrt(3.0)));
    CHECK(sum_sq(r) == Approx(case_error(c, p)));
    // Unusable launch times: the total's residual, then zeros (same length for every point).
    c.measured.launches[2].metrics[Metric::gpu_time_duration] = 0;
    r = case_residuals(c, p);
    REQUIRE(r.size() == 3);
    CHECK(r[0] == Approx(std::log(3700.0 / 4000.0)));
    CHECK(r[1] == 0.0);
    CHECK(sum_sq(r) == Approx(case_error(c, p)));
    p.total[Metric::gpu_time_duration] = NAN;
    for (double x : case_residuals(c, p)) CHECK(std::isnan(x));
}

TEST_CASE("calibrate uses training cases only", "[validate][calibrate]") {
    Calibration truth;
    truth.tensor_efficiency = 0.5;
    Dataset d = toy_data(truth);
    // Corrupt every held-out measurement by 10x: a fit that used them would be pulled away.
    for (auto& c : d.cases)
        if (c.split == Split::heldout) c.measured.total[Metric::gpu_time_duration] *= 10;
    Hardware base;
    base.name = "toy";
    CalibrateOptions o;
    o.fit = {"tensor_efficiency"};
    o.max_evaluations = 300;
    auto r = calibrate(d, base, toy(), o);
    REQUIRE(r.ok());
    CHECK(r->hw.calibration.tensor_efficiency == Approx(0.5).epsilon(0.02));
}

TEST_CASE("calibrate rejects unknown parameters and empty training sets", "[validate][calibrate]") {
    Hardware base;
    CalibrateOptions o;
    o.fit = {"warp_speed"};
    auto r = calibrate(toy_data({}), base, toy(), o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("warp_speed") != std::string::npos);
    Dataset empty;
    empty.origin = "empty";
    CHECK_FALSE(calibrate(empty, base, toy(), {}).ok());
}

TEST_CASE("calibrate stops at its time budget and keeps a usable point", "[validate][calibrate]") {
    Calibration truth;
    truth.tensor_efficiency = 0.5;
    Hardware base;
    base.name = "toy";
    CalibrateOptions o;
    o.fit = {"tensor_efficiency"};
    o.max_evaluations = 100000;
    o.time_budget_s = 1e-9;
    auto r = calibrate(toy_data(truth), base, toy(), o);
    REQUIRE(r.ok());
    CHECK(r->budget_exhausted);
    CHECK_FALSE(r->converged);
    CHECK(r->evaluations < 100);
    CHECK(r->hw.calibration.calibrated);
}

TEST_CASE("the fit error of a multi-launch case is per launch", "[validate][calibrate]") {
    Case c;
    c.measured.total[Metric::gpu_time_duration] = 4000;
    c.measured.launches.resize(2);
    c.measured.launches[0].metrics[Metric::gpu_time_duration] = 1000;
    c.measured.launches[1].metrics[Metric::gpu_time_duration] = 3000;
    Prediction p;
    p.total[Metric::gpu_time_duration] = 3500;
    p.launches.resize(2);
    p.launches[0].metrics[Metric::gpu_time_duration] = 2000;  // 2x too slow
    p.launches[1].metrics[Metric::gpu_time_duration] = 1500;  // 2x too fast
    // The totals are 12.5% apart, but each launch is off by 2x: the error says so.
    const double ln2 = std::log(2.0);
    CHECK(case_error(c, p) == Approx(ln2 * ln2));
    // A launch without a measured time: back to the total.
    c.measured.launches[1].metrics[Metric::gpu_time_duration] = 0;
    CHECK(case_error(c, p) == Approx(std::log(3500.0 / 4000.0) * std::log(3500.0 / 4000.0)));
    // Launch counts that differ: the total too.
    c.measured.launches[1].metrics[Metric::gpu_time_duration] = 3000;
    p.launches.resize(1);
    CHECK(case_error(c, p) == Approx(std::log(3500.0 / 4000.0) * std::log(3500.0 / 4000.0)));
    // One launch: the total.
    c.measured.launches.resize(1);
    CHECK(case_error(c, p) == Approx(std::log(3500.0 / 4000.0) * std::log(3500.0 / 4000.0)));
    // No usable predicted time.
    p.total[Metric::gpu_time_duration] = 0;
    CHECK(std::isnan(case_error(c, p)));
}

TEST_CASE("calibrate's fit set keeps the cheapest cases of every family", "[validate][calibrate]") {
    Calibration truth;
    truth.tensor_efficiency = 0.5;
    Dataset d = toy_data(truth);
    // Relabel three training cases as another family (the toy model only reads m, n, k).
    int relabelled = 0;
    for (auto& c : d.cases) {
        if (c.split != Split::train || relabelled == 3) continue;
        Workload& w = c.measured.workload;
        w.kernel = KernelFamily::attention_flash2;
        w.batch = w.heads = 1;
        w.seq_q = w.seq_kv = w.m;
        w.head_dim = 64;
        w.tile = Tile{64, 64, 0, 2, 4};
        c.name += "/other";
        ++relabelled;
    }
    REQUIRE(relabelled == 3);
    Hardware base;
    base.name = "toy";
    CalibrateOptions o;
    o.fit = {"tensor_efficiency"};
    o.max_evaluations = 5;
    o.max_fit_cases = 3;
    o.min_per_family = 2;
    auto r = calibrate(d, base, toy(), o);
    REQUIRE(r.ok());
    // Two of each family: four cases, more than max_fit_cases.
    CHECK(r->fit_cases == 4);
    int other = 0;
    for (const auto& res : r->residuals) other += res.name.find("/other") != std::string::npos ? 1 : 0;
    CHECK(other == 2);
    // Without the floor: exactly max_fit_cases.
    o.min_per_family = 0;
    auto plain = calibrate(d, base, toy(), o);
    REQUIRE(plain.ok());
    CHECK(plain->fit_cases == 3);
}

TEST_CASE("calibrate --fit-include adds named training cases beyond the cap", "[validate][calibrate]") {
    Calibration truth;
    truth.tensor_efficiency = 0.5;
    Dataset d = toy_data(truth);
    Hardware base;
    base.name = "toy";
    CalibrateOptions o;
    o.fit = {"tensor_efficiency"};
    o.max_evaluations = 5;
    o.max_fit_cases = 2;
    auto capped = calibrate(d, base, toy(), o);
    REQUIRE(capped.ok());
    REQUIRE(capped->fit_cases == 2);
    // The most expensive training case (the last by cost) is not among the two cheapest.
    const Case* dear = nullptr;
    const Case* held = nullptr;
    for (const auto& c : d.cases) {
        if (c.split == Split::heldout) {
            if (held == nullptr) held = &c;
            continue;
        }
        bool fitted = false;
        for (const auto& res : capped->residuals) fitted = fitted || res.name == c.name;
        if (!fitted) dear = &c;
    }
    REQUIRE(dear != nullptr);
    REQUIRE(held != nullptr);
    o.fit_include = {dear->name};
    auto with = calibrate(d, base, toy(), o);
    REQUIRE(with.ok());
    CHECK(with->fit_cases == 3);
    bool joined = false;
    for (const auto& res : with->residuals) joined = joined || res.name == dear->name;
    CHECK(joined);
    CHECK(with->hw.provenance.at("training_cases").find(dear->name) != std::string::npos);
    // A text that names only a held-out case, or nothing, is refused, naming the option.
    o.fit_include = {held->name};
    auto refused = calibrate(d, base, toy(), o);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("--fit-include") != std::string::npos);
    o.fit_include = {"no such case"};
    CHECK_FALSE(calibrate(d, base, toy(), o).ok());
    // A case the cap takes anyway is not counted twice.
    o.fit_include = {capped->residuals.front().name};
    auto same = calibrate(d, base, toy(), o);
    REQUIRE(same.ok());
    CHECK(same->fit_cases == 2);
}

namespace {

// A toy L2-byte model with the coalescer's structure: a case requests `bytes`, and half of them
// are shared reads that merge with p x exp(-loss x i) averaged over its `iterations` = k / 32
// main-loop iterations; p is the one-block value for tile_m 128 and the several-block value for
// tile_m 64 (as if the smaller tile fitted several blocks per SM).
double toy_lts(const Workload& w, const Calibration& c) {
    const double bytes = 2.0 * double(w.m * w.k + w.k * w.n) * 64.0 / double(w.tile.m);
    const double p = w.tile.m == 128 ? c.lrc_in_step_one_block : c.lrc_in_step_several_blocks;
    const double n = double(w.k / 32);
    double mean = 0;
    for (int i = 0; i < int(n); ++i) mean += std::exp(-c.lrc_lock_loss_per_iteration * i) / n;
    return bytes * (1.0 - 0.5 * p * mean);
}

}  // namespace

TEST_CASE("calibrate fits the L2 request coalescer to the training cases' L2 bytes", "[validate][calibrate][lrc]") {
    Calibration truth;
    truth.lrc_in_step_one_block = 0.8;
    truth.lrc_in_step_several_blocks = 0.35;
    truth.lrc_lock_loss_per_iteration = 0.01;  // on the fit's 0.002 grid
    Dataset d = toy_data(Calibration{});
    for (Case& c : d.cases) c.measured.total[Metric::lts_t_bytes] = toy_lts(c.measured.workload, truth);
    Hardware base;
    base.name = "toy";
    base.hbm_bandwidth_bytes_per_s = 3.0e12;
    const Predictor predict = [](const Workload& w, const Hardware& h) -> Result<Prediction> {
        Prediction p;
        p.model = "toy";
        p.workload = w;
        p.total.values.fill(0);
        p.total[Metric::gpu_time_duration] = toy_time(w, h.calibration);
        p.total[Metric::lts_t_bytes] = toy_lts(w, h.calibration);
        return p;
    };
    CalibrateOptions o;
    o.fit = {"launch_overhead_ns"};
    o.max_evaluations = 5;
    auto r = calibrate(d, base, predict, o);
    INFO((r ? std::string() : r.error().message));
    REQUIRE(r.ok());
    CHECK(r->hw.calibration.lrc_in_step_one_block == Approx(0.8).margin(1e-4));
    CHECK(r->hw.calibration.lrc_in_step_several_blocks == Approx(0.35).margin(1e-4));
    CHECK(r->hw.calibration.lrc_lock_loss_per_iteration == Approx(0.01).margin(1e-12));
    CHECK(r->lrc_cases > 0);
    CHECK(r->lrc_lts_mape_before > 0.05);
    CHECK(r->lrc_lts_mape_after < 1e-4);
    CHECK(r->hw.provenance.count("lrc_fit") == 1);

    // The loss held (calibrate --lrc-loss): only the two probabilities are fitted, and they fit
    // exactly when the held loss is the true one; held elsewhere, the loss stays where it is put.
    CalibrateOptions held = o;
    held.lrc_fixed_loss = 0.01;
    auto h = calibrate(d, base, predict, held);
    REQUIRE(h.ok());
    CHECK(h->hw.calibration.lrc_lock_loss_per_iteration == 0.01);
    CHECK(h->hw.calibration.lrc_in_step_one_block == Approx(0.8).margin(1e-4));
    CHECK(h->hw.calibration.lrc_in_step_several_blocks == Approx(0.35).margin(1e-4));
    for (const auto& p : h->parameters)
        if (p.name == "lrc_lock_loss_per_iteration") CHECK(p.how.find("held") != std::string::npos);
    CHECK(h->hw.provenance.at("lrc_fit").find("held") != std::string::npos);
    held.lrc_fixed_loss = 0.025;
    auto off_grid = calibrate(d, base, predict, held);
    REQUIRE(off_grid.ok());
    CHECK(off_grid->hw.calibration.lrc_lock_loss_per_iteration == 0.025);
    CHECK(off_grid->lrc_lts_mape_after > 1e-4);

    // Off on request, and nothing to fit when the model merges nothing (the plain toy).
    o.fit_lrc = false;
    auto off = calibrate(d, base, predict, o);
    REQUIRE(off.ok());
    CHECK(off->hw.calibration.lrc_in_step_one_block == 0);
    CHECK(off->lrc_cases == 0);
    o.fit_lrc = true;
    auto none = calibrate(d, base, toy(), o);
    REQUIRE(none.ok());
    CHECK(none->hw.calibration.lrc_in_step_one_block == 0);
    CHECK(none->hw.calibration.lrc_in_step_several_blocks == 0);
    CHECK(none->lrc_cases == 0);

    // --max-fit-cases bounds the coalescer fit as well (its cheapest cases), and each stage
    // reports progress; one evaluation is labelled as not converged, not as a fit.
    o.max_fit_cases = 4;
    o.max_evaluations = 1;
    std::vector<std::string> lines;
    o.progress = [&](const std::string& line) { lines.push_back(line); };
    auto capped = calibrate(d, base, predict, o);
    REQUIRE(capped.ok());
    CHECK(capped->lrc_cases == 4);
    CHECK(r->lrc_cases > 4);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].find("L2 request coalescer") != std::string::npos);
    CHECK(lines[0].find(" 4 training") != std::string::npos);
    CHECK(lines[1].find("time fit on 4 training cases") != std::string::npos);
    const auto lo = std::find_if(capped->parameters.begin(), capped->parameters.end(),
                                 [](const auto& p) { return p.name == "launch_overhead_ns"; });
    REQUIRE(lo != capped->parameters.end());
    CHECK(lo->how.find("stopped by --max-evals, not converged") != std::string::npos);
}

TEST_CASE("extra training cases (--also-train) join the fit whole and may not touch held-out sweeps",
          "[validate][calibrate]") {
    Calibration truth;
    truth.tensor_efficiency = 0.5;
    const Dataset d = toy_data(truth);
    // Extra cases of shapes the data set does not have, measured 2x slower than the truth: a fit
    // that uses them lands below 0.5.
    Calibration slow = truth;
    slow.tensor_efficiency = 0.25;
    Dataset extra;
    extra.origin = "series.jsonl";
    for (int64_t m : {3072, 6144})
        for (int tm : {64, 128}) {
            Workload w;
            w.kernel = KernelFamily::gemm;
            w.m = w.n = m;
            w.k = 8192;
            w.tile = Tile{tm, 64, 32, 3, 8};
            extra.cases.push_back(toy_case(w, slow));  // whatever its split: extras train regardless
        }
    Hardware base;
    base.name = "toy";
    CalibrateOptions o;
    o.fit = {"tensor_efficiency"};
    o.max_evaluations = 300;
    o.max_fit_cases = 3;  // the extras are not subject to the cap
    auto plain = calibrate(d, base, toy(), o);
    REQUIRE(plain.ok());
    CHECK(plain->hw.calibration.tensor_efficiency == Approx(0.5).epsilon(0.02));
    CHECK(plain->extra_cases == 0);

    o.extra_training.push_back(extra);
    auto r = calibrate(d, base, toy(), o);
    REQUIRE(r.ok());
    CHECK(r->extra_cases == 4);
    CHECK(r->fit_cases == 3 + 4);
    CHECK(r->hw.calibration.tensor_efficiency < 0.45);
    CHECK(r->hw.calibration.tensor_efficiency > 0.25);
    int from_series = 0;
    for (const auto& x : r->residuals) from_series += x.source == "series.jsonl";
    CHECK(from_series == 4);
    CHECK(r->hw.provenance.at("also_trained").find("4 extra training cases of series.jsonl") != std::string::npos);
    CHECK(fit_report_json(*r).find("\"source\":\"series.jsonl\"") != std::string::npos);
    CHECK(r->extra_left_out.empty());

    // An extra case of a kernel family the data set has no training case of (softmax here, far
    // off the truth) is left out and listed: the fit is the same as without it.
    {
        std::vector<Dataset> with = o.extra_training;
        Workload w = with.front().cases.front().measured.workload;
        w.kernel = KernelFamily::softmax;
        Case far = toy_case(w, slow);
        far.measured.total[Metric::gpu_time_duration] *= 10;
        with.front().cases.push_back(far);
        CalibrateOptions o2 = o;
        o2.extra_training = with;
        auto s = calibrate(d, base, toy(), o2);
        REQUIRE(s.ok());
        CHECK(s->extra_cases == 4);
        REQUIRE(s->extra_left_out.size() == 1);
        CHECK(s->extra_left_out[0].name == far.name);
        CHECK(s->extra_left_out[0].reason.find("softmax has no training case") != std::string::npos);
        CHECK(s->hw.calibration.tensor_efficiency == r->hw.calibration.tensor_efficiency);
        CHECK(s->hw.provenance.at("also_trained").find("1 left out") != std::string::npos);
        CHECK(fit_report_json(*s).find("\"extra_left_out\":[{") != std::string::npos);
        CHECK(fit_report_table(*s).find("left out 1 --also-train case: kernel family softmax") != std::string::npos);
    }

    // The extras plus the data set's first case of `split`, as the only extra file.
    auto extra_with_first = [&](Split split) {
        Dataset with = extra;
        const auto it = std::find_if(d.cases.begin(), d.cases.end(), [&](const Case& c) { return c.split == split; });
        REQUIRE(it != d.cases.end());
        with.cases.push_back(*it);
        return std::vector<Dataset>{with};
    };
    // A case of a held-out sweep of the data set is refused, naming the case and the sweep.
    o.extra_training = extra_with_first(Split::heldout);
    auto refused = calibrate(d, base, toy(), o);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("held-out sweep") != std::string::npos);
    CHECK(refused.error().message.find("series.jsonl") != std::string::npos);

    // So is a case the data set has already (a training one here).
    o.extra_training = extra_with_first(Split::train);
    auto dup = calibrate(d, base, toy(), o);
    REQUIRE_FALSE(dup.ok());
    CHECK(dup.error().message.find("already in") != std::string::npos);
}

TEST_CASE("the within-sweep weight makes the fit keep tiles' times relative to each other", "[validate][calibrate]") {
    // Every sweep (the two tiles of one m, k) measured at the toy model's times scaled by a
    // factor of its own, which no parameter of the model can produce: the per-case fit settles
    // on a compromise that also shifts the tiles of a sweep against each other; with a within-sweep
    // weight the fit must keep their ratios (exact at the generating parameters) much closer.
    Calibration truth;
    truth.tensor_efficiency = 0.6;
    truth.launch_overhead_ns = 3000;
    truth.block_overhead_ns = 400;
    Dataset d = toy_data(truth);
    for (auto& c : d.cases) {
        const auto& w = c.measured.workload;
        const double scale = 1.0 + 0.25 * static_cast<double>((w.m / 128 + w.k / 64) % 4);
        c.measured.total[Metric::gpu_time_duration] *= scale;
    }
    Hardware base;
    base.name = "toy";
    CalibrateOptions o;
    o.fit = {"tensor_efficiency", "launch_overhead_ns", "block_overhead_ns"};
    o.max_evaluations = 400;
    // RMS over the training sweeps of (e_i - the sweep's mean e), e = ln(t_pred / t_meas).
    auto within_rms = [&](const Hardware& hw) {
        std::map<std::string, std::vector<double>> by_sweep;
        for (const auto& c : d.cases)
            if (c.split == Split::train)
                by_sweep[c.key].push_back(std::log(toy_time(c.measured.workload, hw.calibration) /
                                                   c.measured.total[Metric::gpu_time_duration]));
        double s = 0;
        int n = 0;
        for (const auto& [key, e] : by_sweep) {
            double mean = 0;
            for (double x : e) mean += x / static_cast<double>(e.size());
            for (double x : e) {
                s += (x - mean) * (x - mean);
                ++n;
            }
        }
        return std::sqrt(s / n);
    };
    auto plain = calibrate(d, base, toy(), o);
    REQUIRE(plain.ok());
    CHECK(plain->within_sweep_cases == 0);
    o.within_sweep_weight = 10;
    auto weighted = calibrate(d, base, toy(), o);
    REQUIRE(weighted.ok());
    CHECK(weighted->within_sweep_weight == 10);
    CHECK(weighted->within_sweep_cases == weighted->fit_cases);  // both tiles of a sweep share its split
    const double p = within_rms(plain->hw), w = within_rms(weighted->hw);
    INFO("within-sweep rms: plain " << p << ", weighted " << w);
    CHECK(p > 0.01);
    CHECK(w < 0.5 * p);
    // It is paid for in the per-case error, which the plain fit minimises.
    CHECK(weighted->rms_log_error_after >= plain->rms_log_error_after);
    CHECK(fit_report_json(*weighted).find("\"within_sweep_weight\"") != std::string::npos);
}

namespace {
// The toy data set with a tensor microbenchmark at 0.8 of the peak, and a base profile whose
// tensor_efficiency (0.45, as a previous fit's would be) differs from it.
std::pair<Dataset, Hardware> toy_with_tensor_microbench(const Calibration& truth) {
    Dataset d = toy_data(truth);
    d.microbench.push_back({"tensor_fp16", 0.8e15, "flops_per_s"});
    Hardware base;
    base.name = "toy";
    base.tensor_fp16_flops_per_s = 1e15;
    base.calibration = truth;
    base.calibration.tensor_efficiency = 0.45;
    return {std::move(d), std::move(base)};
}
}  // namespace

TEST_CASE("a refit of a calibrated profile starts a fitted parameter at the profile's value, not the microbenchmark",
          "[validate][calibrate]") {
    // The profile's tensor_efficiency (0.45, a previous fit's) and the microbenchmark's (0.8)
    // differ; the data come from 0.62. The fit's "before" figures must be those of the point it
    // starts at: the profile's when the profile is calibrated, the microbenchmark's otherwise.
    const Calibration truth = toy_truth();
    auto toy_pair = toy_with_tensor_microbench(truth);
    Dataset& d = toy_pair.first;
    Hardware& base = toy_pair.second;
    CalibrateOptions o;
    o.fit = {"tensor_efficiency"};
    o.max_evaluations = 200;
    // The rms log time error over the training cases with tensor_efficiency = e.
    auto rms_at = [&](double e) {
        Calibration c = truth;
        c.tensor_efficiency = e;
        double s = 0;
        int n = 0;
        for (const auto& x : d.cases)
            if (x.split == Split::train) {
                const double l = std::log(toy_time(x.measured.workload, c) / toy_time(x.measured.workload, truth));
                s += l * l;
                ++n;
            }
        return std::sqrt(s / n);
    };
    REQUIRE(std::abs(rms_at(0.45) - rms_at(0.8)) > 0.05);
    auto microbench_entry = [](const CalibrationResult& r) {
        for (const auto& p : r.parameters)
            if (p.name == "tensor_efficiency" && p.how.rfind("microbenchmark", 0) == 0) return p;
        FAIL("no microbenchmark entry for tensor_efficiency");
        return r.parameters.front();
    };

    base.calibration.calibrated = true;
    auto refit = calibrate(d, base, toy(), o);
    REQUIRE(refit.ok());
    CHECK(refit->rms_log_error_before == Approx(rms_at(0.45)).epsilon(1e-9));
    CHECK(refit->hw.calibration.tensor_efficiency == Approx(0.62).epsilon(0.02));
    CHECK(microbench_entry(*refit).value == Approx(0.8));  // reported, as a reference
    CHECK(microbench_entry(*refit).how.find("reference only") != std::string::npos);

    base.calibration.calibrated = false;  // a datasheet profile: the microbenchmark is the start
    auto first = calibrate(d, base, toy(), o);
    REQUIRE(first.ok());
    CHECK(first->rms_log_error_before == Approx(rms_at(0.8)).epsilon(1e-9));
    CHECK(first->hw.calibration.tensor_efficiency == Approx(0.62).epsilon(0.02));
    CHECK(microbench_entry(*first).how.find("reference only") == std::string::npos);

    // --start still wins over both.
    base.calibration.calibrated = true;
    o.start = {{"tensor_efficiency", 0.3}};
    auto started = calibrate(d, base, toy(), o);
    REQUIRE(started.ok());
    CHECK(started->rms_log_error_before == Approx(rms_at(0.3)).epsilon(1e-9));
}

TEST_CASE("a refit that leaves a calibrated profile's efficiency out of --fit says that the microbenchmark replaces it",
          "[validate][calibrate]") {
    // Change 69's trap: the bundled profile's tensor_efficiency (0.348) was fitted with the
    // per-warp mma rate; a refit of other parameters takes the microbenchmark's (0.635) instead.
    // It still does (the microbenchmark is the measured number), but says so before the fit runs.
    const Calibration truth = toy_truth();
    auto toy_pair = toy_with_tensor_microbench(truth);
    Dataset& d = toy_pair.first;
    Hardware& base = toy_pair.second;
    base.calibration.calibrated = true;
    CalibrateOptions o;
    o.fit = {"block_overhead_ns"};
    o.max_evaluations = 20;
    std::vector<std::string> said;
    o.progress = [&](const std::string& line) { said.push_back(line); };
    auto warned_about_tensor = [&] {
        return std::count_if(said.begin(), said.end(), [](const std::string& l) {
            return l.rfind("warning: tensor_efficiency: the calibrated base profile's", 0) == 0 &&
                   l.find("replaced by the microbenchmark's") != std::string::npos &&
                   l.find("list it there") != std::string::npos;
        });
    };
    auto entry = [](const CalibrationResult& r) {
        for (const auto& p : r.parameters)
            if (p.name == "tensor_efficiency") return p.how;
        return std::string("(none)");
    };

    auto r = calibrate(d, base, toy(), o);
    REQUIRE(r.ok());
    CHECK(r->hw.calibration.tensor_efficiency == Approx(0.8));  // the behaviour is unchanged
    CHECK(warned_about_tensor() == 1);
    CHECK(entry(*r).find("replaces the calibrated base profile's") != std::string::npos);

    // Listed in --fit: it starts at the profile's value, and nothing is said.
    said.clear();
    o.fit = {"block_overhead_ns", "tensor_efficiency"};
    r = calibrate(d, base, toy(), o);
    REQUIRE(r.ok());
    CHECK(warned_about_tensor() == 0);

    // A datasheet profile (not calibrated): the microbenchmark is its first value, nothing to say.
    said.clear();
    base.calibration.calibrated = false;
    o.fit = {"block_overhead_ns"};
    r = calibrate(d, base, toy(), o);
    REQUIRE(r.ok());
    CHECK(warned_about_tensor() == 0);
    CHECK(entry(*r).find("replaces") == std::string::npos);

    // A calibrated profile already at the microbenchmark's value: nothing replaced, nothing said.
    said.clear();
    base.calibration.calibrated = true;
    base.calibration.tensor_efficiency = 0.8;
    r = calibrate(d, base, toy(), o);
    REQUIRE(r.ok());
    CHECK(warned_about_tensor() == 0);
}

TEST_CASE("calibrate --hold-unfitted keeps every field outside --fit at the calibrated base profile's value",
          "[validate][calibrate]") {
    // The base holds the generating tensor efficiency (0.62); the microbenchmark says 0.8. With
    // the hold, a fit of block_overhead_ns alone recovers the generating 400 ns and nothing else
    // moves; without it, the microbenchmark replaces the efficiency and the fit lands elsewhere.
    const Calibration truth = toy_truth();
    auto toy_pair = toy_with_tensor_microbench(truth);
    Dataset& d = toy_pair.first;
    Hardware& base = toy_pair.second;
    d.microbench.push_back({"launch_overhead", 2500.0, "ns"});
    d.microbench.push_back({"hbm_latency", 600.0, "ns"});
    d.microbench.push_back({"l2_latency", 300.0, "ns"});
    d.microbench.push_back({"l2_bandwidth", 5e12, "bytes_per_s"});
    base.calibration.tensor_efficiency = truth.tensor_efficiency;
    base.calibration.block_overhead_ns = 250;  // where the fit starts
    base.calibration.fp32_efficiency = 0.7;
    base.calibration.l2_efficiency = 0.9;
    base.hbm_latency_ns = 400;
    base.l2_latency_ns = 200;
    base.l2_bandwidth_bytes_per_s = 8e12;
    base.calibration.calibrated = true;
    CalibrateOptions o;
    o.fit = {"block_overhead_ns"};
    o.max_evaluations = 60;
    o.fit_lrc = false;
    o.hold_unfitted = true;
    std::vector<std::string> said;
    o.progress = [&](const std::string& line) { said.push_back(line); };

    auto held = calibrate(d, base, toy(), o);
    REQUIRE(held.ok());
    const Calibration& c = held->hw.calibration;
    CHECK(c.block_overhead_ns == Approx(400).epsilon(0.01));
    CHECK(c.tensor_efficiency == truth.tensor_efficiency);
    CHECK(c.fp32_efficiency == 0.7);  // no microbenchmark, yet not fitted
    CHECK(c.l2_efficiency == 0.9);
    CHECK(c.launch_overhead_ns == truth.launch_overhead_ns);
    CHECK(held->hw.hbm_latency_ns == 400);
    CHECK(held->hw.l2_latency_ns == 200);
    CHECK(held->hw.l2_bandwidth_bytes_per_s == 8e12);
    CHECK(held->rms_log_error_after < 1e-3);
    CHECK(std::none_of(said.begin(), said.end(), [](const std::string& l) { return l.rfind("warning:", 0) == 0; }));
    int fitted = 0, references = 0;
    for (const auto& p : held->parameters) {
        fitted += p.how.rfind("fitted", 0) == 0 ? 1 : 0;
        references += p.how.find("(--hold-unfitted)") != std::string::npos ? 1 : 0;
    }
    CHECK(fitted == 1);
    CHECK(references == 5);  // tensor_fp16, l2_bandwidth, hbm_latency, l2_latency, launch_overhead
    for (const auto& p : held->parameters)  // each entry's value is the one the profile keeps
        if (p.name == "tensor_efficiency") CHECK(p.value == truth.tensor_efficiency);

    // The same fit without the hold: the microbenchmarks set the efficiency and the overhead.
    o.hold_unfitted = false;
    auto moved = calibrate(d, base, toy(), o);
    REQUIRE(moved.ok());
    CHECK(moved->hw.calibration.tensor_efficiency == Approx(0.8));
    CHECK(moved->hw.calibration.launch_overhead_ns == 2500);
    CHECK(moved->rms_log_error_after > 0.01);

    // A datasheet base has nothing calibrated to hold: refused by name.
    o.hold_unfitted = true;
    base.calibration.calibrated = false;
    auto refused = calibrate(d, base, toy(), o);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("--hold-unfitted needs a calibrated base profile") != std::string::npos);
}

TEST_CASE("calibrate fits the fragment store hold and the share of it the other blocks wait, with the rest held",
          "[validate][calibrate]") {
    // The toy plus a store wait per block of hold x its output bytes, and the share load_wait of
    // it that the other blocks stand still for, weighted by their work (K): the two fields' roles
    // in the simulator, in toy form. The share lives in (0, 1], the hold is far below 1 ns per byte (its log-space floor
    // must let the search reach it).
    Calibration truth = toy_truth();
    truth.fragment_store_hold_ns_per_byte = 0.08;
    truth.fragment_store_load_wait = 0.8;
    TimeModel with_hold = [](const Workload& w, const Calibration& c) {
        const double blocks = double(w.m / w.tile.m) * double(w.n / w.tile.n);
        const double wait = c.fragment_store_hold_ns_per_byte * 2.0 * double(w.tile.m) * double(w.tile.n);
        return toy_time(w, c) + blocks * wait * (1.0 + c.fragment_store_load_wait * double(w.k) / 1024.0);
    };
    Dataset d = toy_data(truth);
    for (Case& c : d.cases) c.measured.total[Metric::gpu_time_duration] = with_hold(c.measured.workload, truth);
    Hardware base;
    base.name = "toy";
    base.calibration = truth;
    base.calibration.fragment_store_hold_ns_per_byte = 0.03;
    base.calibration.fragment_store_load_wait = 0.4;
    base.calibration.calibrated = true;
    CalibrateOptions o;
    o.fit = {"fragment_store_hold_ns_per_byte", "fragment_store_load_wait"};
    o.hold_unfitted = true;
    o.max_evaluations = 400;
    auto r = calibrate(d, base, toy(with_hold), o);
    INFO((r ? std::string() : r.error().message));
    REQUIRE(r.ok());
    CHECK(r->hw.calibration.fragment_store_hold_ns_per_byte == Approx(0.08).epsilon(0.02));
    CHECK(r->hw.calibration.fragment_store_load_wait == Approx(0.8).epsilon(0.02));
    CHECK(r->hw.calibration.tensor_efficiency == truth.tensor_efficiency);
    // A start outside (0, 1] for the share is refused by name.
    o.start = {{"fragment_store_load_wait", 1.5}};
    auto bad = calibrate(d, base, toy(with_hold), o);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("fragment_store_load_wait must be in (0, 1]") != std::string::npos);
}
