#include "validate/validate.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <thread>

#include <boost/json.hpp>

#include "core/json_keys.hpp"
#include "core/metrics.hpp"
#include "validate/prediction_cache.hpp"

namespace tilescope::validate {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string case_variant(const Workload& w) {
    return is_attention(w.kernel) ? "d=" + std::to_string(w.head_dim) : std::string();
}

bool usable(double predicted, double measured) {
    return std::isfinite(predicted) && std::isfinite(measured) && predicted > 0 && measured > 0;
}

using LaunchValues = std::vector<std::pair<std::string, std::array<double, kQuantityCount>>>;

// The predicted quantities of each launch of a prediction, in launch order.
LaunchValues launch_values(const Prediction& p) {
    LaunchValues out;
    for (const auto& l : p.launches) {
        std::array<double, kQuantityCount> v{};
        for (std::size_t q = 0; q < kQuantityCount; ++q) v[q] = quantity_of(l.metrics, static_cast<Quantity>(q));
        out.emplace_back(l.name, v);
    }
    return out;
}

// Pairs a measurement's launches with predicted ones when it has two or more and the predicted
// launches are the same in number and names (else none: a lowering that differs from the
// measured kernel sequence is not compared launch by launch). `predicted` null or empty: the
// pairs carry NaN predictions (stored predictions without launches).
std::vector<LaunchPair> pair_launches(const Measurement& m, const LaunchValues* predicted) {
    std::vector<LaunchPair> out;
    if (m.launches.size() < 2) return out;
    const bool have = predicted != nullptr && !predicted->empty();
    if (have) {
        if (predicted->size() != m.launches.size()) return out;
        for (std::size_t i = 0; i < m.launches.size(); ++i)
            if ((*predicted)[i].first != m.launches[i].name) return out;
    }
    for (std::size_t i = 0; i < m.launches.size(); ++i) {
        LaunchPair lp;
        lp.name = m.launches[i].name;
        for (std::size_t q = 0; q < kQuantityCount; ++q) {
            lp.measured[q] = quantity_of(m.launches[i].metrics, static_cast<Quantity>(q));
            lp.predicted[q] = have ? (*predicted)[i].second[q] : kNaN;
        }
        out.push_back(std::move(lp));
    }
    return out;
}

bool unpaired(const Measurement& m, std::size_t predicted_launches, const std::vector<LaunchPair>& paired) {
    return paired.empty() && !m.launches.empty() && predicted_launches > 0 &&
           (m.launches.size() >= 2 || predicted_launches >= 2);
}

bool same_value(double a, double b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

// Per quantity: MAPE, median, worst case and the MAPE's bootstrap interval over `cases`.
std::array<QuantitySummary, kQuantityCount> summarize_quantities(const std::vector<CaseResult>& cases) {
    std::array<QuantitySummary, kQuantityCount> out;
    for (std::size_t q = 0; q < kQuantityCount; ++q) {
        QuantitySummary& qs = out[q];
        qs.quantity = static_cast<Quantity>(q);
        std::vector<double> p, m;
        std::vector<const CaseResult*> who;
        for (const auto& c : cases) {
            if (c.error.empty() && usable(c.predicted[q], c.measured[q])) {
                p.push_back(c.predicted[q]);
                m.push_back(c.measured[q]);
                who.push_back(&c);
            } else {
                ++qs.unusable;
            }
        }
        qs.usable = p.size();
        if (!p.empty()) {
            auto e = summarize_errors(p, m);
            if (e) {
                qs.errors = *e;
                qs.worst_case = who[e->worst]->name;
                std::vector<double> apes(p.size());
                for (std::size_t i = 0; i < p.size(); ++i) apes[i] = abs_pct_error(p[i], m[i]);
                qs.mape_ci95 = bootstrap_mean_interval(apes);
            }
        }
    }
    return out;
}

// Per launch name, the error summaries of its launches, per split (first-seen order).
std::vector<LaunchSummary> summarize_launches(const std::vector<CaseResult>& cases) {
    std::vector<LaunchSummary> out;
    std::map<std::string, std::pair<std::vector<CaseResult>, std::vector<CaseResult>>> by_name;  // train, held-out
    for (const auto& c : cases) {
        if (!c.error.empty()) continue;
        for (const auto& l : c.launches) {
            auto [it, fresh] = by_name.try_emplace(l.name);
            if (fresh) out.push_back({l.name, c.family, {}, {}});
            CaseResult one;
            one.name = c.name + " [" + l.name + "]";
            one.family = c.family;
            one.split = c.split;
            one.predicted = l.predicted;
            one.measured = l.measured;
            (c.split == Split::train ? it->second.first : it->second.second).push_back(std::move(one));
        }
    }
    for (auto& s : out) {
        const auto& [train, heldout] = by_name[s.launch];
        s.train.quantities = summarize_quantities(train);
        s.heldout.quantities = summarize_quantities(heldout);
    }
    return out;
}

}  // namespace

double quantity_of(const Prediction& p, Quantity q) { return quantity_of(p.total, q); }

double quantity_of(const Metrics& m, Quantity q) {
    switch (q) {
        case Quantity::hbm_bytes: return m[Metric::dram_bytes_read] + m[Metric::dram_bytes_write];
        case Quantity::dram_read: return m[Metric::dram_bytes_read];
        case Quantity::dram_write: return m[Metric::dram_bytes_write];
        case Quantity::lts_bytes: return m[Metric::lts_t_bytes];
        case Quantity::time: return m[Metric::gpu_time_duration];
    }
    return kNaN;
}

Result<SplitFilter> parse_split_filter(const std::string& s) {
    if (s == "heldout") return SplitFilter::heldout;
    if (s == "train") return SplitFilter::train;
    if (s == "all") return SplitFilter::all;
    return make_error("--split must be heldout, train or all (got '" + s + "')");
}

std::string_view to_string(SplitFilter f) {
    switch (f) {
        case SplitFilter::heldout: return "heldout";
        case SplitFilter::train: return "train";
        case SplitFilter::all: return "all";
    }
    return "?";
}

namespace {

// The cases with a usable time, grouped by sweep key in first-appearance order (deterministic);
// groups of fewer than two cases are left out.
std::vector<std::vector<const CaseResult*>> timed_sweeps(const std::vector<CaseResult>& cases) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<const CaseResult*>> groups;
    const auto t = static_cast<std::size_t>(Quantity::time);
    for (const auto& c : cases) {
        if (!c.error.empty() || !usable(c.predicted[t], c.measured[t])) continue;
        auto [it, fresh] = groups.try_emplace(c.key);
        if (fresh) order.push_back(c.key);
        it->second.push_back(&c);
    }
    std::vector<std::vector<const CaseResult*>> out;
    for (const auto& key : order)
        if (groups[key].size() >= 2) out.push_back(std::move(groups[key]));
    return out;
}

}  // namespace

std::vector<SweepResult> rank_sweeps(const std::vector<CaseResult>& cases) {
    const auto t = static_cast<std::size_t>(Quantity::time);
    std::vector<SweepResult> out;
    for (const auto& g : timed_sweeps(cases)) {
        std::vector<double> p, m;
        for (const auto* c : g) {
            p.push_back(c->predicted[t]);
            m.push_back(c->measured[t]);
        }
        SweepResult s;
        s.key = g.front()->key;
        s.split = g.front()->split;
        s.cases = g.size();
        s.spearman = g.size() >= 3 ? spearman(p, m) : kNaN;
        s.regret = top1_regret(p, m);
        s.measured_best = g[static_cast<std::size_t>(std::min_element(m.begin(), m.end()) - m.begin())]->name;
        s.model_pick = g[static_cast<std::size_t>(std::min_element(p.begin(), p.end()) - p.begin())]->name;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<TileBias> tile_biases(const std::vector<CaseResult>& cases) {
    const auto t = static_cast<std::size_t>(Quantity::time);
    struct Sums {
        double sum[2] = {0, 0};
        std::size_t n[2] = {0, 0};
    };
    std::map<std::array<std::string, 3>, Sums> groups;  // sorted by family, tile, variant
    for (const auto& g : timed_sweeps(cases)) {
        double mean = 0;
        for (const auto* c : g) mean += std::log(c->predicted[t] / c->measured[t]);
        mean /= static_cast<double>(g.size());
        for (const auto* c : g) {
            const auto bar = c->name.find('|');
            Sums& s = groups[{c->family, bar == std::string::npos ? c->name : c->name.substr(bar + 1), c->variant}];
            const int h = c->split == Split::heldout ? 1 : 0;
            s.sum[h] += std::log(c->predicted[t] / c->measured[t]) - mean;
            ++s.n[h];
        }
    }
    std::vector<TileBias> out;
    for (const auto& [k, s] : groups) {
        TileBias b{k[0], k[1], k[2]};
        if (s.n[0] > 0) b.train = std::expm1(s.sum[0] / static_cast<double>(s.n[0]));
        if (s.n[1] > 0) b.heldout = std::expm1(s.sum[1] / static_cast<double>(s.n[1]));
        b.train_sweeps = s.n[0];
        b.heldout_sweeps = s.n[1];
        out.push_back(std::move(b));
    }
    return out;
}

double tile_bias_correlation(const std::vector<TileBias>& biases) {
    std::vector<double> x, y;
    for (const auto& b : biases) {
        if (b.train_sweeps == 0 || b.heldout_sweeps == 0) continue;
        x.push_back(std::log1p(b.train));
        y.push_back(std::log1p(b.heldout));
    }
    if (x.size() < 3) return kNaN;
    const double n = static_cast<double>(x.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        mx += x[i] / n;
        my += y[i] / n;
    }
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : kNaN;
}

SplitSummary summarize(const std::vector<CaseResult>& cases, const std::vector<SweepResult>& sweeps) {
    SplitSummary s;
    s.quantities = summarize_quantities(cases);
    std::vector<double> rho, reg;
    s.spearman_min = kNaN;
    s.regret_max = kNaN;
    for (const auto& w : sweeps) {
        if (std::isfinite(w.spearman)) {
            rho.push_back(w.spearman);
            if (!(w.spearman >= s.spearman_min)) {
                s.spearman_min = w.spearman;
                s.spearman_min_sweep = w.key;
            }
        }
        if (std::isfinite(w.regret)) {
            reg.push_back(w.regret);
            if (!(w.regret <= s.regret_max)) {
                s.regret_max = w.regret;
                s.regret_max_sweep = w.key;
            }
        }
    }
    s.sweeps_ranked = rho.size();
    s.spearman_mean = mean(rho);
    s.sweeps_with_regret = reg.size();
    s.regret_mean = mean(reg);
    s.spearman_ci95 = bootstrap_mean_interval(rho);
    s.regret_ci95 = bootstrap_mean_interval(reg);
    // Pairwise order by predicted gap, over the same groups the sweeps are (cases of one key).
    std::map<std::string, TimeGroup> groups;
    const auto t = static_cast<std::size_t>(Quantity::time);
    for (const auto& c : cases)
        if (c.error.empty() && usable(c.predicted[t], c.measured[t]))
            groups[c.key].emplace_back(c.predicted[t], c.measured[t]);
    std::vector<TimeGroup> gs;
    for (auto& [key, g] : groups) gs.push_back(std::move(g));
    s.pair_order = pair_order_accuracy(gs);
    s.order_resolution95 = order_resolution_of_bins(s.pair_order, 0.95);
    return s;
}

std::vector<Check> check_targets(const SplitSummary& h, const Targets& t) {
    std::vector<Check> out;
    for (std::size_t q = 0; q < kQuantityCount; ++q) {
        if (t.mape[q] < 0) continue;
        Check c;
        c.what = std::string("held-out ") + kQuantityIds[q] + " MAPE";
        c.id = std::string(kQuantityIds[q]) + "_mape";
        c.value = h.quantities[q].usable > 0 ? h.quantities[q].errors.mape : kNaN;
        c.target = t.mape[q];
        c.upper = true;
        c.pass = std::isfinite(c.value) && c.value <= c.target;
        out.push_back(c);
    }
    Check rho{"held-out mean Spearman (time, per tile sweep)", h.spearman_mean, t.spearman_min, false, false};
    rho.pass = std::isfinite(rho.value) && rho.value >= rho.target;
    rho.id = "spearman_mean";
    out.push_back(rho);
    Check reg{"held-out mean top-1 regret (time, per tile sweep)", h.regret_mean, t.regret_max, true, false};
    reg.pass = std::isfinite(reg.value) && reg.value <= reg.target;
    reg.id = "regret_mean";
    out.push_back(reg);
    return out;
}

namespace {

// A yes/no check that passes when `problem` is empty; otherwise its text follows the name.
Check yes_no_check(const std::string& what, const std::string& problem) {
    Check c{what + (problem.empty() ? std::string() : ": " + problem), problem.empty() ? 1.0 : 0.0, 1.0, false,
            problem.empty()};
    c.flag = true;
    return c;
}

}  // namespace

Result<Report> run_validation(const Dataset& data, const Hardware& hw, const std::string& model_name,
                        const Predictor& predict, const ValidateOptions& options) {
    if (data.cases.empty()) return make_error("measurements " + data.origin + " hold no usable case");
    Report r;
    r.gpu = hw.name;
    r.model = model_name;
    r.measurements = data.origin;
    r.split_filter = std::string(to_string(options.filter));
    r.skipped = data.skipped;
    r.provenance = data.provenance;
    r.cases.resize(data.cases.size());

    // Predictions run on `jobs` threads; each writes only its own slot, so the output order is
    // the data set's order whatever the thread count.
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next++; i < data.cases.size(); i = next++) {
            const Case& c = data.cases[i];
            CaseResult& out = r.cases[i];
            out.name = c.name;
            out.key = c.key;
            out.family = std::string(to_string(c.measured.workload.kernel));
            out.variant = case_variant(c.measured.workload);
            out.split = c.split;
            for (std::size_t q = 0; q < kQuantityCount; ++q) {
                out.measured[q] = quantity_of(c.measured, static_cast<Quantity>(q));
                out.predicted[q] = kNaN;
            }
            auto p = predict(c.measured.workload, hw);
            if (!p) {
                out.error = p.error().message;
                continue;
            }
            for (std::size_t q = 0; q < kQuantityCount; ++q)
                out.predicted[q] = quantity_of(*p, static_cast<Quantity>(q));
            const LaunchValues lv = launch_values(*p);
            out.launches = pair_launches(c.measured, &lv);
            out.launches_unpaired = unpaired(c.measured, lv.size(), out.launches);
        }
    };
    const int jobs = std::max(1, options.jobs);
    std::string cache_problem;
    if (options.cache == nullptr) {
        std::vector<std::thread> pool;
        for (int j = 1; j < jobs; ++j) pool.emplace_back(worker);
        worker();
        for (auto& t : pool) t.join();
        r.predictions_source = "model run";
    } else {
        const PredictionCache& cache = *options.cache;
        if (cache.model != model_name)
            cache_problem = "stored predictions are of model '" + cache.model + "', not '" + model_name + "'";
        else if (cache.gpu != hw.name)
            cache_problem = "stored predictions were made with profile " + cache.gpu + ", not " + hw.name;
        else if (cache.profile_fingerprint != profile_fingerprint(hw))
            cache_problem = "stored predictions were made with another version of profile " + cache.gpu +
                            " (fingerprint " + cache.profile_fingerprint + " != " + profile_fingerprint(hw) + ")";
        std::size_t missing = 0;
        for (std::size_t i = 0; i < data.cases.size(); ++i) {
            const Case& c = data.cases[i];
            CaseResult& out = r.cases[i];
            out.name = c.name;
            out.key = c.key;
            out.family = std::string(to_string(c.measured.workload.kernel));
            out.variant = case_variant(c.measured.workload);
            out.split = c.split;
            for (std::size_t q = 0; q < kQuantityCount; ++q)
                out.measured[q] = quantity_of(c.measured, static_cast<Quantity>(q));
            const auto it = cache.cases.find(c.name);
            if (it == cache.cases.end()) {
                ++missing;
                out.predicted.fill(kNaN);
                out.error = "not in the stored predictions";
                continue;
            }
            out.predicted = it->second.predicted;
            out.error = it->second.error;
            if (out.error.empty()) {
                out.launches = pair_launches(c.measured, &it->second.launches);
                // A stored file without per-launch values (written before they were kept) is not
                // a mismatch: the report says that it lacks them.
                if (!it->second.launches.empty())
                    out.launches_unpaired = unpaired(c.measured, it->second.launches.size(), out.launches);
            }
        }
        if (missing > 0 && cache_problem.empty())
            cache_problem = std::to_string(missing) + " cases are missing from the stored predictions";
        // Re-predict the cheapest cases and compare bit-for-bit up to 1e-9 relative.
        std::vector<std::pair<double, std::size_t>> by_cost;
        for (std::size_t i = 0; i < data.cases.size(); ++i)
            by_cost.emplace_back(simulation_cost(data.cases[i].measured.workload, hw), i);
        std::stable_sort(by_cost.begin(), by_cost.end());
        const std::size_t k = std::min<std::size_t>(by_cost.size(), static_cast<std::size_t>(std::max(0, options.verify_sample)));
        std::size_t matched = 0;
        std::string first_mismatch;
        for (std::size_t j = 0; j < k; ++j) {
            const std::size_t i = by_cost[j].second;
            auto p = predict(data.cases[i].measured.workload, hw);
            bool same = p.ok() == r.cases[i].error.empty();
            if (p && same) {
                for (std::size_t q = 0; q < kQuantityCount; ++q)
                    if (!same_value(quantity_of(*p, static_cast<Quantity>(q)), r.cases[i].predicted[q])) same = false;
                // Stored per-launch values, where the file has them, must match as well.
                const auto it = cache.cases.find(r.cases[i].name);
                if (it != cache.cases.end() && !it->second.launches.empty()) {
                    const LaunchValues lv = launch_values(*p);
                    if (lv.size() != it->second.launches.size()) same = false;
                    for (std::size_t l = 0; same && l < lv.size(); ++l) {
                        if (lv[l].first != it->second.launches[l].first) same = false;
                        for (std::size_t q = 0; q < kQuantityCount; ++q)
                            if (!same_value(lv[l].second[q], it->second.launches[l].second[q])) same = false;
                    }
                }
            }
            if (same) ++matched;
            else if (first_mismatch.empty()) first_mismatch = r.cases[i].name;
        }
        if (matched < k && cache_problem.empty())
            cache_problem = std::to_string(k - matched) + " of " + std::to_string(k) +
                            " re-predicted cases differ from the stored predictions (first: " + first_mismatch +
                            "); regenerate them with --save-predictions";
        r.predictions_source = "stored predictions (model " + cache.model + ", profile fingerprint " +
                               cache.profile_fingerprint + "); " + std::to_string(k) + " cheapest cases re-predicted, " +
                               std::to_string(matched) + " matched";
    }

    r.sweeps = rank_sweeps(r.cases);
    auto pick = [&](Split s) {
        std::vector<CaseResult> cs;
        std::vector<SweepResult> ws;
        for (const auto& c : r.cases)
            if (c.split == s) cs.push_back(c);
        for (const auto& w : r.sweeps)
            if (w.split == s) ws.push_back(w);
        return summarize(cs, ws);
    };
    for (const auto& c : r.cases) {
        const bool seen = std::any_of(r.families.begin(), r.families.end(),
                                      [&](const FamilySummary& f) { return f.family == c.family; });
        if (!seen) r.families.push_back({c.family, {}, {}});
    }
    for (auto& f : r.families) {
        auto pick_family = [&](Split s) {
            std::vector<CaseResult> cs;
            std::vector<SweepResult> ws;
            for (const auto& c : r.cases)
                if (c.split == s && c.family == f.family) cs.push_back(c);
            for (const auto& w : r.sweeps)
                if (w.split == s && w.key.rfind(f.family + "/", 0) == 0) ws.push_back(w);
            return summarize(cs, ws);
        };
        f.train = pick_family(Split::train);
        f.heldout = pick_family(Split::heldout);
    }
    r.launches = summarize_launches(r.cases);
    r.tile_bias = tile_biases(r.cases);
    r.tile_bias_r = tile_bias_correlation(r.tile_bias);
    for (const auto& c : r.cases)
        if (c.launches_unpaired) r.launches_unpaired.push_back(c.name);
    r.train = pick(Split::train);
    r.heldout = pick(Split::heldout);
    r.all = summarize(r.cases, r.sweeps);
    r.checks = check_targets(r.heldout, options.targets);
    // A case the model could not predict, or whose stored time is unusable, drops out of the
    // figures above; the report keeps it, and this check fails so that nothing passes without it.
    {
        const auto t = static_cast<std::size_t>(Quantity::time);
        std::size_t failed = 0;
        std::string first;
        for (const auto& c : r.cases) {
            const bool measured = std::isfinite(c.measured[t]) && c.measured[t] > 0;
            if (c.error.empty() && (!measured || usable(c.predicted[t], c.measured[t]))) continue;
            if (failed++ == 0) first = c.name + ": " + (c.error.empty() ? "no usable predicted time" : c.error);
        }
        r.checks.push_back(yes_no_check("every case predicted",
                                        failed == 0 ? std::string()
                                                    : std::to_string(failed) + " of " + std::to_string(r.cases.size()) +
                                                          " not (first: " + first + ")"));
    }
    if (options.cache != nullptr) r.checks.push_back(yes_no_check("stored predictions reproduce", cache_problem));
    r.pass = std::all_of(r.checks.begin(), r.checks.end(), [](const Check& c) { return c.pass; });
    r.pass_with_baseline = r.pass;
    return r;
}

Status apply_baseline(Report& report, const std::string& json_text, const std::string& origin) {
    boost::system::error_code ec;
    const boost::json::value v = boost::json::parse(json_text, ec);
    if (ec || !v.is_object()) return make_error("baseline " + origin + ": not a JSON object");
    if (const std::string dup = json_duplicate_key(json_text); !dup.empty())
        return make_error("baseline " + origin + ": " + dup + ": " + kDuplicateKeyRule);
    const boost::json::value* rec = v.as_object().if_contains("recorded");
    if (rec == nullptr || !rec->is_object())
        return make_error("baseline " + origin + ": needs an object \"recorded\" {check id: figure}");
    for (const auto& kv : rec->as_object()) {
        const std::string id(kv.key());
        auto it = std::find_if(report.checks.begin(), report.checks.end(),
                               [&](const Check& c) { return !c.id.empty() && c.id == id; });
        if (it == report.checks.end())
            return make_error("baseline " + origin + ": unknown check id '" + id +
                              "' (known: hbm_bytes_mape, lts_bytes_mape, time_mape, spearman_mean, regret_mean)");
        if (!kv.value().is_number())
            return make_error("baseline " + origin + ": recorded." + id + " must be a number");
        const double figure = kv.value().to_number<double>();
        // A MAPE or a regret is >= 0 and a Spearman in [-1, 1]: anything else is a typo that
        // would make every value pass (or none).
        const bool spearman = id == "spearman_mean";
        if (!std::isfinite(figure) || (spearman ? (figure < -1 || figure > 1) : figure < 0))
            return make_error("baseline " + origin + ": recorded." + id + " must be " +
                              (spearman ? "in [-1, 1]" : "a number >= 0") + " (got " + boost::json::serialize(kv.value()) + ")");
        it->recorded = figure;
        it->within_recorded = std::isfinite(it->value) &&
                              (it->upper ? it->value <= it->recorded : it->value >= it->recorded);
    }
    report.baseline = origin;
    report.pass_with_baseline = std::all_of(report.checks.begin(), report.checks.end(),
                                            [](const Check& c) { return c.pass || c.within_recorded; });
    return Status::success();
}

}  // namespace tilescope::validate
