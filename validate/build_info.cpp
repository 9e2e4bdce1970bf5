#include "validate/build_info.hpp"

#include <ctime>

#ifndef TILESCOPE_VALIDATE_COMMIT
#define TILESCOPE_VALIDATE_COMMIT "unknown"
#endif

namespace tilescope::validate {

std::string build_commit() { return TILESCOPE_VALIDATE_COMMIT; }

std::string utc_now_iso() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace tilescope::validate
