// The workload flags shared by predict, sweep, compare, trace and measure, as one
// boost::program_options description. Every flag is read as text so that one parser serves both
// uses:
//   predict-style  one value per flag                     --seq 4096
//   sweep-style    a list and/or ranges per flag          --seq 1024,2048  --tile-m 64:512:*2
//                  (start:stop:*factor geometric, start:stop:+step arithmetic, stop inclusive)
// The sweep expands the cartesian product in flag order (the last flag varies fastest) and keeps
// the values in the order given, so output order is deterministic.
#pragma once

#include <boost/program_options.hpp>

#include <cstddef>
#include <string>
#include <set>
#include <vector>

#include "core/result.hpp"
#include "core/workload.hpp"

namespace tilescope {

// --kernel --dtype --batch --heads --seq --seq-kv --head-dim --causal --m --n --k --rows --cols
// --variant --tile-m --tile-n --tile-k --stages --warps --raster --persistent
// `omit`: flags (without "--") a command does not take, left out of its options and --help.
boost::program_options::options_description workload_options(const std::string& caption = "Workload",
                                                              const std::set<std::string>& omit = {});

// One value per flag (a list or range is an error that points to `tilescope sweep`).
Result<WorkloadSpec> workload_spec_from(const boost::program_options::variables_map& vm);

// Lists and ranges expanded into the cartesian product; more than `max_count` configurations is
// an error (naming the count).
Result<std::vector<WorkloadSpec>> workload_specs_from(const boost::program_options::variables_map& vm,
                                                      std::size_t max_count);

// Expands one flag's text: "a,b,c", ranges "64:512:*2" / "512:4096:+512", or mixtures.
// Numeric flags check each item is an integer; errors name the flag.
Result<std::vector<std::string>> expand_values(const std::string& flag, const std::string& text, bool numeric);

// A comma-separated list of plain values (no ranges), e.g. --gpu a100-40gb,h100-sxm.
std::vector<std::string> split_commas(const std::string& text);

}  // namespace tilescope
