// replay_main: the command line and line loop that the probe replays share (loop_overlap_replay,
// qk_store_replay): `TOOL PROBE.jsonl [--gpu NAME|PATH] [--exact]`, the profile loaded, and every
// JSON line of the probe file whose "probe" field names the tool's probe handed to `row` with its
// file:line for messages. Exit status: 2 on a bad argument, an unreadable file, a line that is not
// a JSON object or a file without such lines; otherwise the first non-zero status `row` returns
// (it stops there), else 0. Header-only; not a test.
#pragma once

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include <boost/json.hpp>

#include "core/hardware.hpp"
#include "simulator/simulate.hpp"

namespace tilescope::bench {

// What `row` gets besides the line: the profile and its --gpu name, the simulator's options (no
// timeline unless the tool asks; --exact: no coarsening) and "FILE:LINE" for its messages.
struct ReplayContext {
    const Hardware& hw;
    const std::string& gpu;
    const sim::Options& options;
    std::string where;
};

inline int run_replay(int argc, char** argv, const char* tool, const char* probe_name, bool timeline,
                      const std::function<int(const boost::json::object&, const ReplayContext&)>& row) {
    std::string path, gpu = "calibrated/h200";
    bool exact = false;
    const std::string usage = std::string("usage: ") + tool + " PROBE.jsonl [--gpu NAME|PATH] [--exact]";
    for (int a = 1; a < argc; ++a) {
        const std::string s = argv[a];
        if (s == "--gpu" && a + 1 < argc) {
            gpu = argv[++a];
        } else if (s == "--exact") {
            exact = true;
        } else if (path.empty() && !s.empty() && s[0] != '-') {
            path = s;
        } else {
            std::fprintf(stderr, "%s: unknown argument %s (%s)\n", tool, s.c_str(), usage.c_str());
            return 2;
        }
    }
    if (path.empty()) {
        std::fprintf(stderr, "%s: no probe file (%s)\n", tool, usage.c_str());
        return 2;
    }
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "%s: cannot read %s\n", tool, path.c_str());
        return 2;
    }
    auto hw = load_hardware(gpu);
    if (!hw) {
        std::fprintf(stderr, "%s: %s\n", tool, hw.error().message.c_str());
        return 2;
    }
    sim::Options opt;
    opt.timeline = timeline;
    if (exact) opt.phase_budget = 0;
    std::string line;
    int rows = 0, lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.empty()) continue;
        boost::system::error_code ec;
        const boost::json::value v = boost::json::parse(line, ec);
        if (ec || !v.is_object()) {
            std::fprintf(stderr, "%s: %s:%d: not a JSON object\n", tool, path.c_str(), lineno);
            return 2;
        }
        const auto& r = v.as_object();
        const auto* probe = r.if_contains("probe");
        if (!probe || !probe->is_string() || probe->as_string() != probe_name) continue;
        const ReplayContext ctx{*hw, gpu, opt, path + ":" + std::to_string(lineno)};
        try {
            if (const int status = row(r, ctx); status != 0) return status;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s: missing or bad field (%s)\n", tool, ctx.where.c_str(), e.what());
            return 2;
        }
        std::fflush(stdout);
        ++rows;
    }
    if (rows == 0) {
        std::fprintf(stderr, "%s: %s has no %s lines\n", tool, path.c_str(), probe_name);
        return 2;
    }
    return 0;
}

}  // namespace tilescope::bench
