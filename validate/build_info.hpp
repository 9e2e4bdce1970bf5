// Facts about this build and run for provenance records.
#pragma once

#include <string>

namespace tilescope::validate {

std::string build_commit();   // `git rev-parse --short HEAD` at configure time, or "unknown"
std::string utc_now_iso();    // e.g. "2026-11-21T23:10:04Z"

}  // namespace tilescope::validate
