#include "validate/dataset.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <map>
#include <sstream>
#include <vector>

#include "core/json_keys.hpp"
#include "core/result_io.hpp"

namespace tilescope::validate {

namespace json = boost::json;

namespace {

std::string sci_text(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

std::string string_field(const json::object& o, const char* key) {
    const auto* v = o.if_contains(key);
    if (v != nullptr && v->is_string()) return std::string(v->as_string());
    return {};
}

}  // namespace

namespace {
// Data sets measured before commit 2b081d3 carry driver_version = "for" (the first word after
// "Kernel Module" in /proc/driver/nvidia/version was taken); the full NVRM line is kept in
// nvidia_driver, so the version (the first token shaped like 580.159.04) is recovered from it.
void repair_driver_version(std::map<std::string, std::string>& prov) {
    const auto dv = prov.find("driver_version");
    const auto nv = prov.find("nvidia_driver");
    if (dv == prov.end() || nv == prov.end()) return;
    if (!dv->second.empty() && std::isdigit(static_cast<unsigned char>(dv->second.front())) != 0) return;
    std::istringstream words(nv->second);
    for (std::string w; words >> w;) {
        const bool shaped = std::isdigit(static_cast<unsigned char>(w.front())) != 0 &&
                            w.find('.') != std::string::npos &&
                            w.find_first_not_of("0123456789.") == std::string::npos;
        if (shaped) {
            prov["driver_version_as_measured"] = dv->second;
            dv->second = w;
            return;
        }
    }
}
}  // namespace

namespace {
// A file that is one JSON value as a whole (the pretty-printed object `tilescope measure --format
// json` writes, or an array of such objects) as JSONL: one line per object (an array's element n
// becomes line n). Empty when the text is not such a value, e.g. ordinary JSONL.
std::optional<std::string> whole_file_as_jsonl(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || (text[first] != '{' && text[first] != '[')) return std::nullopt;
    boost::system::error_code ec;
    const json::value v = json::parse(text, ec);
    if (ec) return std::nullopt;
    std::string out;
    if (v.is_object()) return json::serialize(v) + "\n";
    if (!v.is_array()) return std::nullopt;
    for (const auto& e : v.as_array()) out += json::serialize(e) + "\n";
    return out;
}
}  // namespace

namespace {
// What a measurement must hold beyond what core's reader checks: every workload field its kernel
// family uses (a missing size would otherwise be predicted at its default), launches as an
// array, a time of at least 1 ns (no kernel is shorter; a tiny time would overflow the
// relative error), and byte counts that are 0 or at least 1 (counters count whole bytes).
Status check_measurement(const json::object& o, const Measurement& m) {
    const json::object& given = o.at("workload").as_object();
    const json::value full = json::parse(workload_json(m.workload));
    for (const auto& kv : full.as_object())
        if (given.if_contains(kv.key()) == nullptr)
            return make_error("$.workload." + std::string(kv.key()) +
                              ": missing (a measurement states every field of its workload; it would be predicted at " +
                              json::serialize(kv.value()) + ")");
    if (const auto* ls = o.if_contains("launches"); ls != nullptr && !ls->is_array())
        return make_error("$.launches must be an array of launches (got " + json::serialize(*ls) + ")");
    auto check_metrics = [](const Metrics& mm, const std::string& where) -> Status {
        const double t = mm[Metric::gpu_time_duration];
        if (!std::isnan(t) && t < 1.0)
            return make_error(where + ".gpu__time_duration.sum: a measured time must be at least 1 ns (got " + sci_text(t) + ")");
        for (const Metric b : {Metric::dram_bytes_read, Metric::dram_bytes_write, Metric::lts_t_bytes, Metric::smem_bytes_read,
                               Metric::smem_bytes_write}) {
            const double v = mm[b];
            if (!std::isnan(v) && v > 0 && v < 1)
                return make_error(where + "." + std::string(metric_name(b)) + ": a byte count is 0 or at least 1 (got " +
                                  sci_text(v) + ")");
        }
        return {};
    };
    const double t = m.total[Metric::gpu_time_duration];
    if (std::isnan(t)) return make_error("$.total.metrics.gpu__time_duration.sum: a measurement needs a time (got null)");
    if (Status st = check_metrics(m.total, "$.total.metrics"); !st) return st;
    for (std::size_t i = 0; i < m.launches.size(); ++i)
        if (Status st = check_metrics(m.launches[i].metrics, "$.launches[" + std::to_string(i) + "].metrics"); !st) return st;
    // Counters add up over launches: a total that is not its launches' sum is a broken file (it
    // would be scored against the prediction's total with an error of any size).
    if (!m.launches.empty()) {
        for (const Metric b : {Metric::dram_bytes_read, Metric::dram_bytes_write, Metric::lts_t_bytes, Metric::smem_bytes_read,
                               Metric::smem_bytes_write}) {
            double sum = 0;
            for (const auto& l : m.launches) sum += l.metrics[b];
            const double v = m.total[b];
            if (std::isnan(v) || std::isnan(sum)) continue;
            if (std::fabs(v - sum) > 1e-6 * std::max(v, sum) + 1.0)
                return make_error("$.total.metrics." + std::string(metric_name(b)) + " = " + sci_text(v) +
                                  " is not the sum of its launches' (" + sci_text(sum) + ")");
        }
    }
    return {};
}
}  // namespace

Result<Dataset> parse_dataset(const std::string& jsonl_text, const std::string& origin) {
    if (auto lines = whole_file_as_jsonl(jsonl_text); lines && *lines != jsonl_text) {
        // A key stated twice: the reformatted lines would have dropped one. A one-line file is
        // refused below with its line number like any JSONL line.
        const std::string dup = json_duplicate_key(jsonl_text);
        if (dup.empty()) return parse_dataset(*lines, origin);
        const bool one_line = jsonl_text.find('\n') > jsonl_text.find_last_not_of(" \t\r\n");
        if (!one_line) return make_error(origin + ": " + dup + ": " + kDuplicateKeyRule);
    }
    Dataset d;
    d.origin = origin;
    std::map<std::string, int> seen;  // case name -> its line
    std::istringstream in(jsonl_text);
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        const std::string where = origin + ":" + std::to_string(line_no);
        boost::system::error_code ec;
        json::value v = json::parse(line, ec);
        if (ec || !v.is_object()) {
            // A pretty-printed measurement (`measure --format json`) that is broken somewhere: its
            // first line alone is no object either. Say where the document breaks instead.
            const std::string doc_error = json_syntax_error(jsonl_text);
            const auto start = jsonl_text.find_first_not_of(" \t\r\n");
            if (d.cases.empty() && d.microbench.empty() && d.skipped.empty() && !doc_error.empty() &&
                start != std::string::npos && (jsonl_text[start] == '{' || jsonl_text[start] == '[') &&
                jsonl_text.find('\n', start) < jsonl_text.find_last_not_of(" \t\r\n"))
                return make_error(origin + ": " + doc_error + " (read as one JSON document; as JSON Lines, line " +
                                  std::to_string(line_no) + " is no object either)");
            return make_error(where + ": not a JSON object (" + (ec ? ec.message() : "wrong type") + ")");
        }
        if (const std::string dup = json_duplicate_key(line); !dup.empty())
            return make_error(where + ": " + dup + ": " + kDuplicateKeyRule);
        const json::object& o = v.as_object();
        if (const auto* mb = o.if_contains("microbench")) {
            if (!mb->is_string()) return make_error(where + ": $.microbench must be a string");
            const auto* val = o.if_contains("value");
            if (val == nullptr || !val->is_number())
                return make_error(where + ": $.value must be a number for microbench '" +
                                  std::string(mb->as_string()) + "'");
            // The names calibrate reads (dataset.hpp); any other is a typo that would be ignored.
            static const std::vector<std::string> known = {"hbm_bandwidth", "l2_bandwidth", "smem_bandwidth",
                                                           "hbm_latency",   "l2_latency",   "tensor_fp16",
                                                           "fp32",          "launch_overhead"};
            if (std::find(known.begin(), known.end(), std::string(mb->as_string())) == known.end()) {
                std::string list;
                for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
                return make_error(where + ": unknown microbenchmark '" + std::string(mb->as_string()) +
                                  "' (known: " + list + ")");
            }
            Microbench m{std::string(mb->as_string()), val->to_number<double>(), string_field(o, "unit")};
            if (!std::isfinite(m.value) || m.value <= 0)
                return make_error(where + ": $.value must be finite and > 0 (got " +
                                  std::to_string(m.value) + ")");
            d.microbench.push_back(std::move(m));
            continue;
        }
        if (const auto* st = o.if_contains("status"); st != nullptr && !st->is_string())
            return make_error(where + ": $.status must be a string (\"ok\", or why the case was not measured)");
        const std::string status = string_field(o, "status");
        if (!status.empty() && status != "ok") {
            std::string reason = string_field(o, "reason");
            if (reason.empty()) reason = string_field(o, "error");
            d.skipped.push_back("line " + std::to_string(line_no) + ": " + status + ": " + reason);
            continue;
        }
        auto p = prediction_from_json(line);
        if (!p) return make_error(where + ": " + p.error().message);
        Measurement m = std::move(p).value();
        if (m.model != "measured")
            return make_error(where + ": $.model must be \"measured\" (got \"" + m.model + "\")");
        if (Status st = check_measurement(o, m); !st) return make_error(where + ": " + st.error().message);
        Case c;
        c.name = case_name(m.workload);
        c.key = sweep_key(m.workload);
        c.split = split_of(m.workload);
        // A case measured twice would be scored by whichever copy came first: refuse instead.
        if (const auto [at, fresh] = seen.emplace(c.name, line_no); !fresh)
            return make_error(where + ": case " + c.name + " repeats line " + std::to_string(at->second) +
                              " (a data set holds each case once: keep one measurement, or merge re-timings with "
                              "validate/scripts/retime_merge.py)");
        if (d.provenance.empty()) d.provenance = m.provenance;
        c.measured = std::move(m);
        d.cases.push_back(std::move(c));
    }
    repair_driver_version(d.provenance);
    return d;
}

Result<Dataset> load_dataset(const std::string& path) {
    auto text = read_text_file(path, "measurements file " + path);
    if (!text) return text.error();
    return parse_dataset(*text, path);
}

std::string microbench_json(const Microbench& m) {
    json::object o;
    o["microbench"] = m.name;
    o["value"] = m.value;
    o["unit"] = m.unit;
    return json::serialize(o);
}

double microbench_value(const Dataset& d, const std::string& name) {
    double v = std::numeric_limits<double>::quiet_NaN();
    for (const auto& m : d.microbench)
        if (m.name == name) v = m.value;
    return v;
}

}  // namespace tilescope::validate
