#include "validate/dataset_cases.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "validate/split.hpp"

namespace tilescope::validate {

std::vector<WorkloadSpec> dataset_case_specs() {
    std::vector<WorkloadSpec> out;
    constexpr std::int64_t kTokens = 16384;
    constexpr std::int64_t kHidden = 2048;
    for (const char* family : {"attention-naive", "attention-flash1", "attention-flash2"}) {
        for (const std::int64_t d : {64, 128}) {
            for (const std::int64_t n : {512, 1024, 2048, 4096, 8192, 16384}) {
                const bool naive = std::string(family) == "attention-naive";
                const std::vector<std::int64_t> menu =
                    naive ? std::vector<std::int64_t>{64, 128} : std::vector<std::int64_t>{32, 64, 128};
                for (const std::int64_t tm : menu)
                    for (const std::int64_t tn : menu) {
                        WorkloadSpec s;
                        s.kernel = family;
                        s.dtype = "fp16";
                        s.batch = kTokens / n;
                        s.heads = kHidden / d;
                        s.seq = n;
                        s.head_dim = d;
                        s.causal = false;
                        s.tile_m = tm;
                        s.tile_n = tn;
                        if (naive) {
                            s.tile_k = 32;
                            s.stages = 2;
                            s.warps = 8;
                        } else {
                            s.warps = tm / 16;
                        }
                        out.push_back(s);
                    }
            }
        }
    }
    struct Shape {
        std::int64_t m, n, k;
    };
    // Sizes bounded so that every case simulates in about a second (tiles x K steps <= ~1M).
    constexpr std::array<Shape, 8> kGemm = {{{1024, 1024, 1024},
                                             {2048, 2048, 2048},
                                             {4096, 4096, 4096},
                                             {4096, 1024, 4096},
                                             {16384, 1024, 1024},
                                             {1024, 16384, 1024},
                                             {2048, 2048, 8192},
                                             {8192, 2048, 512}}};
    for (const Shape& g : kGemm)
        for (const std::int64_t tm : {64, 128})
            for (const std::int64_t tn : {64, 128}) {
                WorkloadSpec s;
                s.kernel = "gemm";
                s.dtype = "fp16";
                s.m = g.m;
                s.n = g.n;
                s.k = g.k;
                s.tile_m = tm;
                s.tile_n = tn;
                s.tile_k = 32;
                s.stages = 3;
                s.warps = 8;
                out.push_back(s);
            }
    struct Rows {
        std::int64_t rows, cols;
    };
    // The first four shapes (2026-11-21); then (docs/validation change 27, 2026-11-25) a grid
    // written before it was measured: 2^24 and 2^26 elements, every power-of-two row length
    // from 512 to 32768 columns, the shapes not already above. The hash put all eight of the
    // first shapes' sweeps on the held-out side; the grid's sweeps fall where it puts them.
    std::vector<Rows> softmax_shapes = {{16384, 1024}, {16384, 4096}, {4096, 16384}, {65536, 2048}};
    for (const std::int64_t elements : {std::int64_t{1} << 24, std::int64_t{1} << 26})
        for (std::int64_t cols = 512; cols <= 32768; cols *= 2) {
            const Rows r{elements / cols, cols};
            const bool known = std::any_of(softmax_shapes.begin(), softmax_shapes.end(), [&](const Rows& o) {
                return o.rows == r.rows && o.cols == r.cols;
            });
            if (!known) softmax_shapes.push_back(r);
        }
    for (const char* variant : {"safe", "online"})
        for (const Rows& r : softmax_shapes)
            for (const std::int64_t warps : {1, 2, 4}) {
                WorkloadSpec s;
                s.kernel = "softmax";
                s.dtype = "fp16";
                s.variant = variant;
                s.rows = r.rows;
                s.cols = r.cols;
                s.tile_m = 1;
                s.tile_n = warps * 256;
                s.warps = warps;
                out.push_back(s);
            }
    return out;
}

Result<std::vector<Workload>> dataset_cases(bool training_only, const std::vector<std::string>& matching) {
    std::vector<Workload> out;
    for (const WorkloadSpec& s : dataset_case_specs()) {
        auto w = make_workload(s);
        if (!w) return make_error("data-set case does not validate: " + w.error().message);
        if (training_only && split_of(*w) != Split::train) continue;
        const std::string name = case_name(*w);
        if (!matching.empty() && std::none_of(matching.begin(), matching.end(), [&](const std::string& m) {
                return name.find(m) != std::string::npos;
            }))
            continue;
        out.push_back(*w);
    }
    if (out.empty() && !matching.empty())
        return make_error("--cases-matching: no data-set case matches (" + std::to_string(matching.size()) +
                          " pattern(s), first '" + matching.front() + "')");
    return out;
}

}  // namespace tilescope::validate
