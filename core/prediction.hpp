// Prediction / Measurement: metrics per launch and in total, launch facts, and (from the
// simulator) a per-block timeline. A Measurement is a Prediction with model == "measured" and
// provenance filled.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "core/workload.hpp"

namespace tilescope {

struct LaunchFacts {
    std::int64_t grid_x = 1, grid_y = 1, grid_z = 1;
    int threads_per_block = 0;
    std::int64_t smem_bytes_per_block = 0;
    int registers_per_thread = 0;
    int blocks_per_sm = 0;
    std::int64_t waves = 0;
    std::string occupancy_limiter;
};

// One thread block in the simulator's timeline.
struct BlockSpan {
    std::int64_t block = 0;
    int sm = 0;
    int slot = 0;            // resident slot on that SM
    double start_ns = 0;
    double end_ns = 0;
    double hbm_bytes = 0;    // bytes this block caused to move from/to HBM
    double l2_bytes = 0;     // bytes this block requested from L2
    double smem_bytes = 0;   // shared-memory bytes read + written
    std::int64_t wave = 0;
};

// A sample of the binding resource and achieved bandwidth over time.
struct ResourceSample {
    double t_ns = 0;
    double hbm_bytes_per_s = 0;
    double l2_bytes_per_s = 0;
    std::string bound;       // "hbm", "l2", "smem", "tensor", "fp32", "sfu", "latency", "issue" (change 59)
};

struct LaunchResult {
    std::string name;
    LaunchFacts facts;
    Metrics metrics;
    std::string bound;                       // binding level/unit
    std::map<std::string, double> extra;     // e.g. "l2_hit_rate", "l2_dirty_bytes_at_end",
                                             // "hbm_bytes_per_s", "l2_bytes_per_s"
    std::vector<BlockSpan> timeline;         // simulator only
    std::vector<ResourceSample> samples;     // simulator only
    double start_ns = 0;                     // launch start in the sequence of launches
};

struct Prediction {
    std::string model;                       // "analytic", "sim", "measured"
    Workload workload;
    std::string gpu;                         // profile name
    std::vector<LaunchResult> launches;
    Metrics total;
    std::string bound;
    std::map<std::string, double> extra;
    std::map<std::string, std::string> provenance;  // measured: gpu, driver, cuda, clocks, date, commit
};
using Measurement = Prediction;

}  // namespace tilescope
