#include "validate/report_format.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "validate/plot.hpp"

namespace tilescope::validate {

namespace json = boost::json;

namespace {

bool selected(Split s, const std::string& filter) {
    return filter == "all" || filter == to_string(s);
}

std::string num(double v, const char* fmt = "%.4g") {
    if (!std::isfinite(v)) return "n/a";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

std::string signed_pct(double v) { return std::isfinite(v) ? num(100.0 * v, "%+.1f") + "%" : "n/a"; }

// "+2.4% (5)": a tile group's bias on one half and the sweeps it comes from.
std::string bias_cell(double bias, std::size_t sweeps) {
    return sweeps ? signed_pct(bias) + " (" + std::to_string(sweeps) + ")" : std::string("-");
}

std::string tile_bias_label(const TileBias& b) {
    return b.family + " " + b.tile + (b.variant.empty() ? "" : " " + b.variant);
}

std::string tile_bias_intro(const Report& r) {
    std::size_t both = 0;
    for (const auto& b : r.tile_bias) both += (b.train_sweeps > 0 && b.heldout_sweeps > 0);
    return std::to_string(r.tile_bias.size()) + " groups; training against held-out bias over the " +
           std::to_string(both) + " groups both halves hold: Pearson r = " + num(r.tile_bias_r, "%.3f");
}

json::value jnum(double v) {
    if (!std::isfinite(v)) return nullptr;
    return v;
}

json::value jinterval(const Interval& i) {
    if (!std::isfinite(i.lo) || !std::isfinite(i.hi)) return nullptr;
    return json::array{i.lo, i.hi};
}

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

std::string check_value(const Check& c) {
    if (c.flag) return c.pass ? "yes" : "no";
    return c.what.find("Spearman") != std::string::npos ? num(c.value, "%.3f") : pct(c.value);
}

std::string check_target(const Check& c) {
    if (c.flag) return "yes";
    return std::string(c.upper ? "<= " : ">= ") +
           (c.what.find("Spearman") != std::string::npos ? num(c.target, "%.2f") : pct(c.target));
}

// Case names hold '|' (name|tile); in a Markdown table cell it must be escaped, code span or not.
std::string md_cell(const std::string& text) {
    std::string out;
    for (const char ch : text) {
        if (ch == '|') out += '\\';
        out += ch;
    }
    return out;
}

// A missed check whose figure the measurements cannot give (no held-out case or tile sweep for
// it): reported as N/A, not as a miss or a regression.
bool no_data(const Check& c) { return !c.pass && !c.flag && !std::isfinite(c.value); }

std::string recorded_value(const Check& c) {
    Check rec = c;
    rec.value = c.recorded;
    return check_value(rec);
}

}  // namespace

std::string check_line(const Check& c) {
    // A figure the measurements cannot give (no held-out case or tile sweep for it) is not met,
    // but it is not a miss either: "N/A", and why.
    const bool na = no_data(c);
    std::string line = std::string(c.pass ? "PASS" : (na ? "N/A " : "FAIL")) + "  " + c.what + " = " +
                       check_value(c) + " (target " + check_target(c) + ")";
    if (na)
        line += c.id == "spearman_mean" || c.id == "regret_mean"
                    ? ": no held-out tile sweep gives this figure (none in these measurements, or every one's "
                      "tiles predicted alike)"
                    : ": no held-out case gives this figure (none with this counter, or none predicted)";
    if (!c.pass && !na && std::isfinite(c.recorded))
        line += c.within_recorded ? "; missed, as recorded in the baseline (" + recorded_value(c) + "): no regression"
                                  : "; WORSE than the recorded baseline (" + recorded_value(c) + ")";
    return line;
}

namespace {

const SplitSummary& summary_of(const Report& r, const std::string& which) {
    if (which == "train") return r.train;
    if (which == "heldout") return r.heldout;
    return r.all;
}

json::object summary_json(const SplitSummary& s) {
    json::object o;
    json::object q;
    for (std::size_t i = 0; i < kQuantityCount; ++i) {
        const auto& qs = s.quantities[i];
        json::object e;
        e["metric"] = kQuantityNames[i];
        e["usable"] = qs.usable;
        e["unusable"] = qs.unusable;
        e["mape"] = qs.usable ? jnum(qs.errors.mape) : json::value(nullptr);
        e["median_ape"] = qs.usable ? jnum(qs.errors.median_ape) : json::value(nullptr);
        e["max_ape"] = qs.usable ? jnum(qs.errors.max_ape) : json::value(nullptr);
        e["mean_log_ratio"] = qs.usable ? jnum(qs.errors.mean_log_ratio) : json::value(nullptr);
        e["mape_ci95"] = jinterval(qs.mape_ci95);
        e["worst_case"] = qs.worst_case;
        q[kQuantityIds[i]] = std::move(e);
    }
    o["quantities"] = std::move(q);
    o["sweeps_ranked"] = s.sweeps_ranked;
    o["spearman_mean"] = jnum(s.spearman_mean);
    o["spearman_mean_ci95"] = jinterval(s.spearman_ci95);
    o["spearman_min"] = jnum(s.spearman_min);
    o["spearman_min_sweep"] = s.spearman_min_sweep;
    o["sweeps_with_regret"] = s.sweeps_with_regret;
    o["regret_mean"] = jnum(s.regret_mean);
    o["regret_mean_ci95"] = jinterval(s.regret_ci95);
    o["regret_max"] = jnum(s.regret_max);
    o["regret_max_sweep"] = s.regret_max_sweep;
    json::array bins;
    for (const auto& b : s.pair_order) {
        json::object e;
        e["gap_lo"] = jnum(b.gap_lo);
        e["gap_hi"] = std::isfinite(b.gap_hi) ? jnum(b.gap_hi) : json::value(nullptr);
        e["pairs"] = b.pairs;
        e["ordered_right"] = b.pairs ? jnum(b.right / static_cast<double>(b.pairs)) : json::value(nullptr);
        bins.push_back(std::move(e));
    }
    o["pair_order_by_predicted_gap"] = std::move(bins);
    o["order_resolution95"] = jnum(s.order_resolution95);
    return o;
}


// One row per family and split: MAPE of HBM bytes, L2 bytes, time; mean Spearman and regret.
struct FamilyRow {
    std::string family, split;
    std::size_t cases = 0;
    std::string hbm, lts, time, spearman, regret;
};

std::vector<FamilyRow> family_rows(const Report& r);

// One row per launch name and split (multi-launch cases): MAPE of HBM bytes, L2 bytes, time; the
// time's geometric-mean predicted/measured ratio and its range over the cases.
struct LaunchRow {
    std::string launch, split;
    std::size_t cases = 0;
    std::string hbm, lts, time, ratio;
};

std::vector<LaunchRow> launch_rows(const Report& r);

// True when the report has launches to compare but no predicted values for them (stored
// predictions written before per-launch values were stored).
bool launch_predictions_missing(const Report& r) {
    if (r.launches.empty()) return false;
    for (const auto& l : r.launches)
        if (l.train.quantities[static_cast<std::size_t>(Quantity::time)].usable +
                l.heldout.quantities[static_cast<std::size_t>(Quantity::time)].usable >
            0)
            return false;
    return true;
}

}  // namespace

std::string pct(double fraction) {
    if (!std::isfinite(fraction)) return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", fraction * 100.0);
    return buf;
}

namespace {
// "0.861-0.931" or "0.20%-1.31%"; "n/a" when there is no interval.
std::string interval(const Interval& i, bool percent) {
    if (!std::isfinite(i.lo) || !std::isfinite(i.hi)) return "n/a";
    return percent ? pct(i.lo) + "-" + pct(i.hi) : num(i.lo, "%.3f") + "-" + num(i.hi, "%.3f");
}

std::size_t pair_count(const SplitSummary& s) {
    std::size_t n = 0;
    for (const auto& b : s.pair_order) n += b.pairs;
    return n;
}

// "0-1%", "20%+": a bin's range of predicted gaps.
std::string gap_label(const PairOrderBin& b) {
    const std::string lo = num(b.gap_lo * 100, "%.0f");
    return std::isfinite(b.gap_hi) ? lo + "-" + num(b.gap_hi * 100, "%.0f") + "%" : lo + "%+";
}

// "0-1%: 72% of 18, 1-2%: ... ; 95% from 10%": the text table's line.
std::string pair_order_line(const SplitSummary& s) {
    std::string line;
    for (const auto& b : s.pair_order) {
        if (b.pairs == 0) continue;
        line += (line.empty() ? "" : ", ") + gap_label(b) + " apart: " +
                num(100.0 * b.right / static_cast<double>(b.pairs), "%.0f") + "% of " + std::to_string(b.pairs);
    }
    if (line.empty()) return "n/a";
    return line + "; 95% right from " +
           (std::isfinite(s.order_resolution95) ? num(s.order_resolution95 * 100, "%.0f") + "% apart" : std::string("n/a"));
}

// "5.29% (worst 13.12%)", or "n/a" when the summary has no usable case of the quantity.
std::string mape_with_worst(const SplitSummary& s, Quantity q) {
    const auto& qs = s.quantities[static_cast<std::size_t>(q)];
    return qs.usable ? pct(qs.errors.mape) + " (worst " + pct(qs.errors.max_ape) + ")" : std::string("n/a");
}

std::vector<LaunchRow> launch_rows(const Report& r) {
    std::vector<LaunchRow> rows;
    const auto t = static_cast<std::size_t>(Quantity::time);
    for (const auto& l : r.launches)
        for (const char* which : {"heldout", "train"}) {
            const bool held = std::string(which) == "heldout";
            const SplitSummary& s = held ? l.heldout : l.train;
            auto mape = [&](Quantity q) { return mape_with_worst(s, q); };
            LaunchRow row;
            row.launch = l.launch;
            row.split = which;
            row.cases = s.quantities[t].usable;
            if (row.cases == 0) continue;
            row.hbm = mape(Quantity::hbm_bytes);
            row.lts = mape(Quantity::lts_bytes);
            row.time = mape(Quantity::time);
            double lo = INFINITY, hi = -INFINITY;
            for (const auto& c : r.cases) {
                if (!c.error.empty() || (c.split == Split::heldout) != held) continue;
                for (const auto& lp : c.launches) {
                    if (lp.name != l.launch) continue;
                    const double x = lp.predicted[t] / lp.measured[t];
                    if (std::isfinite(x) && x > 0) {
                        lo = std::min(lo, x);
                        hi = std::max(hi, x);
                    }
                }
            }
            row.ratio = num(std::exp(s.quantities[t].errors.mean_log_ratio), "%.3f") + " (" + num(lo, "%.2f") + "-" +
                        num(hi, "%.2f") + ")";
            rows.push_back(row);
        }
    return rows;
}

std::vector<FamilyRow> family_rows(const Report& r) {
    std::vector<FamilyRow> rows;
    for (const auto& f : r.families)
        for (const char* which : {"heldout", "train"}) {
            const SplitSummary& s = std::string(which) == "heldout" ? f.heldout : f.train;
            auto mape = [&](Quantity q) { return mape_with_worst(s, q); };
            FamilyRow row;
            row.family = f.family;
            row.split = which;
            row.cases = s.quantities[static_cast<std::size_t>(Quantity::time)].usable;
            if (row.cases == 0) continue;
            row.hbm = mape(Quantity::hbm_bytes);
            row.lts = mape(Quantity::lts_bytes);
            row.time = mape(Quantity::time);
            row.spearman = s.sweeps_ranked ? num(s.spearman_mean, "%.3f") + " (" + std::to_string(s.sweeps_ranked) + ")" : "n/a";
            row.regret = s.sweeps_with_regret ? pct(s.regret_mean) : "n/a";
            rows.push_back(row);
        }
    return rows;
}
}  // namespace

std::string report_table(const Report& r) {
    std::ostringstream o;
    o << "validate: model " << r.model << " on " << r.gpu << ", measurements " << r.measurements << "\n";
    o << "cases: " << r.cases.size() << " (" << r.skipped.size() << " dataset lines skipped); predictions: "
      << r.predictions_source << "\n\n";
    o << pad("metric", 26) << pad("split", 9) << pad("n", 6) << pad("MAPE", 10) << pad("95% CI", 18)
      << pad("median", 10) << pad("worst", 10) << "worst case\n";
    for (const char* which : {"train", "heldout", "all"}) {
        const SplitSummary& s = summary_of(r, which);
        for (std::size_t q = 0; q < kQuantityCount; ++q) {
            const auto& qs = s.quantities[q];
            o << pad(kQuantityNames[q], 26) << pad(which, 9) << pad(std::to_string(qs.usable), 6)
              << pad(qs.usable ? pct(qs.errors.mape) : "n/a", 10) << pad(interval(qs.mape_ci95, true), 18)
              << pad(qs.usable ? pct(qs.errors.median_ape) : "n/a", 10)
              << pad(qs.usable ? pct(qs.errors.max_ape) : "n/a", 10) << qs.worst_case << "\n";
        }
        o << pad("Spearman (time, sweeps)", 26) << pad(which, 9) << pad(std::to_string(s.sweeps_ranked), 6)
          << "mean " << num(s.spearman_mean, "%.3f") << " (95% CI " << interval(s.spearman_ci95, false)
          << ")  min " << num(s.spearman_min, "%.3f") << "  " << s.spearman_min_sweep << "\n";
        o << pad("top-1 regret (time)", 26) << pad(which, 9) << pad(std::to_string(s.sweeps_with_regret), 6)
          << "mean " << pct(s.regret_mean) << " (95% CI " << interval(s.regret_ci95, true) << ")  max "
          << pct(s.regret_max) << "  " << s.regret_max_sweep << "\n";
        o << pad("tile pairs ordered right", 26) << pad(which, 9) << pad(std::to_string(pair_count(s)), 6)
          << pair_order_line(s) << "\n\n";
    }
    o << "per family (MAPE, worst case in brackets; Spearman: mean over sweeps, count in brackets):\n";
    o << pad("family", 18) << pad("split", 9) << pad("n", 5) << pad("HBM bytes", 22) << pad("lts__t_bytes", 22)
      << pad("time", 22) << pad("Spearman", 12) << "regret\n";
    for (const auto& row : family_rows(r))
        o << pad(row.family, 18) << pad(row.split, 9) << pad(std::to_string(row.cases), 5) << pad(row.hbm, 22)
          << pad(row.lts, 22) << pad(row.time, 22) << pad(row.spearman, 12) << row.regret << "\n";
    o << "\n";
    if (!r.launches.empty()) {
        o << "per launch of multi-launch cases (MAPE, worst case in brackets; time pred/meas: geometric mean, range):\n";
        if (launch_predictions_missing(r)) {
            o << "  the stored predictions hold no per-launch values; regenerate them with --save-predictions\n";
        } else {
            o << pad("launch", 26) << pad("split", 9) << pad("n", 5) << pad("HBM bytes", 22) << pad("lts__t_bytes", 22)
              << pad("time", 22) << "time pred/meas\n";
            for (const auto& row : launch_rows(r))
                o << pad(row.launch, 26) << pad(row.split, 9) << pad(std::to_string(row.cases), 5) << pad(row.hbm, 22)
                  << pad(row.lts, 22) << pad(row.time, 22) << row.ratio << "\n";
        }
        o << "\n";
    }
    if (!r.launches_unpaired.empty())
        o << r.launches_unpaired.size() << " case(s) compared as a whole only: their measured launches differ from "
          << "the model's in number or name (first: " << r.launches_unpaired.front() << ")\n\n";
    if (!r.tile_bias.empty()) {
        o << "per-tile time bias relative to each sweep (" << tile_bias_intro(r)
          << "); the largest on the training half, or held out where a group has no training sweep (training / "
             "held out, sweeps in brackets):\n";
        std::vector<const TileBias*> top;
        for (const auto& b : r.tile_bias) top.push_back(&b);
        const auto size = [](const TileBias* b) { return std::fabs(b->train_sweeps ? b->train : b->heldout); };
        std::stable_sort(top.begin(), top.end(), [&](const TileBias* a, const TileBias* b) { return size(a) > size(b); });
        if (top.size() > 5) top.resize(5);
        for (const auto* b : top)
            o << "  " << pad(tile_bias_label(*b), 44) << pad(bias_cell(b->train, b->train_sweeps), 14) << "/ "
              << bias_cell(b->heldout, b->heldout_sweeps) << "\n";
        o << "\n";
    }
    o << "tile sweeps (" << r.split_filter << "):\n";
    o << pad("split", 9) << pad("n", 4) << pad("Spearman", 10) << pad("regret", 10) << "sweep\n";
    for (const auto& w : r.sweeps) {
        if (!selected(w.split, r.split_filter)) continue;
        o << pad(std::string(to_string(w.split)), 9) << pad(std::to_string(w.cases), 4)
          << pad(num(w.spearman, "%.3f"), 10) << pad(pct(w.regret), 10) << w.key << "\n";
    }
    o << "\nchecks (held-out targets):\n";
    for (const auto& c : r.checks) o << "  " << check_line(c) << "\n";
    const bool any_fail = std::any_of(r.checks.begin(), r.checks.end(), [](const Check& c) {
        return !c.pass && !no_data(c);
    });
    o << (r.pass ? "ALL TARGETS MET\n" : any_fail ? "TARGETS MISSED\n" : "TARGETS NOT ALL CHECKED (N/A: no data for them)\n");
    if (!r.baseline.empty()) {
        // A figure with no data is not compared with its recorded value: say so rather than
        // call it a regression (the --check exit code still fails, as nothing shows it held).
        const bool regression = std::any_of(r.checks.begin(), r.checks.end(), [](const Check& c) {
            return !c.pass && !no_data(c) && !c.within_recorded;
        });
        o << (r.pass_with_baseline ? "no regression beyond the recorded baseline "
              : regression         ? "REGRESSION beyond the recorded baseline "
                                   : "no regression in the figures that could be checked against the recorded baseline ")
          << r.baseline << (r.pass_with_baseline || regression ? "" : " (the N/A ones could not)") << "\n";
    }
    return o.str();
}

std::string report_json(const Report& r) {
    json::object o;
    o["gpu"] = r.gpu;
    o["model"] = r.model;
    o["measurements"] = r.measurements;
    o["split"] = r.split_filter;
    o["predictions"] = r.predictions_source;
    o["split_rule"] = "train iff fnv1a64(sweep key) is even; held-out otherwise";
    json::object prov;
    for (const auto& [k, v] : r.provenance) prov[k] = v;
    o["measurement_provenance"] = std::move(prov);
    o["summary"] = json::object{{"train", summary_json(r.train)},
                                {"heldout", summary_json(r.heldout)},
                                {"all", summary_json(r.all)}};
    json::array checks;
    for (const auto& c : r.checks)
        checks.push_back(json::object{{"what", c.what}, {"id", c.id}, {"value", jnum(c.value)}, {"target", c.target},
                                      {"op", c.flag ? "==" : (c.upper ? "<=" : ">=")}, {"pass", c.pass},
                                      {"recorded", jnum(c.recorded)}, {"within_recorded", c.within_recorded}});
    o["checks"] = std::move(checks);
    o["pass"] = r.pass;
    if (!r.baseline.empty()) {
        o["baseline"] = r.baseline;
        o["pass_with_baseline"] = r.pass_with_baseline;
    }
    json::object fams;
    for (const auto& f : r.families)
        fams[f.family] = json::object{{"train", summary_json(f.train)}, {"heldout", summary_json(f.heldout)}};
    o["families"] = std::move(fams);
    json::object launches;
    for (const auto& l : r.launches)
        launches[l.launch] = json::object{{"family", l.family},
                                          {"train", json::object{{"quantities", summary_json(l.train).at("quantities")}}},
                                          {"heldout", json::object{{"quantities", summary_json(l.heldout).at("quantities")}}}};
    o["launches"] = std::move(launches);
    json::array unpaired;
    for (const auto& n : r.launches_unpaired) unpaired.push_back(json::value(n));
    o["launches_unpaired"] = std::move(unpaired);
    json::array bias;
    for (const auto& b : r.tile_bias)
        bias.push_back(json::object{{"family", b.family}, {"tile", b.tile}, {"variant", b.variant},
                                    {"train", jnum(b.train)}, {"train_sweeps", b.train_sweeps},
                                    {"heldout", jnum(b.heldout)}, {"heldout_sweeps", b.heldout_sweeps}});
    o["tile_bias"] = json::object{{"correlation", jnum(r.tile_bias_r)}, {"groups", std::move(bias)}};
    json::array sweeps;
    for (const auto& w : r.sweeps) {
        if (!selected(w.split, r.split_filter)) continue;
        sweeps.push_back(json::object{{"sweep", w.key}, {"split", to_string(w.split)}, {"cases", w.cases},
                                      {"spearman", jnum(w.spearman)}, {"regret", jnum(w.regret)},
                                      {"measured_best", w.measured_best}, {"model_pick", w.model_pick}});
    }
    o["sweeps"] = std::move(sweeps);
    json::array cases;
    for (const auto& c : r.cases) {
        if (!selected(c.split, r.split_filter)) continue;
        json::object jc{{"case", c.name}, {"split", to_string(c.split)}, {"family", c.family}};
        if (!c.error.empty()) jc["error"] = c.error;
        json::object pred, meas, ape;
        for (std::size_t q = 0; q < kQuantityCount; ++q) {
            pred[kQuantityIds[q]] = jnum(c.predicted[q]);
            meas[kQuantityIds[q]] = jnum(c.measured[q]);
            ape[kQuantityIds[q]] = jnum(abs_pct_error(c.predicted[q], c.measured[q]));
        }
        jc["predicted"] = std::move(pred);
        jc["measured"] = std::move(meas);
        jc["ape"] = std::move(ape);
        if (!c.launches.empty()) {
            json::array ls;
            for (const auto& l : c.launches) {
                json::object lp, lm, la;
                for (std::size_t q = 0; q < kQuantityCount; ++q) {
                    lp[kQuantityIds[q]] = jnum(l.predicted[q]);
                    lm[kQuantityIds[q]] = jnum(l.measured[q]);
                    la[kQuantityIds[q]] = jnum(abs_pct_error(l.predicted[q], l.measured[q]));
                }
                ls.push_back(json::object{{"name", l.name}, {"predicted", std::move(lp)}, {"measured", std::move(lm)},
                                          {"ape", std::move(la)}});
            }
            jc["launches"] = std::move(ls);
        }
        cases.push_back(std::move(jc));
    }
    o["cases"] = std::move(cases);
    json::array skipped;
    for (const auto& s : r.skipped) skipped.push_back(json::value(s));
    o["skipped"] = std::move(skipped);
    return json::serialize(o) + "\n";
}

std::string report_markdown(const Report& r, const std::vector<std::string>& plots) {
    std::ostringstream o;
    o << "# tilescope validation: model `" << r.model << "` on `" << r.gpu << "`\n\n";
    o << "Measurements: `" << r.measurements << "`";
    o << ".\n\n";
    if (!r.provenance.empty()) {
        o << "| measured on | |\n|---|---|\n";
        for (const auto& [k, v] : r.provenance) o << "| " << k << " | " << v << " |\n";
        o << "\n";
    }
    o << r.cases.size() << " cases; split rule: a case is *train* iff FNV-1a-64 of its sweep key "
      << "(the case without its tile) is even, *held-out* otherwise. Calibration saw train cases only.\n\n";
    o << "## Targets (held-out)\n\n| check | value | target | result |\n|---|---|---|---|\n";
    for (const auto& c : r.checks)
        o << "| " << c.what << " | " << check_value(c) << " | " << check_target(c) << " | "
          << (c.pass ? "pass" : no_data(c) ? "n/a (no data)" : "**FAIL**")
          << (!c.pass && !no_data(c) && std::isfinite(c.recorded)
                  ? std::string(c.within_recorded ? " (recorded " : " (**worse** than recorded ") + recorded_value(c) + ")"
                  : std::string())
          << " |\n";
    o << "\nPredictions: " << r.predictions_source << ".\n";
    o << "\n## Errors per metric\n\nThe 95% CI is a percentile bootstrap over the split's cases (over its tile "
         "sweeps for Spearman and regret, below; 4000 resamples, fixed seed): how far the figure could move "
         "with another draw of cases like these, not the noise of one measurement.\n\n"
         "| metric | split | cases | MAPE | MAPE 95% CI | median | worst | worst case | bias (mean ln pred/meas) |\n"
      << "|---|---|---|---|---|---|---|---|---|\n";
    for (const char* which : {"heldout", "train", "all"}) {
        const SplitSummary& s = summary_of(r, which);
        for (std::size_t q = 0; q < kQuantityCount; ++q) {
            const auto& qs = s.quantities[q];
            o << "| " << kQuantityNames[q] << " | " << which << " | " << qs.usable << " | "
              << (qs.usable ? pct(qs.errors.mape) : "n/a") << " | " << interval(qs.mape_ci95, true) << " | "
              << (qs.usable ? pct(qs.errors.median_ape) : "n/a") << " | "
              << (qs.usable ? pct(qs.errors.max_ape) : "n/a") << " | `" << md_cell(qs.worst_case) << "` | "
              << (qs.usable ? num(qs.errors.mean_log_ratio, "%+.3f") : "n/a") << " |\n";
        }
    }
    o << "\n## Errors per kernel family\n\nMAPE with the worst case in brackets; Spearman is the mean over the "
         "family's tile sweeps (their count in brackets), regret the mean top-1 regret.\n\n"
      << "| family | split | cases | HBM bytes | lts__t_bytes | time | Spearman | regret |\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& row : family_rows(r))
        o << "| " << row.family << " | " << row.split << " | " << row.cases << " | " << row.hbm << " | " << row.lts
          << " | " << row.time << " | " << row.spearman << " | " << row.regret << " |\n";
    if (!r.launches.empty()) {
        o << "\n## Errors per launch (cases of several launches)\n\nA case's totals can be close while two of its "
             "launches are wrong in opposite directions. Each launch of those cases, compared with its own measured "
             "counters: MAPE with the worst case in brackets, and the time's predicted/measured ratio (geometric "
             "mean over the cases, then the smallest and the largest).\n\n";
        if (launch_predictions_missing(r)) {
            o << "The stored predictions hold no per-launch values; regenerate them with `--save-predictions`.\n";
        } else {
            o << "| launch | split | cases | HBM bytes | lts__t_bytes | time | time pred/meas |\n|---|---|---|---|---|---|---|\n";
            for (const auto& row : launch_rows(r))
                o << "| `" << row.launch << "` | " << row.split << " | " << row.cases << " | " << row.hbm << " | "
                  << row.lts << " | " << row.time << " | " << row.ratio << " |\n";
        }
    }
    o << "\n## Tile choice (time), per tile sweep\n\n| split | sweeps | mean Spearman | 95% CI | min | mean regret | 95% CI | max |\n"
      << "|---|---|---|---|---|---|---|---|\n";
    for (const char* which : {"heldout", "train", "all"}) {
        const SplitSummary& s = summary_of(r, which);
        o << "| " << which << " | " << s.sweeps_ranked << " | " << num(s.spearman_mean, "%.3f") << " | "
          << interval(s.spearman_ci95, false) << " | " << num(s.spearman_min, "%.3f") << " | " << pct(s.regret_mean)
          << " | " << interval(s.regret_ci95, true) << " | " << pct(s.regret_max) << " |\n";
    }
    o << "\nHow often the model orders two tiles of one sweep as the GPU does, by how far apart it predicts "
         "their times (|ln(pred_i / pred_j)|; a tie counts half). The last column is the smallest gap from which on "
         "at least 95% of the pairs are ordered right: tiles predicted closer than that are, for this model, a tie "
         "to settle by measuring.\n\n| split | pairs |";
    {
        const SplitSummary& s0 = summary_of(r, "heldout");
        for (const auto& b : s0.pair_order) o << " " << gap_label(b) << " |";
        o << " 95% resolution |\n|---|---|";
        for (std::size_t k = 0; k < s0.pair_order.size(); ++k) o << "---|";
        o << "---|\n";
    }
    for (const char* which : {"heldout", "train", "all"}) {
        const SplitSummary& s = summary_of(r, which);
        o << "| " << which << " | " << pair_count(s) << " |";
        for (const auto& b : s.pair_order)
            o << " " << (b.pairs ? num(100.0 * b.right / static_cast<double>(b.pairs), "%.0f") + "% (" + std::to_string(b.pairs) + ")" : "n/a")
              << " |";
        o << " " << (std::isfinite(s.order_resolution95) ? num(s.order_resolution95 * 100, "%.0f") + "%" : "n/a") << " |\n";
    }
    o << "\n| sweep | split | tiles | Spearman | regret | measured best | model pick |\n|---|---|---|---|---|---|---|\n";
    for (const auto& w : r.sweeps) {
        if (!selected(w.split, r.split_filter)) continue;
        auto tile = [](const std::string& n) { return n.substr(n.find('|') + 1); };
        o << "| `" << w.key << "` | " << to_string(w.split) << " | " << w.cases << " | "
          << num(w.spearman, "%.3f") << " | " << pct(w.regret) << " | " << tile(w.measured_best) << " | "
          << tile(w.model_pick) << " |\n";
    }
    if (!r.tile_bias.empty()) {
        o << "\n## Per-tile bias (time, relative to each sweep)\n\nWithin each tile sweep, a tile's ln(predicted / "
             "measured time) minus the sweep's mean of it, averaged over the sweeps of one kernel variant (family, "
             "tile and, for attention, head dimension) and given as a factor - 1: +5% means the model puts this "
             "tile 5% slower, relative to its sweep-mates, than the GPU does. A bias that the held-out half repeats "
             "is the same tile mispredicted the same way in every sweep, an error of the model's form for that "
             "variant rather than noise; where a sweep's tiles are close, such biases decide its ranking. "
          << tile_bias_intro(r) << ".\n\n| family | tile | variant | train (sweeps) | held out (sweeps) |\n"
          << "|---|---|---|---|---|\n";
        for (const auto& b : r.tile_bias)
            o << "| " << b.family << " | `" << b.tile << "` | " << b.variant << " | " << bias_cell(b.train, b.train_sweeps)
              << " | " << bias_cell(b.heldout, b.heldout_sweeps) << " |\n";
    }
    if (!plots.empty()) {
        o << "\n## Predicted vs measured (log-log; filled = held-out, hollow = train; dashed = target band)\n\n";
        for (const auto& p : plots) o << "![" << p << "](" << p << ")\n\n";
    }
    o << "\n## Cases (" << r.split_filter << ")\n\n| case | split | HBM pred | HBM meas | err | L2 pred | L2 meas | err | time pred (ns) | time meas (ns) | err |\n"
      << "|---|---|---|---|---|---|---|---|---|---|---|\n";
    const auto h = static_cast<std::size_t>(Quantity::hbm_bytes);
    const auto l = static_cast<std::size_t>(Quantity::lts_bytes);
    const auto t = static_cast<std::size_t>(Quantity::time);
    for (const auto& c : r.cases) {
        if (!selected(c.split, r.split_filter)) continue;
        o << "| `" << md_cell(c.name) << "` | " << to_string(c.split);
        if (!c.error.empty()) {
            o << " | prediction failed: " << c.error << " ||||||||\n";
            continue;
        }
        for (const auto q : {h, l, t})
            o << " | " << num(c.predicted[q]) << " | " << num(c.measured[q]) << " | "
              << pct(abs_pct_error(c.predicted[q], c.measured[q]));
        o << " |\n";
    }
    if (!r.skipped.empty()) {
        o << "\n## Data set lines that are not cases (" << r.skipped.size() << ")\n\n";
        for (const auto& s : r.skipped) o << "- " << s << "\n";
    }
    return o.str();
}

Result<std::vector<std::string>> write_plots(const Report& r, const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return make_error("cannot create directory " + dir + ": " + ec.message());
    std::vector<std::string> families;
    for (const auto& c : r.cases)
        if (std::find(families.begin(), families.end(), c.family) == families.end()) families.push_back(c.family);
    std::vector<std::string> files;
    const std::array<Quantity, kQuantityCount> shown = {Quantity::hbm_bytes, Quantity::dram_read,
                                                        Quantity::dram_write, Quantity::lts_bytes,
                                                        Quantity::time};
    const std::array<double, kQuantityCount> band = {0.05, 0.05, 0.05, 0.10, 0.10};
    for (const Quantity q : shown) {
        const auto qi = static_cast<std::size_t>(q);
        ScatterSpec spec;
        spec.title = std::string(kQuantityNames[qi]) + " - " + r.model + " vs measured, " + r.gpu;
        spec.x_label = std::string("measured ") + (q == Quantity::time ? "(ns)" : "(bytes)");
        spec.y_label = std::string("predicted ") + (q == Quantity::time ? "(ns)" : "(bytes)");
        spec.series_names = families;
        spec.band_fraction = band[qi];
        std::vector<ScatterPoint> pts;
        for (const auto& c : r.cases) {
            if (!selected(c.split, r.split_filter) || !c.error.empty()) continue;
            const int series = static_cast<int>(std::find(families.begin(), families.end(), c.family) - families.begin());
            pts.push_back({c.measured[qi], c.predicted[qi], series, c.split == Split::heldout});
        }
        const std::string file = std::string("scatter_") + kQuantityIds[qi] + ".png";
        const Status st = write_png(scatter_loglog(spec, pts), (std::filesystem::path(dir) / file).string());
        if (!st) return st.error();
        files.push_back(file);
    }
    return files;
}

}  // namespace tilescope::validate
