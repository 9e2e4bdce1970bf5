// Case names and the fixed train / held-out split of the validation data set.
//
// A case is one Workload (kernel family + shape + tile). Its *name* is a canonical, stable
// string of every field that matters for that family; its *sweep key* is the name without the
// tile fields (Tile::m, n, k, stages, warps), so the cases of one tile sweep share a sweep key.
//
// THE SPLIT RULE (documented in docs/validation/README and never tuned):
//   train  <=> fnv1a64(sweep_key) is even,   held-out <=> it is odd.
// Splitting by sweep key (not by case name) puts a whole tile sweep on one side, so the
// held-out ranking metrics (Spearman, top-1 regret) are computed on sweeps the fit never saw,
// and no held-out case shares its shape with a training case of another tile.
//
// Example: attention-flash2, fp16, b=2, h=32, N=8192, d=64, tile 64x64 (stages 2, warps 4):
//   name      "attention-flash2/fp16/b2/h32/n8192/nkv8192/d64/c0|t64x64x0/s2/w4"
//   sweep key "attention-flash2/fp16/b2/h32/n8192/nkv8192/d64/c0"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/hardware.hpp"
#include "core/workload.hpp"

namespace tilescope::validate {

// 64-bit FNV-1a (core/hardware.hpp).
using tilescope::fnv1a64;

std::string sweep_key(const Workload& w);
std::string case_name(const Workload& w);  // sweep_key + "|" + tile fields

enum class Split { train, heldout };
Split split_of(const Workload& w);
std::string_view to_string(Split s);

}  // namespace tilescope::validate
