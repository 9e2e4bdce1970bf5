// Prediction/Measurement (de)serialisation: JSON (Boost.JSON), CSV (one header row), table.
#include "core/result_io.hpp"

#include "core/json_keys.hpp"

#include <algorithm>
#include <boost/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace tilescope {
namespace {

namespace json = boost::json;

// Integral values print as integers (byte counts stay exact and readable), NaN as null.
json::value number(double v) {
    if (!std::isfinite(v)) return nullptr;  // NaN = not predicted/measured; JSON has no inf
    if (std::floor(v) == v && std::fabs(v) < 9.007199254740992e15)
        return static_cast<std::int64_t>(v);
    return v;
}

double to_double(const json::value& v) {
    if (v.is_int64()) return static_cast<double>(v.get_int64());
    if (v.is_uint64()) return static_cast<double>(v.get_uint64());
    if (v.is_double()) return v.get_double();
    return std::nan("");
}

json::object metrics_json(const Metrics& m) {
    json::object o;
    for (std::size_t i = 0; i < kMetricCount; ++i) o[kMetricNames[i]] = number(m.values[i]);
    return o;
}

json::object workload_object(const Workload& w) {
    json::object o;
    o["kernel"] = to_string(w.kernel);
    o["dtype"] = to_string(w.dtype);
    if (is_attention(w.kernel)) {
        o["batch"] = w.batch;
        o["heads"] = w.heads;
        o["seq"] = w.seq_q;
        o["seq_kv"] = w.seq_kv;
        o["head_dim"] = w.head_dim;
        o["causal"] = w.causal;
    } else if (w.kernel == KernelFamily::gemm) {
        o["m"] = w.m;
        o["n"] = w.n;
        o["k"] = w.k;
        o["raster"] = to_string(w.raster);
    } else {
        o["rows"] = w.rows;
        o["cols"] = w.cols;
    }
    if (w.kernel == KernelFamily::softmax || w.kernel == KernelFamily::attention_naive)
        o["variant"] = to_string(w.variant);
    o["tile_m"] = w.tile.m;
    o["tile_n"] = w.tile.n;
    if (w.kernel == KernelFamily::gemm || w.kernel == KernelFamily::attention_naive) o["tile_k"] = w.tile.k;
    o["stages"] = w.tile.stages;
    o["warps"] = w.tile.warps;
    o["persistent"] = w.persistent;
    return o;
}

json::object spec_object(const WorkloadSpec& s) {
    json::object o;
    auto put_s = [&](const char* k, const std::optional<std::string>& v) { if (v) o[k] = *v; };
    auto put_i = [&](const char* k, const std::optional<std::int64_t>& v) { if (v) o[k] = *v; };
    auto put_b = [&](const char* k, const std::optional<bool>& v) { if (v) o[k] = *v; };
    put_s("kernel", s.kernel);
    put_s("dtype", s.dtype);
    put_i("batch", s.batch);
    put_i("heads", s.heads);
    put_i("seq", s.seq);
    put_i("seq_kv", s.seq_kv);
    put_i("head_dim", s.head_dim);
    put_b("causal", s.causal);
    put_i("m", s.m);
    put_i("n", s.n);
    put_i("k", s.k);
    put_s("raster", s.raster);
    put_i("rows", s.rows);
    put_i("cols", s.cols);
    put_s("variant", s.variant);
    put_i("tile_m", s.tile_m);
    put_i("tile_n", s.tile_n);
    put_i("tile_k", s.tile_k);
    put_i("stages", s.stages);
    put_i("warps", s.warps);
    put_b("persistent", s.persistent);
    return o;
}

Result<Workload> workload_from_object(const json::object& o) {
    // Strict: a field of the wrong type, a non-integer size or an unknown field is an error
    // naming the field, never a silent default (a measurement of m = "2048" must not be
    // predicted as the default m).
    static const std::set<std::string, std::less<>> kKnown = {
        "kernel", "dtype", "batch", "heads", "seq", "seq_kv", "head_dim", "causal", "m", "n", "k", "raster",
        "rows", "cols", "variant", "tile_m", "tile_n", "tile_k", "stages", "warps", "persistent"};
    for (const auto& kv : o)
        if (kKnown.find(kv.key()) == kKnown.end())
            return make_error("$.workload." + std::string(kv.key()) + ": unknown field");
    WorkloadSpec s;
    std::string bad;
    auto get_s = [&](const char* k, std::optional<std::string>& out) {
        const json::value* v = o.if_contains(k);
        if (v == nullptr) return;
        if (v->is_string()) out = std::string(v->get_string());
        else if (bad.empty()) bad = std::string("$.workload.") + k + ": must be a string (got " + json::serialize(*v) + ")";
    };
    auto get_i = [&](const char* k, std::optional<std::int64_t>& out) {
        const json::value* v = o.if_contains(k);
        if (v == nullptr) return;
        const double d = to_double(*v);
        if (v->is_number() && std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
            out = static_cast<std::int64_t>(d);
        } else if (bad.empty()) {
            bad = std::string("$.workload.") + k + ": must be an integer (got " + json::serialize(*v) + ")";
        }
    };
    auto get_b = [&](const char* k, std::optional<bool>& out) {
        const json::value* v = o.if_contains(k);
        if (v == nullptr) return;
        if (v->is_bool()) out = v->get_bool();
        else if (bad.empty()) bad = std::string("$.workload.") + k + ": must be true or false (got " + json::serialize(*v) + ")";
    };
    get_s("kernel", s.kernel);
    get_s("dtype", s.dtype);
    get_i("batch", s.batch);
    get_i("heads", s.heads);
    get_i("seq", s.seq);
    get_i("seq_kv", s.seq_kv);
    get_i("head_dim", s.head_dim);
    get_b("causal", s.causal);
    get_i("m", s.m);
    get_i("n", s.n);
    get_i("k", s.k);
    get_s("raster", s.raster);
    get_i("rows", s.rows);
    get_i("cols", s.cols);
    get_s("variant", s.variant);
    get_i("tile_m", s.tile_m);
    get_i("tile_n", s.tile_n);
    get_i("tile_k", s.tile_k);
    get_i("stages", s.stages);
    get_i("warps", s.warps);
    get_b("persistent", s.persistent);
    if (!bad.empty()) return make_error(bad);
    if (!s.kernel) return make_error("$.workload.kernel: missing");
    return make_workload(s);
}

json::object prediction_object(const Prediction& p, bool with_timeline) {
    json::object root;
    root["workload"] = workload_object(p.workload);
    root["gpu"] = p.gpu;
    root["model"] = p.model;
    json::array launches;
    for (const LaunchResult& l : p.launches) {
        json::object o;
        o["name"] = l.name;
        o["grid"] = json::array{l.facts.grid_x, l.facts.grid_y, l.facts.grid_z};
        o["threads_per_block"] = l.facts.threads_per_block;
        o["smem_bytes_per_block"] = l.facts.smem_bytes_per_block;
        o["registers_per_thread"] = l.facts.registers_per_thread;
        o["blocks_per_sm"] = l.facts.blocks_per_sm;
        o["waves"] = l.facts.waves;
        o["occupancy_limiter"] = l.facts.occupancy_limiter;
        o["start_ns"] = number(l.start_ns);
        o["metrics"] = metrics_json(l.metrics);
        o["bound"] = l.bound;
        json::object extra;
        for (const auto& [k, v] : l.extra) extra[k] = number(v);
        o["extra"] = std::move(extra);
        if (with_timeline) {
            json::array tl;
            for (const BlockSpan& b : l.timeline)
                tl.push_back(json::object{{"block", b.block}, {"sm", b.sm}, {"slot", b.slot},
                                          {"start_ns", number(b.start_ns)}, {"end_ns", number(b.end_ns)},
                                          {"hbm_bytes", number(b.hbm_bytes)}, {"l2_bytes", number(b.l2_bytes)},
                                          {"smem_bytes", number(b.smem_bytes)}, {"wave", b.wave}});
            o["timeline"] = std::move(tl);
            json::array samples;
            for (const ResourceSample& s : l.samples)
                samples.push_back(json::object{{"t_ns", number(s.t_ns)},
                                               {"hbm_bytes_per_s", number(s.hbm_bytes_per_s)},
                                               {"l2_bytes_per_s", number(s.l2_bytes_per_s)},
                                               {"bound", s.bound}});
            o["samples"] = std::move(samples);
        }
        launches.push_back(std::move(o));
    }
    root["launches"] = std::move(launches);
    root["total"] = json::object{{"metrics", metrics_json(p.total)}};
    root["bound"] = p.bound;
    json::object extra;
    for (const auto& [k, v] : p.extra) extra[k] = number(v);
    root["extra"] = std::move(extra);
    json::object prov;
    for (const auto& [k, v] : p.provenance) prov[k] = v;
    root["provenance"] = std::move(prov);
    return root;
}

// Doubles in the shortest form that reads back exactly ("88313.65144694534", not Boost's
// "8.831365144694534E4"); everything else as Boost.JSON writes it.
void write_scalar(std::ostringstream& os, const json::value& v) {
    if (v.is_double() && !std::isfinite(v.get_double())) {
        os << "null";
    } else if (v.is_double()) {
        char buf[64];
        auto res = std::to_chars(buf, buf + sizeof buf, v.get_double());
        std::string text(buf, res.ptr);
        if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // stays a double
        os << text;
    } else {
        os << json::serialize(v);
    }
}

// indent < 0: compact, one line.
void write_json(std::ostringstream& os, const json::value& v, int indent) {
    const bool compact = indent < 0;
    const std::string pad(compact ? 0 : static_cast<std::size_t>(indent) * 2, ' ');
    const std::string pad_in(compact ? 0 : static_cast<std::size_t>(indent + 1) * 2, ' ');
    const char* nl = compact ? "" : "\n";
    const int next = compact ? -1 : indent + 1;
    if (v.is_object()) {
        const auto& o = v.get_object();
        if (o.empty()) { os << "{}"; return; }
        os << "{" << nl;
        bool first = true;
        for (const auto& kv : o) {
            if (!first) os << "," << nl;
            first = false;
            os << pad_in << json::serialize(json::string(kv.key())) << (compact ? ":" : ": ");
            write_json(os, kv.value(), next);
        }
        os << nl << pad << "}";
    } else if (v.is_array()) {
        const auto& a = v.get_array();
        bool scalars = true;
        for (const auto& e : a) scalars = scalars && !e.is_object() && !e.is_array();
        if (a.empty() || scalars || compact) {
            os << "[";
            for (std::size_t i = 0; i < a.size(); ++i) {
                if (i) os << ",";
                write_json(os, a[i], -1);
            }
            os << "]";
            return;
        }
        os << "[" << nl;
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (i) os << "," << nl;
            os << pad_in;
            write_json(os, a[i], next);
        }
        os << nl << pad << "]";
    } else {
        write_scalar(os, v);
    }
}

std::string compact_json(const json::value& v) {
    std::ostringstream os;
    write_json(os, v, -1);
    return os.str();
}

std::string csv_escape(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csv_number(double v) {
    if (std::isnan(v)) return "";
    if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9.007199254740992e15)
        return std::to_string(static_cast<std::int64_t>(v));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

const char* const kWorkloadColumns[] = {"kernel", "dtype", "batch", "heads", "seq", "seq_kv", "head_dim",
                                        "causal", "m", "n", "k", "rows", "cols", "variant", "tile_m",
                                        "tile_n", "tile_k", "stages", "warps", "raster", "persistent"};

// Workload cells in kWorkloadColumns order, from a JSON object of the workload (absent -> empty).
std::string workload_cells(const json::object& o) {
    std::string row;
    bool first = true;
    for (const char* col : kWorkloadColumns) {
        if (!first) row += ",";
        first = false;
        const json::value* v = o.if_contains(col);
        if (!v) continue;
        if (v->is_string()) row += csv_escape(std::string(v->get_string()));
        else if (v->is_bool()) row += v->get_bool() ? "true" : "false";
        else if (v->is_number()) row += csv_number(to_double(*v));
    }
    return row;
}

std::string metric_cells(const Metrics* m) {
    std::string row;
    for (std::size_t i = 0; i < kMetricCount; ++i) row += "," + (m ? csv_number(m->values[i]) : std::string());
    return row;
}

std::string si(double v, const char* unit) {
    if (std::isnan(v)) return "-";
    const char* prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
    int i = 0;
    double x = v;
    while (std::fabs(x) >= 1000.0 && i < 6) {
        x /= 1000.0;
        ++i;
    }
    char buf[64];
    if (i == 0 && std::floor(x) == x) std::snprintf(buf, sizeof buf, "%.0f %s", x, unit);
    else std::snprintf(buf, sizeof buf, "%.3g %s%s", x, prefixes[i], unit);
    return buf;
}

std::string time_text(double ns) {
    if (std::isnan(ns)) return "-";
    char buf[64];
    if (ns >= 1e6) std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
    else if (ns >= 1e3) std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
    else std::snprintf(buf, sizeof buf, "%.0f ns", ns);
    return buf;
}

std::string metric_text(Metric m, double v) {
    if (m == Metric::gpu_time_duration) return time_text(v);
    const std::string_view unit = metric_unit(m);
    return si(v, unit == "byte" ? "B" : "");
}

std::string pad_right(const std::string& s, std::size_t w) { return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' '); }
std::string pad_left(const std::string& s, std::size_t w) { return s.size() >= w ? " " + s : std::string(w - s.size(), ' ') + s; }

}  // namespace

std::string reformat_json(const std::string& json_text, bool pretty) {
    boost::system::error_code ec;
    const json::value v = json::parse(json_text, ec);
    if (ec) return json_text;
    std::ostringstream os;
    write_json(os, v, pretty ? 0 : -1);
    if (pretty) os << "\n";
    return os.str();
}

std::string workload_json(const Workload& w) { return compact_json(workload_object(w)); }

std::string to_json(const Prediction& p, bool with_timeline) {
    std::ostringstream os;
    write_json(os, prediction_object(p, with_timeline), 0);
    os << "\n";
    return os.str();
}

std::string to_json_line(const Prediction& p) {
    json::object o = prediction_object(p, false);
    o["status"] = "ok";
    return compact_json(o);
}

std::string json_line_illegal(const WorkloadSpec& spec, const std::string& model, const std::string& gpu,
                              const std::string& reason) {
    json::object o;
    o["status"] = "illegal";
    o["reason"] = reason;
    o["workload"] = spec_object(spec);
    o["gpu"] = gpu;
    o["model"] = model;
    return compact_json(o);
}

std::string json_line_illegal(const Workload& w, const std::string& model, const std::string& gpu,
                              const std::string& reason) {
    json::object o;
    o["status"] = "illegal";
    o["reason"] = reason;
    o["workload"] = workload_object(w);
    o["gpu"] = gpu;
    o["model"] = model;
    return compact_json(o);
}

Result<Prediction> prediction_from_json(const std::string& text) {
    boost::system::error_code ec;
    json::value root = json::parse(text, ec);
    if (ec) return make_error("prediction JSON: " + json_syntax_error(text));
    if (const std::string dup = json_duplicate_key(text); !dup.empty())
        return make_error("prediction JSON: " + dup + ": " + kDuplicateKeyRule);
    if (!root.is_object()) return make_error("prediction JSON: $ must be an object");
    const json::object& o = root.get_object();
    Prediction p;
    const json::value* wl = o.if_contains("workload");
    if (!wl || !wl->is_object()) return make_error("prediction JSON: $.workload: missing object");
    auto w = workload_from_object(wl->get_object());
    if (!w) {
        const std::string& m = w.error().message;
        if (m.rfind("$.workload", 0) == 0) return make_error("prediction JSON: " + m);
        // The workload's checks speak in CLI flags ("--tile-m must be ..."): in a file, name the
        // JSON field the flag stands for ($.workload.tile_m).
        if (m.rfind("--", 0) == 0) {
            const auto end = m.find_first_of(" :", 2);
            std::string field = m.substr(2, end == std::string::npos ? std::string::npos : end - 2);
            std::replace(field.begin(), field.end(), '-', '_');
            if (wl->get_object().if_contains(field) != nullptr)
                return make_error("prediction JSON: $.workload." + field + ": " + m);
        }
        return make_error("prediction JSON: $.workload: " + m);
    }
    p.workload = *w;
    auto str = [](const json::object& obj, const char* k) {
        const json::value* v = obj.if_contains(k);
        return v && v->is_string() ? std::string(v->get_string()) : std::string();
    };
    // A metric is a number >= 0 or null (not measured / not predicted); anything else is an
    // error naming it, never a silently dropped value.
    auto read_metrics = [](const json::value* v, Metrics& m, const std::string& where) -> std::string {
        for (std::size_t i = 0; i < kMetricCount; ++i) m.values[i] = std::nan("");
        if (!v || !v->is_object()) return {};
        for (const auto& kv : v->get_object()) {
            const auto metric = parse_metric(kv.key());
            if (!metric) continue;
            if (kv.value().is_null()) continue;
            const double d = to_double(kv.value());
            if (!kv.value().is_number() || !std::isfinite(d) || d < 0)
                return where + ".metrics." + std::string(kv.key()) + ": must be a number >= 0 or null (got " +
                       json::serialize(kv.value()) + ")";
            m[*metric] = d;
        }
        return {};
    };
    auto read_extra = [](const json::value* v, std::map<std::string, double>& out) {
        if (!v || !v->is_object()) return;
        for (const auto& kv : v->get_object()) out[std::string(kv.key())] = to_double(kv.value());
    };
    auto num = [](const json::object& obj, const char* k) {
        const json::value* v = obj.if_contains(k);
        return v ? to_double(*v) : 0.0;
    };
    p.gpu = str(o, "gpu");
    p.model = str(o, "model");
    p.bound = str(o, "bound");
    if (const json::value* ls = o.if_contains("launches"); ls && ls->is_array()) {
        for (const json::value& lv : ls->get_array()) {
            const std::string where = "$.launches[" + std::to_string(p.launches.size()) + "]";
            if (!lv.is_object()) return make_error("prediction JSON: " + where + ": must be an object");
            const json::object& lo = lv.get_object();
            LaunchResult r;
            r.name = str(lo, "name");
            if (const json::value* g = lo.if_contains("grid"); g && g->is_array() && g->get_array().size() == 3) {
                r.facts.grid_x = static_cast<std::int64_t>(to_double(g->get_array()[0]));
                r.facts.grid_y = static_cast<std::int64_t>(to_double(g->get_array()[1]));
                r.facts.grid_z = static_cast<std::int64_t>(to_double(g->get_array()[2]));
            }
            r.facts.threads_per_block = static_cast<int>(num(lo, "threads_per_block"));
            r.facts.smem_bytes_per_block = static_cast<std::int64_t>(num(lo, "smem_bytes_per_block"));
            r.facts.registers_per_thread = static_cast<int>(num(lo, "registers_per_thread"));
            r.facts.blocks_per_sm = static_cast<int>(num(lo, "blocks_per_sm"));
            r.facts.waves = static_cast<std::int64_t>(num(lo, "waves"));
            r.facts.occupancy_limiter = str(lo, "occupancy_limiter");
            r.start_ns = num(lo, "start_ns");
            if (std::string e = read_metrics(lo.if_contains("metrics"), r.metrics, where); !e.empty())
                return make_error("prediction JSON: " + e);
            r.bound = str(lo, "bound");
            read_extra(lo.if_contains("extra"), r.extra);
            if (const json::value* tl = lo.if_contains("timeline"); tl && tl->is_array()) {
                for (const json::value& bv : tl->get_array()) {
                    if (!bv.is_object()) continue;
                    const json::object& b = bv.get_object();
                    BlockSpan s;
                    s.block = static_cast<std::int64_t>(num(b, "block"));
                    s.sm = static_cast<int>(num(b, "sm"));
                    s.slot = static_cast<int>(num(b, "slot"));
                    s.start_ns = num(b, "start_ns");
                    s.end_ns = num(b, "end_ns");
                    s.hbm_bytes = num(b, "hbm_bytes");
                    s.l2_bytes = num(b, "l2_bytes");
                    s.smem_bytes = num(b, "smem_bytes");
                    s.wave = static_cast<std::int64_t>(num(b, "wave"));
                    r.timeline.push_back(s);
                }
            }
            if (const json::value* ss = lo.if_contains("samples"); ss && ss->is_array()) {
                for (const json::value& sv : ss->get_array()) {
                    if (!sv.is_object()) continue;
                    const json::object& so = sv.get_object();
                    r.samples.push_back(ResourceSample{num(so, "t_ns"), num(so, "hbm_bytes_per_s"),
                                                       num(so, "l2_bytes_per_s"), str(so, "bound")});
                }
            }
            p.launches.push_back(std::move(r));
        }
    }
    if (const json::value* t = o.if_contains("total"); t && t->is_object()) {
        if (std::string e = read_metrics(t->get_object().if_contains("metrics"), p.total, "$.total"); !e.empty())
            return make_error("prediction JSON: " + e);
    } else {
        read_metrics(nullptr, p.total, "$.total");
    }
    read_extra(o.if_contains("extra"), p.extra);
    if (const json::value* pv = o.if_contains("provenance"); pv && pv->is_object()) {
        for (const auto& kv : pv->get_object())
            p.provenance[std::string(kv.key())] =
                kv.value().is_string() ? std::string(kv.value().get_string()) : json::serialize(kv.value());
    }
    return p;
}

std::string csv_header() {
    std::string h;
    for (const char* col : kWorkloadColumns) h += (h.empty() ? "" : ",") + std::string(col);
    h += ",model,gpu,bound";
    for (auto name : kMetricNames) h += "," + std::string(name);
    return h + ",status,reason";
}

std::string csv_row(const Prediction& p) {
    return workload_cells(workload_object(p.workload)) + "," + csv_escape(p.model) + "," + csv_escape(p.gpu) + "," +
           csv_escape(p.bound) + metric_cells(&p.total) + ",ok,";
}

std::string csv_row_illegal(const WorkloadSpec& spec, const std::string& model, const std::string& gpu,
                            const std::string& reason) {
    return workload_cells(spec_object(spec)) + "," + csv_escape(model) + "," + csv_escape(gpu) + "," +
           metric_cells(nullptr) + ",illegal," + csv_escape(reason);
}

std::string csv_row_illegal(const Workload& w, const std::string& model, const std::string& gpu,
                            const std::string& reason) {
    return workload_cells(workload_object(w)) + "," + csv_escape(model) + "," + csv_escape(gpu) + "," +
           metric_cells(nullptr) + ",illegal," + csv_escape(reason);
}

std::string format_metric(Metric m, double value) { return metric_text(m, value); }

std::string to_table(const Prediction& p) { return to_table(p, std::string()); }

std::string to_table(const Prediction& p, const std::string& profile_line) {
    std::ostringstream os;
    os << describe(p.workload) << "\n";
    os << "gpu " << p.gpu << ", model " << p.model << ", bound " << p.bound << "\n";
    if (!profile_line.empty()) os << profile_line << "\n";
    os << "\n";
    os << pad_right("launch", 26) << pad_right("grid", 16) << pad_left("threads", 8) << pad_left("smem/blk", 11)
       << pad_left("regs", 6) << pad_left("blk/SM", 8) << pad_left("waves", 7) << "  " << pad_right("limiter", 15)
       << pad_right("bound", 8) << pad_left("time", 12) << "\n";
    for (const LaunchResult& l : p.launches) {
        const std::string grid = std::to_string(l.facts.grid_x) + "x" + std::to_string(l.facts.grid_y) + "x" +
                                 std::to_string(l.facts.grid_z);
        os << pad_right(l.name, 26) << pad_right(grid, 16) << pad_left(std::to_string(l.facts.threads_per_block), 8)
           << pad_left(si(static_cast<double>(l.facts.smem_bytes_per_block), "B"), 11)
           << pad_left(std::to_string(l.facts.registers_per_thread), 6)
           << pad_left(std::to_string(l.facts.blocks_per_sm), 8) << pad_left(std::to_string(l.facts.waves), 7) << "  "
           << pad_right(l.facts.occupancy_limiter, 15) << pad_right(l.bound, 8)
           << pad_left(time_text(l.metrics[Metric::gpu_time_duration]), 12) << "\n";
    }
    os << "\n" << pad_right("metric", 26);
    const bool several = p.launches.size() > 1;
    if (several)
        for (const LaunchResult& l : p.launches) {
            const auto colon = l.name.find(':');
            os << pad_left(colon == std::string::npos ? l.name : l.name.substr(colon + 1), 14);
        }
    os << pad_left("total", 14) << "\n";
    for (std::size_t i = 0; i < kMetricCount; ++i) {
        const auto m = static_cast<Metric>(i);
        os << pad_right(std::string(kMetricNames[i]), 26);
        if (several)
            for (const LaunchResult& l : p.launches) os << pad_left(metric_text(m, l.metrics[m]), 14);
        os << pad_left(metric_text(m, p.total[m]), 14) << "\n";
    }
    // Reads the L2 request coalescer merged before the L2 (the simulator with a calibrated profile
    // that models it): not in lts__t_bytes.sum, shown so the L2 row can be read against the loads.
    bool coalescer = false;
    double coalesced = 0;
    for (const LaunchResult& l : p.launches)
        if (const auto it = l.extra.find("l2_coalesced_bytes"); it != l.extra.end()) {
            coalescer = true;
            coalesced += it->second;
        }
    if (coalescer) {
        os << pad_right("l2_coalesced_bytes", 26);
        if (several)
            for (const LaunchResult& l : p.launches) {
                const auto it = l.extra.find("l2_coalesced_bytes");
                os << pad_left(it == l.extra.end() ? std::string("-") : metric_text(Metric::lts_t_bytes, it->second), 14);
            }
        os << pad_left(metric_text(Metric::lts_t_bytes, coalesced), 14) << "  (merged by the L2 request coalescer)\n";
    }
    // The simulator's coarsening (sim::Options::phase_budget): launches it ran with several loop
    // iterations per simulated phase, so that a reader knows the figures are the approximate run.
    std::string coarse;
    for (const LaunchResult& l : p.launches)
        if (const auto it = l.extra.find("sim_iterations_per_phase"); it != l.extra.end() && it->second > 1) {
            coarse += coarse.empty() ? "" : ", ";
            coarse += l.name + " " + std::to_string(static_cast<long long>(it->second));
        }
    if (!coarse.empty())
        os << "\ncoarsened (loop iterations per simulated phase): " << coarse
           << "; --exact simulates every iteration (slower)\n";
    return os.str();
}

Result<std::string> read_text_file(const std::string& path, const std::string& what) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return make_error(what + " is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error("cannot read " + what);
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return make_error("cannot read " + what);
    return text.str();
}

}  // namespace tilescope
