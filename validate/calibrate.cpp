#include "validate/calibrate.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "validate/fit.hpp"
#include "validate/prediction_cache.hpp"
#include "validate/stats.hpp"

namespace tilescope::validate {

namespace json = boost::json;

Result<double*> calibration_field(Calibration& c, const std::string& name) {
    // Fittable: the fields calibration_parameter_names() lists (not sm_l2_bytes_per_cycle, a
    // hardware fact).
    const auto& names = calibration_parameter_names();
    if (std::find(names.begin(), names.end(), name) != names.end()) {
        if (double* field = calibration_member(c, name)) return field;
    }
    std::string all;
    for (const auto& n : calibration_parameter_names()) all += (all.empty() ? "" : ", ") + n;
    return make_error("unknown calibration parameter '" + name + "' (known: " + all + ")");
}

namespace {

// Parameters that live in (0, 1]: the efficiencies, the warp overlap exponent and the share of a
// fragment store wait that the SM's other blocks stand still for.
bool is_efficiency(const std::string& name) {
    return name.find("_efficiency") != std::string::npos || name == "warp_overlap_exponent" ||
           name == "fragment_store_load_wait";
}
// Below this a positive parameter is physically "none" (its log-space floor).
double floor_of(const std::string& name) {
    if (name == "warp_load_issue_ns_per_byte" || name == "load_latency_ns_per_byte" ||
        name == "warp_smem_read_ns_per_byte" || name == "warp_op_ns" || name == "warp_store_issue_ns_per_byte")
        return 1e-3;
    if (name == "fragment_store_hold_ns_per_byte") return 1e-4;
    if (name == "load_latency_scale") return 0.05;
    return 1.0;
}

// Whether a case name contains one of the texts of CalibrateOptions::fit_include.
bool names_included(const std::string& name, const std::vector<std::string>& texts) {
    for (const std::string& t : texts)
        if (name.find(t) != std::string::npos) return true;
    return false;
}

std::string join_quoted(const std::vector<std::string>& texts) {
    std::string out;
    for (std::size_t i = 0; i < texts.size(); ++i)
        out += (i == 0 ? "'" : (i + 1 == texts.size() ? " or '" : ", '")) + texts[i] + "'";
    return out;
}

std::string sci(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

// Maps a physical parameter to the unconstrained fit space and back.
double to_free(const std::string& name, double v) {
    if (is_efficiency(name)) return logit(std::clamp(v, 0.02, 0.995));
    return std::log(std::max(v, floor_of(name)));  // ns, ns per byte or FLOP/cycle/warp
}
// Starting point of the fit: overheads left at 0 start at a typical size (1 us per launch,
// 100 ns per block) so the log-space search begins in the right decade.
double fit_start(const std::string& name, double v) {
    if (name == "launch_overhead_ns" && v <= 0) return 1000.0;
    if (name == "block_overhead_ns" && v <= 0) return 100.0;
    // No limit yet: start at one m16n8k16 mma.sync (4096 FLOP) per ~32 cycles per warp.
    if (name == "tensor_flops_per_cycle_per_warp" && v <= 0) return 128.0;
    // Warp model: ~300 ns per iteration (two barriers and a softmax reduction chain), ~1 ns per
    // byte a thread loads (16 B per cp.async plus its address arithmetic), half overlap.
    if (name == "warp_iteration_ns" && v <= 0) return 300.0;
    if (name == "warp_load_issue_ns_per_byte" && v <= 0) return 1.0;
    if (name == "warp_overlap_exponent" && v >= 1.0) return 0.5;
    // Loaded tile latency: start at twice the pointer chase.
    if (name == "load_latency_scale" && v == 1.0) return 2.0;
    if (name == "load_latency_ns_per_byte" && v <= 0) return 1.0;
    // Queueing: the 0.15 us per TB/s that change 27's softmax grid shows (docs/validation).
    if (name == "load_latency_ns_per_tbps" && v <= 0) return 150.0;
    // Change 45: 64 ns per 4 KiB a block's tiles load, as the GEMM iteration series shows.
    if (name == "warp_fill_wait_ns_per_byte" && v <= 0) return 0.015;
    // Change 76: the flash1 step probe's store cost, ~5 ns per byte a thread stores.
    if (name == "warp_store_issue_ns_per_byte" && v <= 0) return 5.0;
    // A block reduction: five dependent shuffles, a shared-memory exchange and two barriers,
    // ~300 cycles (~150 ns at 1.98 GHz).
    if (name == "block_reduction_ns" && v <= 0) return 150.0;
    // ~0.05 ns per fragment byte a warp reads (an ldmatrix.x4, 512 B, every ~13 cycles) and
    // ~0.5 ns per scalar operation (a dependent FP32 chain, ~2 cycles each at half overlap).
    if (name == "warp_smem_read_ns_per_byte" && v <= 0) return 0.05;
    if (name == "warp_op_ns" && v <= 0) return 0.5;
    // Half-sector (fragment) stores: start at the 0.87 TB/s measured for them alone
    // (bench/scripts/hbm_write_rate.py).
    if (name == "fragment_store_bytes_per_s" && v <= 0) return 0.87e12;
    // DRAM pages opened per second (change 37): start where naive attention's P V, whose 64-byte
    // row segments each open a page, would move its measured 1.66 TB/s (26 G pages/s).
    if (name == "hbm_activations_per_s" && v <= 0) return 2.6e10;
    // Change 60: the QK^T timeline probe's 0.079 ns per stored byte, and change 61's 0.82 of it
    // that the SM's other blocks stand still for.
    if (name == "fragment_store_hold_ns_per_byte" && v <= 0) return 0.079;
    if (name == "fragment_store_load_wait" && v <= 0) return 0.82;
    return v;
}
double from_free(const std::string& name, double u) {
    if (is_efficiency(name)) return logistic(u);
    const double v = std::exp(std::clamp(u, -10.0, 30.0));  // 30: rates in bytes per second (e^30 = 1.1e13)
    // Never a value the profile would refuse to load (core/hardware.hpp plausible_range): the
    // fit would run to its end and the calibrated profile could not be written.
    if (const auto range = plausible_range(name)) return std::clamp(v, range->lo, range->hi);
    return v;
}

}  // namespace

std::vector<double> case_residuals(const Case& c, const Prediction& p) {
    const auto& ml = c.measured.launches;
    std::vector<double> out(std::max<std::size_t>(1, ml.size()), 0.0);
    const double t = quantity_of(p, Quantity::time);
    if (!(t > 0) || !std::isfinite(t)) {
        std::fill(out.begin(), out.end(), NAN);
        return out;
    }
    if (ml.size() > 1 && ml.size() == p.launches.size()) {
        const double w = 1.0 / std::sqrt(static_cast<double>(ml.size()));
        bool usable = true;
        for (std::size_t l = 0; l < ml.size() && usable; ++l) {
            const double a = p.launches[l].metrics[Metric::gpu_time_duration];
            const double b = ml[l].metrics[Metric::gpu_time_duration];
            usable = a > 0 && b > 0 && std::isfinite(a) && std::isfinite(b);
            out[l] = usable ? w * std::log(a / b) : 0.0;
        }
        if (usable) return out;
        std::fill(out.begin(), out.end(), 0.0);
    }
    out[0] = std::log(t / quantity_of(c.measured, Quantity::time));
    return out;
}

double case_error(const Case& c, const Prediction& p) {
    double s = 0;
    for (const double r : case_residuals(c, p)) s += r * r;
    return s;
}

namespace {

struct Predicted {
    std::vector<double> time;   // total time per case (NaN where a prediction fails)
    std::vector<double> error;  // case_error per case
};

// Predicted times of `cases` with `hw`, on `jobs` threads.
Predicted predict_times(const std::vector<const Case*>& cases, const Hardware& hw, const Predictor& predict,
                        int jobs) {
    Predicted out{std::vector<double>(cases.size(), NAN), std::vector<double>(cases.size(), NAN)};
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next++; i < cases.size(); i = next++) {
            auto p = predict(cases[i]->measured.workload, hw);
            if (!p) continue;
            out.time[i] = quantity_of(*p, Quantity::time);
            out.error[i] = case_error(*cases[i], *p);
        }
    };
    std::vector<std::thread> pool;
    for (int j = 1; j < std::max(1, jobs); ++j) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    return out;
}

// The fit cases grouped by sweep key (indices into `cases`), only sweeps with two or more.
std::vector<std::vector<std::size_t>> sweep_groups(const std::vector<const Case*>& cases) {
    std::map<std::string, std::vector<std::size_t>> by_key;
    for (std::size_t i = 0; i < cases.size(); ++i) by_key[cases[i]->key].push_back(i);
    std::vector<std::vector<std::size_t>> out;
    for (auto& [key, idx] : by_key)
        if (idx.size() >= 2) out.push_back(std::move(idx));
    return out;
}

// CalibrateOptions::within_sweep_weight: appends w x (e_i - mean e over i's sweep) for every case
// of `groups`, e = ln(t_pred / t_meas) of the total time (NaN where a prediction failed).
void append_within_sweep(const std::vector<std::vector<std::size_t>>& groups, double w,
                         const std::vector<double>& log_error, std::vector<double>& out) {
    for (const auto& g : groups) {
        double mean = 0;
        for (const std::size_t i : g) mean += log_error[i];
        mean /= static_cast<double>(g.size());
        for (const std::size_t i : g) out.push_back(w * (log_error[i] - mean));
    }
}

double total_log_error(const Case& c, const Prediction& p) {
    const double t = quantity_of(p, Quantity::time), m = quantity_of(c.measured, Quantity::time);
    return t > 0 && m > 0 && std::isfinite(t) && std::isfinite(m) ? std::log(t / m) : NAN;
}

// The stacked case_residuals of `cases` for each of `hws` (one vector per profile), on `jobs`
// threads over profiles x cases, so a batch of fit points keeps every thread busy even when one
// case costs far more than the rest (`cases` is ordered most expensive first). With w > 0 the
// within-sweep residuals of `groups` follow (append_within_sweep).
std::vector<std::vector<double>> predict_residuals(const std::vector<const Case*>& cases,
                                                   const std::vector<Hardware>& hws, const Predictor& predict,
                                                   int jobs, const std::vector<std::vector<std::size_t>>& groups,
                                                   double w) {
    std::vector<std::size_t> offset(cases.size() + 1, 0);
    for (std::size_t i = 0; i < cases.size(); ++i)
        offset[i + 1] = offset[i] + std::max<std::size_t>(1, cases[i]->measured.launches.size());
    std::vector<std::vector<double>> out(hws.size(), std::vector<double>(offset.back(), NAN));
    std::vector<std::vector<double>> log_error(hws.size(), std::vector<double>(cases.size(), NAN));
    const std::size_t tasks = cases.size() * hws.size();
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t t = next++; t < tasks; t = next++) {
            const std::size_t i = t / hws.size(), k = t % hws.size();  // case-major: costly cases first
            auto p = predict(cases[i]->measured.workload, hws[k]);
            if (!p) continue;
            const std::vector<double> r = case_residuals(*cases[i], *p);
            std::copy(r.begin(), r.end(), out[k].begin() + static_cast<std::ptrdiff_t>(offset[i]));
            log_error[k][i] = total_log_error(*cases[i], *p);
        }
    };
    std::vector<std::thread> pool;
    for (int j = 1; j < std::max(1, jobs); ++j) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (w > 0)
        for (std::size_t k = 0; k < hws.size(); ++k) append_within_sweep(groups, w, log_error[k], out[k]);
    return out;
}

// Quantity `q` predicted for each of `cases` with each of `hws` (NaN where a prediction fails),
// on `jobs` threads over profiles x cases.
std::vector<std::vector<double>> predict_quantity(const std::vector<const Case*>& cases,
                                                  const std::vector<Hardware>& hws, const Predictor& predict,
                                                  Quantity q, int jobs) {
    std::vector<std::vector<double>> out(hws.size(), std::vector<double>(cases.size(), NAN));
    const std::size_t tasks = cases.size() * hws.size();
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t t = next++; t < tasks; t = next++) {
            const std::size_t i = t / hws.size(), k = t % hws.size();
            if (auto p = predict(cases[i]->measured.workload, hws[k])) out[k][i] = quantity_of(*p, q);
        }
    };
    std::vector<std::thread> pool;
    for (int j = 1; j < std::max(1, jobs); ++j) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    return out;
}

// The L2 request coalescer (core/hardware.hpp Calibration::lrc_*). For a fixed loss per
// iteration the simulator merges p x exp(-loss i) of every joined load, so a case's predicted
// lts__t_bytes is exactly linear in the p of its residency:
//   lts(p1, pm) = base - p1 d1 - pm d2,  d1 = base - lts(1, 0), d2 = base - lts(0, 1)
// (a launch has one residency, so each case moves with one of them). For every loss on a grid
// (0 to 0.03 per iteration in steps of 0.002) this predicts the cases with (1, 0) and (0, 1),
// solves the 2 x 2 least squares on the relative errors (lts - measured) / measured for (p1, pm),
// clamped to [0, 1], and keeps the loss with the smallest sum of squares. The cases: the
// training FlashAttention-2 and GEMM cases (the families whose blocks read shared tiles at once;
// Nsight Compute measured the coalescer merging 4-52% of their reads, and nothing for
// FlashAttention-1). Returns false (and changes nothing) when the model merges nothing.
struct LrcFit {
    double one = 0, several = 0, loss = 0, sum_sq = 0;
    double mape_before = 0, mape_after = 0;
    std::size_t cases = 0;
};
// max_cases > 0 takes the max_cases cheapest of them to simulate (calibrate --max-fit-cases
// bounds this fit too: it predicts every case at 33 points). fixed_loss >= 0 holds the loss at
// that value (a grid of one point: 3 predictions per case).
bool fit_lrc(const Dataset& data, const Hardware& hw, const Predictor& predict, int jobs, std::size_t max_cases,
             double fixed_loss, const std::function<void(const std::string&)>& progress, LrcFit& fit) {
    std::vector<std::pair<double, const Case*>> by_cost;
    for (const auto& c : data.cases) {
        const KernelFamily k = c.measured.workload.kernel;
        if (c.split != Split::train || (k != KernelFamily::attention_flash2 && k != KernelFamily::gemm)) continue;
        const double m = quantity_of(c.measured, Quantity::lts_bytes);
        if (std::isfinite(m) && m > 0) by_cost.emplace_back(simulation_cost(c.measured.workload, hw), &c);
    }
    if (max_cases > 0 && max_cases < by_cost.size()) {
        std::stable_sort(by_cost.begin(), by_cost.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        by_cost.resize(max_cases);
    }
    std::vector<const Case*> cases;
    std::vector<double> meas;
    for (const auto& [cost, c] : by_cost) {
        cases.push_back(c);
        meas.push_back(quantity_of(c->measured, Quantity::lts_bytes));
    }
    if (cases.empty()) return false;
    const bool fixed = fixed_loss >= 0;
    const int kGrid = fixed ? 1 : 16;
    constexpr double kStep = 0.002;
    const auto loss_at = [&](int g) { return fixed ? fixed_loss : kStep * g; };
    if (progress)
        progress("fitting the L2 request coalescer (lrc_*) on the L2 bytes of " + std::to_string(cases.size()) +
                 " training FlashAttention-2 and GEMM cases: " + std::to_string((1 + 2 * kGrid) * cases.size()) +
                 " simulations (--no-lrc-fit skips it" + (fixed ? "; loss per iteration held" : "") + ")");
    std::vector<Hardware> hws(1 + 2 * kGrid, hw);
    for (Hardware& h : hws) {
        h.calibration.lrc_in_step_one_block = h.calibration.lrc_in_step_several_blocks = 0;
        h.calibration.lrc_lock_loss_per_iteration = 0;
    }
    for (int g = 0; g < kGrid; ++g) {
        for (int k = 0; k < 2; ++k) {
            Calibration& c = hws[static_cast<std::size_t>(1 + 2 * g + k)].calibration;
            (k == 0 ? c.lrc_in_step_one_block : c.lrc_in_step_several_blocks) = 1.0;
            c.lrc_lock_loss_per_iteration = loss_at(g);
        }
    }
    const auto lts = predict_quantity(cases, hws, predict, Quantity::lts_bytes, jobs);
    std::vector<std::size_t> ok;  // cases every profile predicted
    for (std::size_t i = 0; i < cases.size(); ++i) {
        bool all = true;
        for (const auto& v : lts) all = all && std::isfinite(v[i]) && v[i] > 0;
        if (all) ok.push_back(i);
    }
    if (ok.empty()) return false;
    const std::vector<double>& base = lts[0];
    bool found = false, merges = false;
    for (int g = 0; g < kGrid; ++g) {
        const auto& a = lts[static_cast<std::size_t>(1 + 2 * g)];
        const auto& b = lts[static_cast<std::size_t>(2 + 2 * g)];
        double s11 = 0, s22 = 0, s12 = 0, r1 = 0, r2 = 0;
        for (const std::size_t i : ok) {
            const double x1 = (base[i] - a[i]) / meas[i], x2 = (base[i] - b[i]) / meas[i];
            const double y = (base[i] - meas[i]) / meas[i];
            s11 += x1 * x1;
            s22 += x2 * x2;
            s12 += x1 * x2;
            r1 += x1 * y;
            r2 += x2 * y;
        }
        if (s11 <= 0 && s22 <= 0) continue;  // nothing merges at this loss
        merges = true;
        const double det = s11 * s22 - s12 * s12;
        double p1 = 0, p2 = 0;
        if (det > 1e-12 * std::max(1.0, s11 * s22)) {
            p1 = (r1 * s22 - r2 * s12) / det;
            p2 = (r2 * s11 - r1 * s12) / det;
        }
        auto refit2 = [&] { p2 = s22 > 0 ? std::clamp((r2 - p1 * s12) / s22, 0.0, 1.0) : 0.0; };
        auto refit1 = [&] { p1 = s11 > 0 ? std::clamp((r1 - p2 * s12) / s11, 0.0, 1.0) : 0.0; };
        if (!(det > 1e-12 * std::max(1.0, s11 * s22))) {
            p2 = 0;
            refit1();
            refit2();
        } else if (p1 < 0 || p1 > 1) {
            p1 = std::clamp(p1, 0.0, 1.0);
            refit2();
        } else if (p2 < 0 || p2 > 1) {
            p2 = std::clamp(p2, 0.0, 1.0);
            refit1();
        }
        double sse = 0;
        for (const std::size_t i : ok) {
            const double pred = base[i] - p1 * (base[i] - a[i]) - p2 * (base[i] - b[i]);
            sse += std::pow((pred - meas[i]) / meas[i], 2);
        }
        if (!found || sse < fit.sum_sq) {
            found = true;
            fit.one = p1;
            fit.several = p2;
            fit.loss = loss_at(g);
            fit.sum_sq = sse;
        }
    }
    if (!merges || !found || (fit.one <= 0 && fit.several <= 0)) return false;
    const std::size_t g = fixed ? 0 : static_cast<std::size_t>(std::lround(fit.loss / kStep));
    double before = 0, after = 0;
    for (const std::size_t i : ok) {
        const double pred = base[i] - fit.one * (base[i] - lts[1 + 2 * g][i]) - fit.several * (base[i] - lts[2 + 2 * g][i]);
        before += std::abs(base[i] - meas[i]) / meas[i];
        after += std::abs(pred - meas[i]) / meas[i];
    }
    fit.cases = ok.size();
    fit.mape_before = before / static_cast<double>(ok.size());
    fit.mape_after = after / static_cast<double>(ok.size());
    return true;
}

double rms_log(const std::vector<double>& pred, const std::vector<double>& meas) {
    double s = 0;
    for (std::size_t i = 0; i < pred.size(); ++i) {
        if (!(pred[i] > 0) || !std::isfinite(pred[i])) return INFINITY;
        const double l = std::log(pred[i] / meas[i]);
        s += l * l;
    }
    return std::sqrt(s / static_cast<double>(pred.size()));
}

double mape_of(const std::vector<double>& pred, const std::vector<double>& meas) {
    auto s = summarize_errors(pred, meas);
    return s ? s->mape : NAN;
}

}  // namespace

Result<CalibrationResult> calibrate(const Dataset& data, const Hardware& base, const Predictor& predict,
                                    const CalibrateOptions& options) {
    CalibrationResult r;
    r.hw = base;
    Calibration& cal = r.hw.calibration;

    // 1. Microbenchmarks.
    struct Direct {
        const char* bench;
        const char* param;
        double denominator;
        const char* what;
        const char* unit;
    };
    const double smem_peak = base.smem_bandwidth_bytes_per_cycle_per_sm * base.sm_clock_hz * base.sm_count;
    const Direct direct[] = {
        {"hbm_bandwidth", "hbm_efficiency", base.hbm_bandwidth_bytes_per_s, "profile hbm_bandwidth_bytes_per_s", "B/s"},
        {"smem_bandwidth", "smem_efficiency", smem_peak, "smem B/clk/SM x sm_clock x SMs", "B/s"},
        {"tensor_fp16", "tensor_efficiency", base.tensor_fp16_flops_per_s, "profile tensor_fp16_flops_per_s", "FLOP/s"},
        {"fp32", "fp32_efficiency", base.fp32_flops_per_s, "profile fp32_flops_per_s", "FLOP/s"},
    };
    // A microbenchmark below 1% or above 150% of its peak is a broken measurement or a wrong
    // unit, not an efficiency to clamp: refused before anything is fitted. Between 100% and 150%
    // (a clock above the datasheet's) the efficiency is 1.
    constexpr double kMinOfPeak = 0.01, kMaxOfPeak = 1.5;
    std::vector<std::string> fit = options.fit;
    for (const auto& f : fit)
        if (auto field = calibration_field(cal, f); !field) return field.error();
    const bool hold = options.hold_unfitted;
    if (hold && !base.calibration.calibrated)
        return make_error("calibrate: --hold-unfitted needs a calibrated base profile (" + base.name +
                          " is not calibrated: the fields it would hold are datasheet numbers and estimates)");
    for (const Direct& d : direct) {
        const double v = microbench_value(data, d.bench);
        double* field = *calibration_field(cal, d.param);
        const bool fitted = std::find(fit.begin(), fit.end(), d.param) != fit.end();
        if (std::isfinite(v) && d.denominator > 0) {
            if (!(v >= kMinOfPeak * d.denominator && v <= kMaxOfPeak * d.denominator))
                return make_error("calibrate: microbenchmark " + std::string(d.bench) + " = " + sci(v) + " " + d.unit +
                                  " is implausible: outside [" + sci(kMinOfPeak * d.denominator) + ", " +
                                  sci(kMaxOfPeak * d.denominator) + "] " + d.unit + " (1% to 150% of " + d.what + " " +
                                  sci(d.denominator) + ")");
            const double measured = std::clamp(v / d.denominator, kMinOfPeak, 1.0);
            std::string how = std::string("microbenchmark ") + d.bench + " = " + sci(v) + " / " + d.what + " " +
                              sci(d.denominator);
            // A refit of a calibrated profile starts a fitted parameter at that profile's value
            // (the previous fit's result), not at the microbenchmark: restarting it there moves
            // the search to another point than the profile being refitted, and the fit's "before"
            // figures would not be the profile's. The microbenchmark stays in the report.
            if (fitted && base.calibration.calibrated) {
                how += "; a reference only: the fit starts at the calibrated base profile's " + sci(*field);
            } else if (hold) {
                how += "; a reference only: held at the calibrated base profile's " + sci(*field) + " (--hold-unfitted)";
            } else {
                // Not fitted, so the microbenchmark sets it. On a calibrated base whose value was
                // fitted away from the microbenchmark (tensor_efficiency, fitted with the per-warp
                // mma rate), that silently moves the model off the profile being refitted: said
                // in the report and at once on the progress stream, before the fit runs.
                if (base.calibration.calibrated && std::abs(*field - measured) > 0.005 * measured) {
                    const std::string why = std::string(d.param) + ": the calibrated base profile's " + sci(*field) +
                                            " is replaced by the microbenchmark's " + sci(measured) +
                                            " (not in --fit; list it there to refit from " + sci(*field) + ")";
                    how += "; replaces the calibrated base profile's " + sci(*field) + " (not in --fit)";
                    if (options.progress) options.progress("warning: " + why);
                }
                *field = measured;
            }
            // Held: the entry's value is the one the profile keeps (the microbenchmark is in `how`).
            r.parameters.push_back({d.param, hold && !fitted ? *field : measured, how});
        } else if (!fitted && !hold) {
            fit.push_back(d.param);  // no microbenchmark: the fit must find it
        }
    }
    // The microbenchmarks that become profile numbers must be within the profile's own limits
    // (plausible_range, core/hardware.hpp), or the calibrated profile would not load.
    struct Limit {
        const char* bench;
        const char* field;  // the profile number it becomes
        const char* unit;
    };
    for (const Limit& l : {Limit{"l2_bandwidth", "l2_bandwidth_bytes_per_s", "B/s"},
                           Limit{"hbm_latency", "hbm_latency_ns", "ns"}, Limit{"l2_latency", "l2_latency_ns", "ns"},
                           Limit{"launch_overhead", "launch_overhead_ns", "ns"}}) {
        const auto range = plausible_range(l.field);
        if (const double v = microbench_value(data, l.bench); range && std::isfinite(v) && !(v >= range->lo && v <= range->hi))
            return make_error("calibrate: microbenchmark " + std::string(l.bench) + " = " + sci(v) + " " + l.unit +
                              " is implausible: outside [" + sci(range->lo) + ", " + sci(range->hi) + "] " + l.unit +
                              " (a profile's limit)");
    }
    // L2 bandwidth is in no datasheet (profiles carry an estimate): the measured figure replaces
    // the profile's value and l2_efficiency stays 1.
    if (hold) {
        // --hold-unfitted: the latencies, the L2 bandwidth and the launch overhead stay the base
        // profile's; the microbenchmarks are listed for reference.
        struct Held {
            const char* bench;
            const char* field;
            double value;
        };
        for (const Held& h : {Held{"l2_bandwidth", "l2_bandwidth_bytes_per_s", base.l2_bandwidth_bytes_per_s},
                              Held{"hbm_latency", "hbm_latency_ns", base.hbm_latency_ns},
                              Held{"l2_latency", "l2_latency_ns", base.l2_latency_ns},
                              Held{"launch_overhead", "launch_overhead_ns", cal.launch_overhead_ns}}) {
            const double v = microbench_value(data, h.bench);
            if (!std::isfinite(v) || std::find(fit.begin(), fit.end(), h.field) != fit.end()) continue;
            r.parameters.push_back({h.field, h.value,
                                    std::string("held at the calibrated base profile's value (--hold-unfitted); "
                                                "microbenchmark ") + h.bench + " = " + sci(v) + ", a reference only"});
        }
    } else if (const double v = microbench_value(data, "l2_bandwidth"); std::isfinite(v)) {
        r.hw.l2_bandwidth_bytes_per_s = v;
        r.hw.sources["l2_bandwidth_bytes_per_s"] =
            "measured: reads of an L2-resident buffer, whole GPU (tilescope calibrate microbenchmark)";
        cal.l2_efficiency = 1.0;
        r.parameters.push_back({"l2_bandwidth_bytes_per_s", v,
                                "microbenchmark l2_bandwidth (replaces the profile's estimate " +
                                    sci(base.l2_bandwidth_bytes_per_s) + "); l2_efficiency = 1"});
    } else if (std::find(fit.begin(), fit.end(), "l2_efficiency") == fit.end()) {
        fit.push_back("l2_efficiency");
    }
    if (const double v = microbench_value(data, "hbm_latency"); !hold && std::isfinite(v)) {
        r.hw.hbm_latency_ns = v;
        r.hw.sources["hbm_latency_ns"] = "measured: pointer chase microbenchmark (tilescope calibrate)";
        r.parameters.push_back({"hbm_latency_ns", v, "microbenchmark hbm_latency (pointer chase)"});
    }
    // The launch overhead: an empty kernel timed like a case. It is measured, so it is not
    // fitted: the training cases (the shortest runs ~100 us) barely constrain a few us per launch,
    // and a fit trades it against the per-block and per-iteration terms.
    if (const double v = microbench_value(data, "launch_overhead"); !hold && std::isfinite(v) && v >= 0) {
        cal.launch_overhead_ns = v;
        fit.erase(std::remove(fit.begin(), fit.end(), std::string("launch_overhead_ns")), fit.end());
        r.parameters.push_back({"launch_overhead_ns", v, "microbenchmark launch_overhead (empty kernel, CUDA events)"});
    }
    if (const double v = microbench_value(data, "l2_latency"); !hold && std::isfinite(v)) {
        r.hw.l2_latency_ns = v;
        r.hw.sources["l2_latency_ns"] = "measured: pointer chase microbenchmark (tilescope calibrate)";
        r.parameters.push_back({"l2_latency_ns", v, "microbenchmark l2_latency (pointer chase)"});
    }

    // The fitted list is final here; a bad --start is reported before any simulation runs.
    std::string fitted;
    for (const auto& f : fit) fitted += (fitted.empty() ? "" : ", ") + f;
    for (const auto& [name, value] : options.start) {
        if (std::find(fit.begin(), fit.end(), name) == fit.end())
            return make_error("calibrate: --start gives '" + name + "', which is not fitted (fitted: " + fitted + ")");
        if (!(value > 0) || !std::isfinite(value) || (is_efficiency(name) && value > 1))
            return make_error("calibrate: --start " + name + " must be " +
                              (is_efficiency(name) ? std::string("in (0, 1] (an efficiency)") : std::string("> 0")) +
                              " (got " + sci(value) + ")");
    }
    // Extra training cases (--also-train) must not repeat a case of the data set or share a
    // held-out sweep's shape; checked before any simulation runs.
    {
        std::set<std::string> names, heldout_keys;
        for (const auto& c : data.cases) {
            names.insert(c.name);
            if (c.split == Split::heldout) heldout_keys.insert(c.key);
        }
        for (const auto& extra : options.extra_training)
            for (const auto& c : extra.cases) {
                if (heldout_keys.count(c.key) != 0)
                    return make_error("calibrate: --also-train " + extra.origin + ": case " + c.name +
                                      " belongs to held-out sweep " + c.key + " of " + data.origin +
                                      " (extra training cases must not share a held-out sweep's shape)");
                if (!names.insert(c.name).second)
                    return make_error("calibrate: --also-train " + extra.origin + ": case " + c.name +
                                      " is already in " + data.origin + " or an earlier --also-train file");
            }
    }
    // The start point replaces the profile's (and the microbenchmarks') values from here on, so
    // the coalescer fit and the "before" figures of the time fit are taken at it.
    for (const auto& [name, value] : options.start) *(*calibration_field(cal, name)) = value;

    // 2. The L2 request coalescer, on lts__t_bytes, before the time fit: the bytes it merges
    // are taken off the L2's work, so the time parameters are fitted with it in place. It
    // uses the time parameters of the start point (the previous fit's when a calibrated
    // profile is refitted); they move a case's merged share only through the join window.
    LrcFit lrc;
    if (options.fit_lrc &&
        fit_lrc(data, r.hw, predict, options.jobs, static_cast<std::size_t>(std::max(0, options.max_fit_cases)),
                options.lrc_fixed_loss, options.progress, lrc)) {
        cal.lrc_in_step_one_block = std::round(lrc.one * 1e4) / 1e4;
        cal.lrc_in_step_several_blocks = std::round(lrc.several * 1e4) / 1e4;
        cal.lrc_lock_loss_per_iteration = lrc.loss;
        r.lrc_cases = lrc.cases;
        r.lrc_lts_mape_before = lrc.mape_before;
        r.lrc_lts_mape_after = lrc.mape_after;
        const std::string how = "fitted: least squares on (lts_pred - lts_meas) / lts_meas over " + std::to_string(lrc.cases) +
                                " training FlashAttention-2 and GEMM cases (loss per iteration " +
                                (options.lrc_fixed_loss >= 0 ? std::string("held, calibrate --lrc-loss")
                                                             : std::string("on a 0.002 grid")) + ")";
        r.parameters.push_back({"lrc_in_step_one_block", cal.lrc_in_step_one_block, how});
        r.parameters.push_back({"lrc_in_step_several_blocks", cal.lrc_in_step_several_blocks, how});
        r.parameters.push_back({"lrc_lock_loss_per_iteration", cal.lrc_lock_loss_per_iteration,
                                options.lrc_fixed_loss >= 0 ? std::string("held (calibrate --lrc-loss), not fitted") : how});
    }


    // 3. Training cases with a usable measured time.
    std::vector<const Case*> train;
    for (const auto& c : data.cases) {
        if (c.split != Split::train) continue;
        const double t = quantity_of(c.measured, Quantity::time);
        if (std::isfinite(t) && t > 0) train.push_back(&c);
    }
    r.training_cases = train.size();
    if (train.empty()) return make_error("calibrate: the data set " + data.origin + " has no training case with a measured time");
    for (const std::string& text : options.fit_include) {
        if (text.empty()) return make_error("calibrate: --fit-include must not be empty");
        if (std::none_of(train.begin(), train.end(), [&](const Case* c) { return names_included(c->name, {text}); }))
            return make_error("calibrate: --fit-include '" + text + "' names no training case of " + data.origin +
                              " (held-out cases never join the fit)");
    }
    {
        // The fit set: every training case, or the max_fit_cases cheapest to simulate. It is kept
        // most expensive first, so predict_times() starts the long simulations first and the
        // threads finish together (the order changes no number, only the wall time).
        std::vector<std::pair<double, const Case*>> by_cost;
        for (const Case* c : train) by_cost.emplace_back(simulation_cost(c->measured.workload, base), c);
        std::stable_sort(by_cost.begin(), by_cost.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        if (options.max_fit_cases > 0 && static_cast<std::size_t>(options.max_fit_cases) < by_cost.size()) {
            // The cheapest min_per_family of each family first, then the cheapest of the rest.
            std::vector<std::pair<double, const Case*>> chosen, rest;
            std::map<KernelFamily, int> taken;
            for (const auto& e : by_cost) {
                int& n = taken[e.second->measured.workload.kernel];
                if (n < options.min_per_family) {
                    chosen.push_back(e);
                    ++n;
                } else {
                    rest.push_back(e);
                }
            }
            const auto want = std::max(chosen.size(), static_cast<std::size_t>(options.max_fit_cases));
            std::size_t i = 0;
            for (; chosen.size() < want && i < rest.size(); ++i) chosen.push_back(rest[i]);
            // Named cases join beyond the cap (those the cap did not take already).
            for (; i < rest.size(); ++i)
                if (names_included(rest[i].second->name, options.fit_include)) chosen.push_back(rest[i]);
            std::stable_sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            by_cost = std::move(chosen);
        }
        train.clear();
        for (auto it = by_cost.rbegin(); it != by_cost.rend(); ++it) train.push_back(it->second);
    }
    // Extra training cases join whole (after the data set's, so their cost order is their own),
    // except those of a kernel family with no training case in the data set: nothing on the
    // training side could then show what they do to the parameters that family shares with the
    // others (docs/validation change 18: the residency series' softmax cases moved the shared
    // latency terms and no training figure could see it). They are left out and listed.
    std::set<KernelFamily> trained_families;
    for (const auto& c : data.cases)
        if (c.split == Split::train) trained_families.insert(c.measured.workload.kernel);
    std::map<const Case*, std::string> extra_origin;
    for (const auto& extra : options.extra_training)
        for (const auto& c : extra.cases) {
            const double t = quantity_of(c.measured, Quantity::time);
            if (!(std::isfinite(t) && t > 0)) continue;
            if (trained_families.count(c.measured.workload.kernel) == 0) {
                r.extra_left_out.push_back({c.name, extra.origin,
                                            "kernel family " + std::string(to_string(c.measured.workload.kernel)) +
                                                " has no training case in " + data.origin});
                continue;
            }
            train.push_back(&c);
            extra_origin[&c] = extra.origin;
        }
    auto source_of = [&](const Case* c) {
        const auto it = extra_origin.find(c);
        return it == extra_origin.end() ? data.origin : it->second;
    };
    std::vector<double> measured;
    for (const Case* c : train) measured.push_back(quantity_of(c->measured, Quantity::time));

    if (options.progress) {
        std::string names;
        for (const auto& f : fit) names += (names.empty() ? "" : ", ") + f;
        options.progress("time fit on " + std::to_string(train.size()) + " training cases" +
                         (fit.empty() ? std::string(" (nothing to fit)") : ", fitting " + names) +
                         "; at most " + std::to_string(options.max_evaluations) + " points" +
                         (options.time_budget_s > 0 ? " or " + sci(options.time_budget_s) + " s" : std::string()));
    }
    const std::vector<double> before = predict_times(train, r.hw, predict, options.jobs).time;
    // Cases the model cannot predict at the starting point are left out of the fit.
    {
        std::vector<const Case*> kept;
        std::vector<double> km, kb;
        for (std::size_t i = 0; i < train.size(); ++i)
            if (std::isfinite(before[i]) && before[i] > 0) {
                kept.push_back(train[i]);
                km.push_back(measured[i]);
                kb.push_back(before[i]);
            }
        if (kept.empty()) return make_error("calibrate: the model predicts none of the training cases");
        train = std::move(kept);
        measured = std::move(km);
        r.rms_log_error_before = rms_log(kb, measured);
        r.mape_before = mape_of(kb, measured);
        r.residuals.resize(train.size());
        for (std::size_t i = 0; i < train.size(); ++i)
            r.residuals[i] = {train[i]->name, source_of(train[i]), measured[i], kb[i], kb[i]};
    }
    r.fit_cases = train.size();
    for (const Case* c : train) r.extra_cases += extra_origin.count(c);

    // 4. The time fit over the fitted parameters.
    std::vector<double*> fields;
    std::vector<double> start;
    for (const auto& f : fit) {
        double* field = *calibration_field(cal, f);
        fields.push_back(field);
        const auto given = options.start.find(f);
        start.push_back(to_free(f, given != options.start.end() ? given->second : fit_start(f, *field)));
    }
    auto apply = [&](Hardware& h, const std::vector<double>& u) {
        for (std::size_t i = 0; i < fit.size(); ++i)
            *(*calibration_field(h.calibration, fit[i])) = from_free(fit[i], u[i]);
    };
    const auto groups = sweep_groups(train);
    const double ws = options.within_sweep_weight;
    r.within_sweep_weight = ws;
    if (ws > 0)
        for (const auto& g : groups) r.within_sweep_cases += g.size();
    auto objective = [&](const std::vector<double>& u) {
        Hardware h = r.hw;
        apply(h, u);
        const Predicted p = predict_times(train, h, predict, options.jobs);
        double s = 0;
        for (const double x : p.error) {
            if (!std::isfinite(x)) return std::numeric_limits<double>::infinity();
            s += x;
        }
        if (ws > 0) {
            std::vector<double> e(train.size()), within;
            for (std::size_t i = 0; i < train.size(); ++i) e[i] = std::log(p.time[i] / measured[i]);
            append_within_sweep(groups, ws, e, within);
            for (const double x : within) s += x * x;
        }
        return s / static_cast<double>(p.error.size());
    };
    const auto t0 = std::chrono::steady_clock::now();
    bool out_of_time = false;
    auto stop = [&] {
        if (options.time_budget_s <= 0) return false;
        out_of_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
                      options.time_budget_s;
        return out_of_time;
    };
    Minimum m{start, 0, 0, true};
    if (fit.empty()) {
        // Nothing to fit: the microbenchmarks alone.
    } else if (options.method == FitMethod::levenberg_marquardt) {
        // Least squares on the stacked residuals; the n neighbours of a Jacobian and the damped
        // trial steps are each predicted as one batch (points x cases in parallel).
        const double scale = 1.0 / std::sqrt(static_cast<double>(train.size()));  // |r|^2 = objective
        const ResidualBatch residuals = [&](const std::vector<std::vector<double>>& points) {
            std::vector<Hardware> hws(points.size(), r.hw);
            for (std::size_t k = 0; k < points.size(); ++k) apply(hws[k], points[k]);
            auto out = predict_residuals(train, hws, predict, options.jobs, groups, ws);
            for (auto& v : out)
                for (double& x : v) x *= scale;
            return out;
        };
        LeastSquaresOptions lm;
        lm.max_evaluations = options.max_evaluations;
        lm.stop = stop;
        m = levenberg_marquardt(residuals, start, lm);
    } else {
        NelderMeadOptions nm;
        nm.stop = stop;
        nm.initial_step = 0.5;
        nm.tolerance = 1e-6;
        // Nelder-Mead restarted from its best point while it still improves: a fresh simplex
        // escapes the collapse that flat directions (a parameter that binds no case) cause.
        m = Minimum{start, objective(start), 1, true};
        while (m.evaluations < options.max_evaluations && !out_of_time) {
            nm.max_evaluations = options.max_evaluations - m.evaluations;
            const Minimum next = nelder_mead(objective, m.x, nm);
            const bool improved = next.value < m.value * (1 - 1e-6) - 1e-15;
            const int used = m.evaluations + next.evaluations;
            if (next.value <= m.value) m = next;
            m.evaluations = used;
            if (!improved) {
                m.converged = next.converged;
                break;
            }
            m.converged = false;
        }
    }
    apply(r.hw, m.x);
    r.evaluations = m.evaluations;
    r.converged = m.converged && !out_of_time;
    r.budget_exhausted = out_of_time;
    for (std::size_t i = 0; i < fit.size(); ++i)
        r.parameters.push_back({fit[i], *fields[i],
                                "fitted: least squares on ln(t_pred/t_meas) (per launch for multi-launch cases) over " +
                                    std::to_string(train.size()) + " training cases" +
                                    (ws > 0 ? " plus " + sci(ws) + " x its within-sweep deviation for the " +
                                                  std::to_string(r.within_sweep_cases) + " in sweeps of two or more"
                                            : std::string()) +
                                    " (" + method_name(options.method) + ", " + std::to_string(m.evaluations) +
                                    " evaluations" +
                                    (r.converged ? std::string()
                                                 : r.budget_exhausted ? "; stopped by --fit-budget-s, not converged"
                                                                      : "; stopped by --max-evals, not converged") +
                                    ")"});
    cal.calibrated = true;

    const std::vector<double> after = predict_times(train, r.hw, predict, options.jobs).time;
    for (std::size_t i = 0; i < train.size(); ++i) r.residuals[i].predicted_after_ns = after[i];
    r.rms_log_error_after = rms_log(after, measured);
    r.mape_after = mape_of(after, measured);

    // Provenance.
    auto& prov = r.hw.provenance;
    prov = data.provenance;  // of the measurements: gpu, driver, cuda, clocks, date, commit
    for (const auto& [k, v] : options.provenance) prov[k] = v;
    prov["measurements"] = data.origin;
    prov["training_rule"] = "train iff fnv1a64(sweep key) is even (validate/split.hpp)";
    prov["training_cases"] = std::to_string(r.training_cases) + " in the data set, " +
                             std::to_string(r.fit_cases - r.extra_cases) + " used in the fit" +
                             (r.fit_cases - r.extra_cases < r.training_cases
                                  ? " (the cheapest to simulate" +
                                        (options.min_per_family > 0
                                             ? ", at least " + std::to_string(options.min_per_family) + " of every kernel family"
                                             : std::string()) +
                                        (options.fit_include.empty() ? std::string()
                                                                     : ", and every one whose name contains " +
                                                                           join_quoted(options.fit_include)) +
                                        "; listed in the fit report's residuals)"
                                  : std::string());
    prov["fit"] = method_name(options.method) + " on mean squared ln(t_pred/t_meas), per launch for multi-launch cases; total-time rms " + sci(r.rms_log_error_before) +
                  " -> " + sci(r.rms_log_error_after) + ", time MAPE " + sci(100 * r.mape_before) + "% -> " +
                  sci(100 * r.mape_after) + "% (training)";
    if (r.extra_cases > 0) {
        std::string files;
        for (const auto& extra : options.extra_training) files += (files.empty() ? "" : ", ") + extra.origin;
        prov["also_trained"] = std::to_string(r.extra_cases) + " extra training cases of " + files +
                               " (calibrate --also-train: in the time fit whatever their hash; listed in the fit "
                               "report's residuals with their source)" +
                               (r.extra_left_out.empty()
                                    ? std::string()
                                    : "; " + std::to_string(r.extra_left_out.size()) +
                                          " left out, of kernel families with no training case (fit report: extra_left_out)");
    }
    prov["fitted_parameters"] = fitted;
    if (r.lrc_cases > 0)
        prov["lrc_fit"] = std::string(options.lrc_fixed_loss >= 0
                                           ? "lrc_in_step_one_block, lrc_in_step_several_blocks (lrc_lock_loss_per_iteration held, "
                                             "calibrate --lrc-loss): before the time fit, "
                                           : "lrc_in_step_one_block, lrc_in_step_several_blocks, lrc_lock_loss_per_iteration: before "
                                             "the time fit, ") +
                          "least squares on the relative lts__t_bytes error of " + std::to_string(r.lrc_cases) +
                          " training FlashAttention-2 and GEMM cases; their lts MAPE " + sci(100 * r.lrc_lts_mape_before) +
                          "% -> " + sci(100 * r.lrc_lts_mape_after) + "% (training)";
    return r;
}

namespace {
// Two-space indented JSON, one field per line (the committed profiles are read by people).
void pretty(std::ostringstream& o, const json::value& v, int indent) {
    const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    if (v.is_object() && !v.as_object().empty()) {
        o << "{\n";
        bool first = true;
        for (const auto& kv : v.as_object()) {
            o << (first ? "" : ",\n") << pad << "  " << json::serialize(json::string(kv.key())) << ": ";
            pretty(o, kv.value(), indent + 1);
            first = false;
        }
        o << "\n" << pad << "}";
    } else {
        o << json::serialize(v);
    }
}
}  // namespace

std::string calibrated_profile_json(const CalibrationResult& r) {
    std::ostringstream o;
    pretty(o, json::parse(hardware_to_json(r.hw)), 0);
    o << "\n";
    return o.str();
}

std::string fit_report_json(const CalibrationResult& r) {
    json::object o;
    o["gpu"] = r.hw.name;
    json::array params;
    for (const auto& p : r.parameters)
        params.push_back(json::object{{"name", p.name}, {"value", p.value}, {"how", p.how}});
    o["parameters"] = std::move(params);
    o["training_cases"] = r.training_cases;
    o["fit_cases"] = r.fit_cases;
    o["extra_training_cases"] = r.extra_cases;
    o["within_sweep_weight"] = r.within_sweep_weight;
    o["within_sweep_cases"] = r.within_sweep_cases;
    json::array left_out;
    for (const auto& x : r.extra_left_out)
        left_out.push_back(json::object{{"case", x.name}, {"source", x.source}, {"reason", x.reason}});
    o["extra_left_out"] = std::move(left_out);
    o["rms_log_error_before"] = r.rms_log_error_before;
    o["rms_log_error_after"] = r.rms_log_error_after;
    o["time_mape_before"] = r.mape_before;
    o["time_mape_after"] = r.mape_after;
    o["evaluations"] = r.evaluations;
    if (r.lrc_cases > 0) {
        o["lrc_fit_cases"] = r.lrc_cases;
        o["lrc_lts_mape_before"] = r.lrc_lts_mape_before;
        o["lrc_lts_mape_after"] = r.lrc_lts_mape_after;
    }
    o["converged"] = r.converged;
    o["time_budget_reached"] = r.budget_exhausted;
    json::array res;
    for (const auto& x : r.residuals)
        res.push_back(json::object{{"case", x.name},
                                   {"source", x.source},
                                   {"measured_ns", x.measured_ns},
                                   {"predicted_before_ns", x.predicted_before_ns},
                                   {"predicted_after_ns", x.predicted_after_ns},
                                   {"ln_ratio_after", std::log(x.predicted_after_ns / x.measured_ns)}});
    o["residuals"] = std::move(res);
    json::object prov;
    for (const auto& [k, v] : r.hw.provenance) prov[k] = v;
    o["provenance"] = std::move(prov);
    return json::serialize(o) + "\n";
}

std::string fit_report_table(const CalibrationResult& r) {
    std::ostringstream o;
    o << "calibrated " << r.hw.name << " on " << r.fit_cases << " training cases (" << r.training_cases
      << " in the data set";
    if (r.extra_cases > 0) o << "; " << r.extra_cases << " of the fit's from --also-train files";
    o << ")\n";
    if (!r.extra_left_out.empty()) {
        std::map<std::string, int> why;
        for (const auto& x : r.extra_left_out) ++why[x.reason];
        for (const auto& [reason, n] : why)
            o << "  left out " << n << " --also-train case" << (n == 1 ? "" : "s") << ": " << reason << "\n";
    }
    for (const auto& p : r.parameters) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%-20s %12.5g  ", p.name.c_str(), p.value);
        o << "  " << buf << p.how << "\n";
    }
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "training time error: rms ln %.4f -> %.4f, MAPE %.2f%% -> %.2f%% (%d evaluations%s)\n",
                  r.rms_log_error_before, r.rms_log_error_after, 100 * r.mape_before, 100 * r.mape_after,
                  r.evaluations,
                  r.converged ? ", converged" : (r.budget_exhausted ? ", time budget reached" : ", evaluation limit reached"));
    o << buf;
    return o.str();
}

}  // namespace tilescope::validate
