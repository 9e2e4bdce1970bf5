#include "validate/prediction_cache.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/json_keys.hpp"
#include "core/result_io.hpp"
#include "core/lower.hpp"
#include "validate/split.hpp"

namespace tilescope::validate {

namespace json = boost::json;

std::string prediction_cache_jsonl(const Report& r, const std::string& fingerprint) {
    std::ostringstream o;
    o << json::serialize(json::object{{"model", r.model}, {"gpu", r.gpu}, {"profile_fingerprint", fingerprint}})
      << "\n";
    for (const auto& c : r.cases) {
        json::object line{{"case", c.name}};
        if (!c.error.empty()) line["error"] = c.error;
        json::object q;
        for (std::size_t i = 0; i < kQuantityCount; ++i)
            q[kQuantityIds[i]] = std::isfinite(c.predicted[i]) ? json::value(c.predicted[i]) : json::value(nullptr);
        line["predicted"] = std::move(q);
        if (!c.launches.empty() && std::any_of(c.launches.begin(), c.launches.end(), [](const LaunchPair& l) {
                return std::any_of(l.predicted.begin(), l.predicted.end(), [](double v) { return std::isfinite(v); });
            })) {
            json::array ls;
            for (const auto& l : c.launches) {
                json::object lq;
                for (std::size_t i = 0; i < kQuantityCount; ++i)
                    lq[kQuantityIds[i]] = std::isfinite(l.predicted[i]) ? json::value(l.predicted[i]) : json::value(nullptr);
                ls.push_back(json::object{{"name", l.name}, {"predicted", std::move(lq)}});
            }
            line["launches"] = std::move(ls);
        }
        o << json::serialize(line) << "\n";
    }
    return o.str();
}

namespace {

// One stored quantity: absent or null (what the writer puts for a value the model does not give)
// is NaN; otherwise a finite number >= 0, or an error naming `where` + the quantity.
Result<double> read_quantity(const json::object& pred, std::size_t i, const std::string& where) {
    const auto* x = pred.if_contains(kQuantityIds[i]);
    if (x == nullptr || x->is_null()) return static_cast<double>(NAN);
    if (!x->is_number()) return make_error(where + kQuantityIds[i] + " must be a number or null (got " + json::serialize(*x) + ")");
    const double v = x->to_number<double>();
    if (!std::isfinite(v) || v < 0)
        return make_error(where + kQuantityIds[i] + " must be a finite number >= 0 (got " + json::serialize(*x) + ")");
    return v;
}

}  // namespace

Result<PredictionCache> parse_prediction_cache(const std::string& text, const std::string& origin) {
    PredictionCache cache;
    bool header = false;
    std::istringstream in(text);
    std::string line;
    int no = 0;
    while (std::getline(in, line)) {
        ++no;
        if (line.empty()) continue;
        const std::string where = origin + ":" + std::to_string(no);
        boost::system::error_code ec;
        const json::value v = json::parse(line, ec);
        if (ec || !v.is_object()) return make_error(where + ": not a JSON object");
        if (const std::string dup = json_duplicate_key(line); !dup.empty())
            return make_error(where + ": " + dup + ": " + kDuplicateKeyRule);
        const json::object& o = v.as_object();
        if (!header) {
            const auto* m = o.if_contains("model");
            const auto* g = o.if_contains("gpu");
            const auto* f = o.if_contains("profile_fingerprint");
            if (m == nullptr || g == nullptr || f == nullptr || !m->is_string() || !g->is_string() || !f->is_string())
                return make_error(where + ": header must have string fields model, gpu, profile_fingerprint");
            cache.model = std::string(m->as_string());
            cache.gpu = std::string(g->as_string());
            cache.profile_fingerprint = std::string(f->as_string());
            header = true;
            continue;
        }
        const auto* name = o.if_contains("case");
        const auto* pred = o.if_contains("predicted");
        if (name == nullptr || !name->is_string() || pred == nullptr || !pred->is_object())
            return make_error(where + ": needs \"case\" (string) and \"predicted\" (object)");
        CachedPrediction cp;
        for (std::size_t i = 0; i < kQuantityCount; ++i) {
            auto q = read_quantity(pred->as_object(), i, where + ": predicted.");
            if (!q) return q.error();
            cp.predicted[i] = *q;
        }
        if (const auto* e = o.if_contains("error"); e != nullptr && e->is_string()) cp.error = std::string(e->as_string());
        // A case the model predicted has a time: without one it would silently leave the figures.
        if (cp.error.empty() && !(cp.predicted[static_cast<std::size_t>(Quantity::time)] > 0))
            return make_error(where + ": predicted.time must be a positive number when the case has no \"error\"");
        if (const auto* ls = o.if_contains("launches"); ls != nullptr) {
            if (!ls->is_array()) return make_error(where + ": \"launches\" must be an array");
            for (const auto& l : ls->as_array()) {
                const auto* lo = l.if_object();
                const auto* ln = lo ? lo->if_contains("name") : nullptr;
                const auto* lp = lo ? lo->if_contains("predicted") : nullptr;
                if (ln == nullptr || !ln->is_string() || lp == nullptr || !lp->is_object())
                    return make_error(where + ": each launch needs \"name\" (string) and \"predicted\" (object)");
                std::array<double, kQuantityCount> lv{};
                for (std::size_t i = 0; i < kQuantityCount; ++i) {
                    auto q = read_quantity(lp->as_object(), i, where + ": launch " + std::string(ln->as_string()) + " predicted.");
                    if (!q) return q.error();
                    lv[i] = *q;
                }
                cp.launches.emplace_back(std::string(ln->as_string()), lv);
            }
        }
        cache.cases[std::string(name->as_string())] = cp;
    }
    if (!header) return make_error(origin + ": empty predictions file (no header line)");
    return cache;
}

Result<PredictionCache> load_prediction_cache(const std::string& path) {
    auto text = read_text_file(path, "predictions file " + path);
    if (!text) return text.error();
    return parse_prediction_cache(*text, path);
}

double simulation_cost(const Workload& w, const Hardware& hw) {
    auto launches = lower(w, hw);
    if (!launches) return 0;
    double cost = 0;
    std::vector<Step> steps;
    for (const Launch& l : *launches) {
        steps.clear();
        if (l.work_items > 0 && l.program) l.program(0, steps);
        cost += static_cast<double>(l.work_items) * static_cast<double>(steps.size() + 1);
    }
    return cost;
}

}  // namespace tilescope::validate
