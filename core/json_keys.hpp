// json_duplicate_key: finds an object in a JSON text that names the same key twice.
//
// Why: Boost.JSON's parser keeps only the last of equal keys, silently. A profile that states
// "hbm_bandwidth_bytes_per_s" twice, or a measurement line with two "time" fields, would then be
// read with whichever came last and no word said; every reader of user JSON (profiles,
// measurement and prediction files, validate baselines) calls this after a successful parse and
// refuses such a text with the key's path.
#pragma once

#include <string>
#include <string_view>

namespace tilescope {

// The JSON path of the first key that repeats one of its object's earlier keys, e.g.
// "$.calibration.hbm_efficiency" or "$.launches[2].name"; empty when every object's keys are
// distinct, and also when `text` is not valid JSON (the caller's parse reports that).
std::string json_duplicate_key(std::string_view text);

// Empty when `text` is one valid JSON value; else "not valid JSON at line L, column C (why)", the
// place where Boost.JSON's parser stopped (a truncated text: its end), lines and columns from 1.
std::string json_syntax_error(std::string_view text);

// What every reader says after that path: "PATH: " + kDuplicateKeyRule.
inline constexpr const char* kDuplicateKeyRule = "the key appears twice in its object (state it once)";

}  // namespace tilescope
