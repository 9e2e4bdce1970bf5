#include "validate/split.hpp"

#include <sstream>

namespace tilescope::validate {

std::string sweep_key(const Workload& w) {
    std::ostringstream s;
    s << to_string(w.kernel) << '/' << to_string(w.dtype);
    switch (w.kernel) {
        case KernelFamily::attention_naive:
        case KernelFamily::attention_flash1:
        case KernelFamily::attention_flash2:
            s << "/b" << w.batch << "/h" << w.heads << "/n" << w.seq_q << "/nkv" << w.seq_kv << "/d"
              << w.head_dim << "/c" << (w.causal ? 1 : 0);
            if (w.kernel == KernelFamily::attention_naive) s << '/' << to_string(w.variant);  // its softmax
            if (w.persistent) s << "/p1";  // another workload (GEMM's keys always say /p0 or /p1)
            break;
        case KernelFamily::gemm:
            s << "/m" << w.m << "/n" << w.n << "/k" << w.k << "/r" << to_string(w.raster) << "/p"
              << (w.persistent ? 1 : 0);
            break;
        case KernelFamily::softmax:
            s << '/' << to_string(w.variant) << "/r" << w.rows << "/c" << w.cols;
            if (w.persistent) s << "/p1";
            break;
    }
    return s.str();
}

std::string case_name(const Workload& w) {
    std::ostringstream s;
    s << sweep_key(w) << "|t" << w.tile.m << 'x' << w.tile.n << 'x' << w.tile.k << "/s" << w.tile.stages
      << "/w" << w.tile.warps;
    return s.str();
}

Split split_of(const Workload& w) {
    return fnv1a64(sweep_key(w)) % 2 == 0 ? Split::train : Split::heldout;
}

std::string_view to_string(Split s) { return s == Split::train ? "train" : "heldout"; }

}  // namespace tilescope::validate
