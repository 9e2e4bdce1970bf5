// The validation data set: measured cases read from the JSONL that `tilescope measure` writes
// (one Measurement JSON object per line), plus microbenchmark records used by calibrate.
//
// Accepted lines:
//   - a Measurement (core/result_io.hpp JSON, "model": "measured"): becomes a Case;
//   - {"microbench": NAME, "value": X, "unit": U, ...}: a microbenchmark result (see below);
//   - a sweep row that failed ({"status": "illegal"|"error", "reason": ...}): kept in `skipped`
//     with its reason, so a report can say how many configurations could not run;
//   - blank lines and lines starting with '#'.
// Anything else is an error naming the file and line number. A file that is one JSON value as a
// whole is read as lines too: a Measurement object, pretty-printed or not (what `tilescope
// measure --format json --out FILE` writes for one workload), or an array of the objects above
// (element n counts as line n in messages).
//
// Microbenchmark names understood by calibrate (unit in brackets):
//   hbm_bandwidth [bytes_per_s]   streaming copy, (read + write bytes) / time
//   l2_bandwidth [bytes_per_s]    reads of an L2-resident buffer
//   smem_bandwidth [bytes_per_s]  whole-GPU shared-memory bandwidth
//   hbm_latency [ns], l2_latency [ns]   pointer chase
//   tensor_fp16 [flops_per_s]     tensor-core peak, fp16 inputs
//   fp32 [flops_per_s]            FP32 FMA peak (FMA = 2 flops)
//   launch_overhead [ns]          an empty kernel's time, timed like a case (queued behind other
//                                 work); becomes launch_overhead_ns, which is then not fitted
// Any other microbenchmark name is an error naming the file, line and these names.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/prediction.hpp"
#include "core/result.hpp"
#include "validate/split.hpp"

namespace tilescope::validate {

struct Case {
    std::string name;       // case_name(workload)
    std::string key;        // sweep_key(workload)
    Split split = Split::train;
    Measurement measured;
};

struct Microbench {
    std::string name;
    double value = 0;
    std::string unit;
};

struct Dataset {
    std::string origin;                        // path(s) read
    std::vector<Case> cases;                   // in file order, unique names
    std::vector<Microbench> microbench;        // in file order (later duplicates override)
    std::vector<std::string> skipped;          // "line 12: illegal: tile ..."
    std::map<std::string, std::string> provenance;  // from the first measurement that has one
};

// Parses JSONL text; `origin` names it in error messages.
Result<Dataset> parse_dataset(const std::string& jsonl_text, const std::string& origin);
Result<Dataset> load_dataset(const std::string& path);

// One JSONL line for a microbenchmark record.
std::string microbench_json(const Microbench& m);

// The microbenchmark value by name, or NaN.
double microbench_value(const Dataset& d, const std::string& name);

}  // namespace tilescope::validate
