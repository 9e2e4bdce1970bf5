// analytic(): closed-form bytes per level and FLOPs with no caches (every global load reaches
// HBM, every store writes HBM), plus a roofline time per launch: each level's bytes over its
// bandwidth and each unit's work over its rate; the largest term wins and names `bound`.
#pragma once

#include <vector>

#include "core/hardware.hpp"
#include "core/launch.hpp"
#include "core/prediction.hpp"
#include "core/workload.hpp"

namespace tilescope {

Prediction analytic(const Workload& workload, const std::vector<Launch>& launches, const Hardware& hw);

}  // namespace tilescope
