// Chrome / Perfetto trace-event JSON of a simulated Prediction (loads in ui.perfetto.dev and
// chrome://tracing). Pure: returns the text; the caller writes the file.
//
//   process 1 = the GPU ("h100-sxm (sim): attention-flash2 ...")
//   thread 0  = "launches": one complete event per launch
//   thread 1 + sm * S + slot = "SM 12 slot 1" (S = most slots per SM over the launches):
//               one complete event ("ph":"X") per block, args: block, wave, hbm/l2/smem bytes
//   counters  ("ph":"C") "HBM bandwidth" and "L2 bandwidth" in GB/s, one point per sample
//   instants  ("ph":"i") "bound: hbm" etc. where the binding resource changes
// Timestamps are microseconds (the format's unit) with ns resolution.
#pragma once

#include <string>

#include "core/prediction.hpp"

namespace tilescope::sim {

std::string trace_json(const Prediction& prediction);

}  // namespace tilescope::sim
