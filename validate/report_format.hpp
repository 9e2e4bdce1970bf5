// Output formats of a validation Report: terminal table, JSON, Markdown (+ PNG scatter plots).
// The split filter of the report chooses which cases and sweeps are listed; the summary block
// always shows train, held-out and all, and the checks are always on held-out.
#pragma once

#include <string>
#include <vector>

#include "core/result.hpp"
#include "validate/validate.hpp"

namespace tilescope::validate {

std::string report_table(const Report& r);
std::string report_json(const Report& r);
// `plots` are file names (relative to the Markdown file) produced by write_plots().
std::string report_markdown(const Report& r, const std::vector<std::string>& plots);

// One log-log predicted-vs-measured PNG per quantity (all cases of the filter, held-out filled,
// train hollow) into `dir`, named scatter_<quantity id>.png. Returns the file names.
Result<std::vector<std::string>> write_plots(const Report& r, const std::string& dir);

// "PASS  held-out time MAPE = 4.93% (target <= 10.00%)".
std::string check_line(const Check& c);
// "4.93%", "n/a" for NaN.
std::string pct(double fraction);

}  // namespace tilescope::validate
