// calibrate(): fit the simulator's few free parameters (core/hardware.hpp `Calibration`) to
// measurements, on TRAINING cases only (validate/split.hpp).
//
// Two sources, in this order:
//  1. Microbenchmarks (if the data set has them) set the parameters they measure directly:
//       hbm_efficiency    = hbm_bandwidth (streaming copy)  / profile hbm_bandwidth_bytes_per_s
//       smem_efficiency   = smem_bandwidth / (smem_bandwidth_bytes_per_cycle_per_sm * sm_clock * SMs)
//       tensor_efficiency = tensor_fp16 / profile tensor_fp16_flops_per_s
//       fp32_efficiency   = fp32 / profile fp32_flops_per_s
//     and the latencies hbm_latency_ns / l2_latency_ns (pointer chase) and the L2 bandwidth
//     l2_bandwidth_bytes_per_s (no datasheet gives it; profiles hold an estimate) replace the
//     profile's values (l2_efficiency then stays 1).
//     A microbenchmark below 1% or above 150% of its peak is refused (an error naming it);
//     efficiencies between 1 and 1.5 become 1. One that becomes a profile number (L2 bandwidth,
//     latencies, launch overhead) must be within the profile's limits.
//  2. A least-squares fit of predicted vs measured kernel time on the training cases:
//       minimise  mean over training cases of ( ln(t_predicted / t_measured) )^2
//     where a case of several launches (naive attention) whose measurement times each launch
//     contributes the mean of its launches' ( ln(t_pred,l / t_meas,l) )^2 instead, so that a
//     launch predicted too fast cannot hide behind one predicted too slow (rms and MAPE are
//     still reported on total times)
//     by Levenberg-Marquardt (or Nelder-Mead, CalibrateOptions::method) over the parameters in `fit` (default: launch_overhead_ns,
//     block_overhead_ns, tensor_efficiency, tensor_flops_per_cycle_per_warp and the warp model's
//     warp_iteration_ns, warp_load_issue_ns_per_byte, warp_smem_read_ns_per_byte, warp_op_ns,
//     warp_overlap_exponent, and load_latency_scale, load_latency_ns_per_byte; efficiencies
//     without a microbenchmark join the fit).
//     tensor_flops_per_cycle_per_warp, the warp model's times and the latency scale are fitted
//     in log space like the overheads (start: 128 FLOP/cycle/warp, one mma.sync per 32 cycles;
//     300 ns per iteration; 1 ns per byte; twice the pointer-chase latency); the overlap
//     exponent, in (0, 1], through the logistic map like an efficiency (start 0.5).
//     Log error weighs a 10 us and a 10 ms kernel alike. Efficiencies are fitted through a
//     logistic map onto (0, 1), overheads through log(1 + x / 100 ns) onto [0, inf), so every
//     trial point is physical. Bytes do not depend on these parameters, so only time is fitted.
// No per-case or per-family parameter exists: every case sees the same calibrated GPU.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "core/result.hpp"
#include "validate/dataset.hpp"
#include "validate/validate.hpp"

namespace tilescope::validate {

// The names of the Calibration fields calibrate can fit.
inline const std::vector<std::string>& calibration_parameter_names() {
    static const std::vector<std::string> names = {
        "hbm_efficiency", "l2_efficiency", "smem_efficiency", "tensor_efficiency",
        "fp32_efficiency", "launch_overhead_ns", "block_overhead_ns", "tensor_flops_per_cycle_per_warp",
        "warp_iteration_ns", "warp_load_issue_ns_per_byte", "warp_overlap_exponent", "load_latency_scale",
        "load_latency_ns_per_byte", "warp_smem_read_ns_per_byte", "warp_op_ns", "fragment_store_bytes_per_s",
        "load_latency_ns_per_tbps", "block_reduction_ns", "hbm_activations_per_s", "warp_fill_wait_ns_per_byte",
        "warp_store_issue_ns_per_byte", "fragment_store_hold_ns_per_byte", "fragment_store_load_wait"};
    return names;
}
Result<double*> calibration_field(Calibration& c, const std::string& name);

// The fit's residuals of one case (see 2. above), one per measured launch (at least one):
// ln(t_pred,l / t_meas,l) / sqrt(launches) when the measurement has every launch's time (same
// launch count, all > 0), else ln(t_pred / t_meas) of the total time followed by zeros. All NaN
// when the prediction has no usable time. Their sum of squares is the case's squared error:
double case_error(const Case& c, const Prediction& p);
std::vector<double> case_residuals(const Case& c, const Prediction& p);

// The search: Levenberg-Marquardt on the stacked residuals (default: a Jacobian costs one point
// per parameter and all of them, and the damped steps, are predicted side by side), or
// Nelder-Mead on their mean square (the method of the fits before 2026-11-24).
enum class FitMethod { levenberg_marquardt, nelder_mead };
inline std::string method_name(FitMethod m) {
    return m == FitMethod::levenberg_marquardt ? "Levenberg-Marquardt" : "Nelder-Mead";
}

struct CalibrateOptions {
    std::vector<std::string> fit = {"launch_overhead_ns",     "block_overhead_ns",
                                    "tensor_efficiency",      "tensor_flops_per_cycle_per_warp",
                                    "warp_iteration_ns",      "warp_load_issue_ns_per_byte",
                                    "warp_overlap_exponent",  "load_latency_scale",
                                    "load_latency_ns_per_byte", "warp_smem_read_ns_per_byte",
                                    "warp_op_ns",             "fragment_store_bytes_per_s"};
    FitMethod method = FitMethod::levenberg_marquardt;
    int max_evaluations = 120;   // parameter points evaluated (each predicts every fit case)
    int max_fit_cases = 0;       // 0 = every training case; else this many training cases, the
                                 // cheapest to simulate (simulation_cost), to bound the fit's cost
    int min_per_family = 0;      // with max_fit_cases: the fit set holds at least this many
                                 // training cases of every kernel family (its cheapest), so a
                                 // family whose cases are all expensive (naive attention) still
                                 // constrains the fit; the rest are the cheapest overall
    // With max_fit_cases: training cases whose name contains one of these texts join the fit
    // set as well, whatever their cost (`calibrate --fit-include`), e.g. a whole sweep of a
    // regime the cheapest cases never reach (naive attention at d = 64). calibrate() refuses a
    // text that names no training case; held-out cases never join.
    std::vector<std::string> fit_include;
    // After the time fit, fit the simulator's L2 request coalescer (Calibration::lrc_*) to the
    // lts__t_bytes of the training FlashAttention-2 and GEMM cases (see fit_lrc()).
    bool fit_lrc = true;
    // With fit_lrc: hold the coalescer's loss per iteration (lrc_lock_loss_per_iteration) at this
    // value and fit only its two probabilities (3 predictions per case instead of 33); < 0 (the
    // default) = the loss on its grid too. calibrate --lrc-loss.
    double lrc_fixed_loss = -1;
    // Progress lines ("fitting the L2 request coalescer on 74 cases ...", "time fit: ..."),
    // for the CLI's stderr; none when empty.
    std::function<void(const std::string&)> progress;
    // Weight of the within-sweep residuals (0 = none, the default). The tool's main use is
    // choosing a tile, which depends on the times of one sweep relative to each other, not on
    // their common level. With w > 0 every fit case of a sweep with at least two fit cases adds
    // the residual w x (e_i - mean of e over the sweep's fit cases), e = ln(t_pred / t_meas) of
    // the case's total time: a parameter point that shifts one tile against the others of its
    // sweep pays for it even when the per-case errors alone would not notice. Extra training
    // cases (extra_training) are grouped by their own sweep keys.
    double within_sweep_weight = 0;
    // Hold every Calibration field and profile number that is not in `fit` at the base profile's
    // value (calibrate --hold-unfitted): the microbenchmarks are reported as references only and
    // set nothing, and no parameter joins the fit on its own (an efficiency without a
    // microbenchmark, l2_efficiency). Without it, a refit of a calibrated profile takes the
    // microbenchmarks' efficiencies, latencies and L2 bandwidth and fits the FP32 efficiency
    // too, which moves every kernel family (docs/validation change 82). Needs a calibrated base.
    bool hold_unfitted = false;
    int jobs = 1;
    double time_budget_s = 0;    // 0 = none; else the fit stops (keeping its best point) when
                                 // this much wall time has passed
    // Starting point of the search for fitted parameters (name -> physical value), e.g. an
    // earlier fit's result; the default start is the microbenchmark value (efficiencies) or
    // 1 us per launch / 100 ns per block. Only where the fit starts, not what it may reach.
    std::map<std::string, double> start;
    std::map<std::string, std::string> provenance;  // merged into the profile's provenance
    // Extra training cases from other measurement files (`calibrate --also-train FILE`), e.g.
    // the residency series of docs/validation change 17: every one with a measured time joins
    // the time fit whatever its hash and is never dropped by max_fit_cases, unless its kernel
    // family has no training case in `data` (then it is left out: CalibrationResult::extra_left_out). Not used by the
    // coalescer fit. calibrate() refuses a case whose sweep key is a held-out sweep of `data`
    // (that would tune on a held-out shape) and a case name that is in `data` already.
    std::vector<Dataset> extra_training;
};

struct ParameterReport {
    std::string name;
    double value = 0;
    std::string how;   // "microbenchmark hbm_bandwidth = 2.95e12 B/s / datasheet 3.35e12" or "fitted"
};

struct Residual {
    std::string name;
    std::string source;              // the file the case came from (the data set or --also-train)
    double measured_ns = 0;
    double predicted_before_ns = 0;  // with the microbenchmark-only calibration
    double predicted_after_ns = 0;
};

struct CalibrationResult {
    Hardware hw;                          // the calibrated profile (calibration.calibrated = true)
    std::vector<ParameterReport> parameters;
    std::vector<Residual> residuals;      // every fit case
    std::size_t training_cases = 0;       // training cases in the data set
    std::size_t fit_cases = 0;            // of which used in the fit (with extra_cases)
    std::size_t extra_cases = 0;          // extra training cases (CalibrateOptions::extra_training) in the fit
    double within_sweep_weight = 0;       // CalibrateOptions::within_sweep_weight
    std::size_t within_sweep_cases = 0;   // fit cases in a sweep with >= 2 fit cases (that many extra residuals)
    // Extra training cases left out of the fit: those of a kernel family with no training case
    // in the data set (no training figure could show what they do to the shared parameters).
    struct LeftOut {
        std::string name, source, reason;
    };
    std::vector<LeftOut> extra_left_out;
    double rms_log_error_before = 0;
    double rms_log_error_after = 0;
    double mape_before = 0, mape_after = 0;
    int evaluations = 0;
    bool converged = false;
    bool budget_exhausted = false;        // stopped by time_budget_s
    // The L2 request coalescer fit (CalibrateOptions::fit_lrc): its cases and the lts__t_bytes
    // MAPE over them without and with the fitted coalescer (0 cases: not fitted).
    std::size_t lrc_cases = 0;
    double lrc_lts_mape_before = 0, lrc_lts_mape_after = 0;
};

// `predict` is the model being calibrated (normally the simulator).
Result<CalibrationResult> calibrate(const Dataset& data, const Hardware& base, const Predictor& predict,
                                    const CalibrateOptions& options);

// The calibrated profile as JSON (core's hardware_to_json) and the fit report as JSON
// (parameters, residuals, training cases).
std::string calibrated_profile_json(const CalibrationResult& r);
std::string fit_report_json(const CalibrationResult& r);
std::string fit_report_table(const CalibrationResult& r);

}  // namespace tilescope::validate
