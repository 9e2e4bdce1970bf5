#include "simulator/trace_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/workload.hpp"

namespace tilescope::sim {

namespace {

class Writer {
public:
    void raw(std::string_view s) { out_ += s; }
    void num(double v) {
        if (!std::isfinite(v)) v = 0;
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
        if (ec != std::errc{}) {
            out_ += '0';
            return;
        }
        out_.append(buf, end);
    }
    void num(std::int64_t v) { out_ += std::to_string(v); }
    void str(std::string_view s) {
        out_ += '"';
        for (char c : s) {
            switch (c) {
                case '"': out_ += "\\\""; break;
                case '\\': out_ += "\\\\"; break;
                case '\n': out_ += "\\n"; break;
                case '\t': out_ += "\\t"; break;
                case '\r': out_ += "\\r"; break;
                default:
                    if (static_cast<unsigned char>(c) < 0x20) {
                        char esc[8];
                        std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                        out_ += esc;
                    } else {
                        out_ += c;
                    }
            }
        }
        out_ += '"';
    }
    // Starts the next event object: a comma between events.
    void begin_event() {
        if (!first_) out_ += ",\n";
        first_ = false;
        out_ += '{';
    }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
    bool first_ = true;
};

constexpr std::int64_t kPid = 1;

void meta(Writer& w, std::string_view what, std::int64_t tid, std::string_view key, std::string_view name) {
    w.begin_event();
    w.raw("\"name\":");
    w.str(what);
    w.raw(",\"ph\":\"M\",\"pid\":");
    w.num(kPid);
    if (tid >= 0) {
        w.raw(",\"tid\":");
        w.num(tid);
    }
    w.raw(",\"args\":{");
    w.str(key);
    w.raw(":");
    w.str(name);
    w.raw("}}");
}

}  // namespace

std::string trace_json(const Prediction& p) {
    Writer w;
    w.raw("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    meta(w, "process_name", -1, "name", p.gpu + " (" + p.model + "): " + describe(p.workload));
    meta(w, "thread_name", 0, "name", "launches");

    std::int64_t per_sm = 1;
    int sms = 0;
    for (const LaunchResult& l : p.launches) {
        per_sm = std::max<std::int64_t>(per_sm, l.facts.blocks_per_sm);
        for (const BlockSpan& b : l.timeline) sms = std::max(sms, b.sm + 1);
    }
    const auto tid_of = [&](int sm, int slot) { return 1 + static_cast<std::int64_t>(sm) * per_sm + slot; };
    // Name only the threads that appear, in SM order.
    std::vector<char> used(static_cast<std::size_t>(sms) * static_cast<std::size_t>(per_sm), 0);
    for (const LaunchResult& l : p.launches) {
        for (const BlockSpan& b : l.timeline) {
            used[static_cast<std::size_t>(tid_of(b.sm, b.slot) - 1)] = 1;
        }
    }
    for (std::size_t i = 0; i < used.size(); ++i) {
        if (!used[i]) continue;
        const auto sm = static_cast<std::int64_t>(i) / per_sm;
        const auto slot = static_cast<std::int64_t>(i) % per_sm;
        const auto tid = static_cast<std::int64_t>(i) + 1;
        meta(w, "thread_name", tid, "name", "SM " + std::to_string(sm) + " slot " + std::to_string(slot));
        w.begin_event();
        w.raw("\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":");
        w.num(tid);
        w.raw(",\"args\":{\"sort_index\":");
        w.num(tid);
        w.raw("}}");
    }

    for (const LaunchResult& l : p.launches) {
        const double dur_ns = l.metrics[Metric::gpu_time_duration];
        w.begin_event();
        w.raw("\"name\":");
        w.str(l.name);
        w.raw(",\"cat\":\"launch\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":");
        w.num(l.start_ns * 1e-3);
        w.raw(",\"dur\":");
        w.num(dur_ns * 1e-3);
        w.raw(",\"args\":{\"bound\":");
        w.str(l.bound);
        w.raw(",\"grid\":");
        w.num(l.facts.grid_x * l.facts.grid_y * l.facts.grid_z);
        w.raw(",\"blocks_per_sm\":");
        w.num(static_cast<std::int64_t>(l.facts.blocks_per_sm));
        w.raw(",\"waves\":");
        w.num(l.facts.waves);
        for (std::size_t i = 0; i < kMetricCount; ++i) {
            w.raw(",");
            w.str(kMetricNames[i]);
            w.raw(":");
            w.num(l.metrics.values[i]);
        }
        w.raw("}}");

        for (const BlockSpan& b : l.timeline) {
            w.begin_event();
            w.raw("\"name\":\"block ");
            w.raw(std::to_string(b.block));
            w.raw("\",\"cat\":");
            w.str(l.name);
            w.raw(",\"ph\":\"X\",\"pid\":1,\"tid\":");
            w.num(tid_of(b.sm, b.slot));
            w.raw(",\"ts\":");
            w.num(b.start_ns * 1e-3);
            w.raw(",\"dur\":");
            w.num((b.end_ns - b.start_ns) * 1e-3);
            w.raw(",\"args\":{\"block\":");
            w.num(b.block);
            w.raw(",\"wave\":");
            w.num(b.wave);
            w.raw(",\"hbm_bytes\":");
            w.num(b.hbm_bytes);
            w.raw(",\"l2_bytes\":");
            w.num(b.l2_bytes);
            w.raw(",\"smem_bytes\":");
            w.num(b.smem_bytes);
            w.raw("}}");
        }

        std::string last_bound;
        for (const ResourceSample& s : l.samples) {
            for (const auto& [name, v] : {std::pair<const char*, double>{"HBM bandwidth", s.hbm_bytes_per_s},
                                          std::pair<const char*, double>{"L2 bandwidth", s.l2_bytes_per_s}}) {
                w.begin_event();
                w.raw("\"name\":");
                w.str(name);
                w.raw(",\"ph\":\"C\",\"pid\":1,\"ts\":");
                w.num(s.t_ns * 1e-3);
                w.raw(",\"args\":{\"GB/s\":");
                w.num(v * 1e-9);
                w.raw("}}");
            }
            if (s.bound != last_bound) {
                w.begin_event();
                w.raw("\"name\":");
                w.str("bound: " + s.bound);
                w.raw(",\"ph\":\"i\",\"s\":\"p\",\"pid\":1,\"tid\":0,\"ts\":");
                w.num(s.t_ns * 1e-3);
                w.raw("}");
                last_bound = s.bound;
            }
        }
        // Close the counter tracks at the launch's end.
        for (const char* name : {"HBM bandwidth", "L2 bandwidth"}) {
            w.begin_event();
            w.raw("\"name\":");
            w.str(name);
            w.raw(",\"ph\":\"C\",\"pid\":1,\"ts\":");
            w.num((l.start_ns + dur_ns) * 1e-3);
            w.raw(",\"args\":{\"GB/s\":0}}");
        }
    }
    w.raw("\n]}\n");
    return w.take();
}

}  // namespace tilescope::sim
