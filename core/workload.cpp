// Workload: enum names, defaults per kernel family, and validation of raw WorkloadSpecs.
#include "core/workload.hpp"

#include <charconv>
#include <sstream>

#include "core/metrics.hpp"

namespace tilescope {

std::string_view to_string(KernelFamily k) {
    switch (k) {
        case KernelFamily::attention_naive: return "attention-naive";
        case KernelFamily::attention_flash1: return "attention-flash1";
        case KernelFamily::attention_flash2: return "attention-flash2";
        case KernelFamily::gemm: return "gemm";
        case KernelFamily::softmax: return "softmax";
    }
    return "?";
}
std::string_view to_string(DType d) {
    switch (d) {
        case DType::fp16: return "fp16";
        case DType::bf16: return "bf16";
        case DType::fp32: return "fp32";
    }
    return "?";
}
std::string_view to_string(SoftmaxVariant v) { return v == SoftmaxVariant::safe ? "safe" : "online"; }
std::string_view to_string(Raster r) { return r == Raster::row ? "row" : "column"; }

Result<KernelFamily> parse_kernel_family(std::string_view s) {
    for (KernelFamily k : {KernelFamily::attention_naive, KernelFamily::attention_flash1, KernelFamily::attention_flash2,
                           KernelFamily::gemm, KernelFamily::softmax}) {
        if (s == to_string(k)) return k;
    }
    return make_error("--kernel must be one of attention-naive, attention-flash1, attention-flash2, gemm, softmax (got '" +
                      std::string(s) + "')");
}
Result<DType> parse_dtype(std::string_view s) {
    for (DType d : {DType::fp16, DType::bf16, DType::fp32}) {
        if (s == to_string(d)) return d;
    }
    return make_error("--dtype must be one of fp16, bf16, fp32 (got '" + std::string(s) + "')");
}
Result<SoftmaxVariant> parse_softmax_variant(std::string_view s) {
    if (s == "safe") return SoftmaxVariant::safe;
    if (s == "online") return SoftmaxVariant::online;
    return make_error("--variant must be safe or online (got '" + std::string(s) + "')");
}
Result<Raster> parse_raster(std::string_view s) {
    if (s == "row") return Raster::row;
    if (s == "column") return Raster::column;
    return make_error("--raster must be row or column (got '" + std::string(s) + "')");
}
int dtype_bytes(DType d) { return d == DType::fp32 ? 4 : 2; }
bool is_attention(KernelFamily k) {
    return k == KernelFamily::attention_naive || k == KernelFamily::attention_flash1 || k == KernelFamily::attention_flash2;
}

std::optional<Metric> parse_metric(std::string_view name) {
    for (std::size_t i = 0; i < kMetricCount; ++i) {
        if (kMetricNames[i] == name) return static_cast<Metric>(i);
    }
    return std::nullopt;
}

namespace {

constexpr std::int64_t kMaxSeq = std::int64_t{1} << 20;
constexpr std::int64_t kMaxBatch = std::int64_t{1} << 16;
constexpr std::int64_t kMaxHeads = std::int64_t{1} << 12;
constexpr std::int64_t kMaxBatchHeads = std::int64_t{1} << 20;
constexpr std::int64_t kMaxGemmDim = std::int64_t{1} << 20;
constexpr std::int64_t kMaxRows = std::int64_t{1} << 26;
constexpr std::int64_t kMaxCols = std::int64_t{1} << 20;

bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

Status check_range(const char* flag, std::int64_t v, std::int64_t lo, std::int64_t hi) {
    if (v < lo || v > hi) {
        std::ostringstream os;
        os << flag << " must be in [" << lo << ", " << hi << "] (got " << v << ")";
        return make_error(os.str());
    }
    return {};
}

Status check_pow2(const char* flag, std::int64_t v, std::int64_t lo, std::int64_t hi) {
    if (!is_pow2(v) || v < lo || v > hi) {
        std::ostringstream os;
        os << flag << " must be a power of two in [" << lo << ", " << hi << "] (got " << v << ")";
        return make_error(os.str());
    }
    return {};
}

// A flag that has no meaning for the family is an error, not silently ignored.
template <class T>
Status reject(const std::optional<T>& field, const char* flag, KernelFamily k) {
    if (field) return make_error(std::string(flag) + " does not apply to --kernel " + std::string(to_string(k)));
    return {};
}

#define TS_TRY(expr)                 \
    do {                             \
        if (Status s_ = (expr); !s_) \
            return s_.error();       \
    } while (0)

Result<Workload> make_attention(const WorkloadSpec& s, Workload w) {
    const KernelFamily k = w.kernel;
    TS_TRY(reject(s.m, "--m", k));
    TS_TRY(reject(s.n, "--n", k));
    TS_TRY(reject(s.k, "--k", k));
    TS_TRY(reject(s.rows, "--rows", k));
    TS_TRY(reject(s.cols, "--cols", k));
    TS_TRY(reject(s.raster, "--raster", k));
    if (k != KernelFamily::attention_naive) TS_TRY(reject(s.variant, "--variant", k));
    if (k != KernelFamily::attention_naive) TS_TRY(reject(s.tile_k, "--tile-k", k));

    w.batch = s.batch.value_or(4);
    w.heads = s.heads.value_or(32);
    w.seq_q = s.seq.value_or(4096);
    w.seq_kv = s.seq_kv.value_or(w.seq_q);
    w.head_dim = s.head_dim.value_or(64);
    w.causal = s.causal.value_or(false);
    TS_TRY(check_range("--batch", w.batch, 1, kMaxBatch));
    TS_TRY(check_range("--heads", w.heads, 1, kMaxHeads));
    if (w.batch * w.heads > kMaxBatchHeads)
        return make_error("--batch x --heads must be at most " + std::to_string(kMaxBatchHeads) + " (got " +
                          std::to_string(w.batch * w.heads) + ")");
    TS_TRY(check_range("--seq", w.seq_q, 1, kMaxSeq));
    TS_TRY(check_range("--seq-kv", w.seq_kv, 1, kMaxSeq));
    if (w.head_dim != 16 && w.head_dim != 32 && w.head_dim != 64 && w.head_dim != 128 && w.head_dim != 256)
        return make_error("--head-dim must be one of 16, 32, 64, 128, 256 (got " + std::to_string(w.head_dim) + ")");
    if (w.causal && w.seq_kv != w.seq_q)
        return make_error("--causal needs --seq-kv equal to --seq (got seq " + std::to_string(w.seq_q) + ", seq-kv " +
                          std::to_string(w.seq_kv) + ")");

    if (k == KernelFamily::attention_naive) {
        if (s.variant) {
            auto v = parse_softmax_variant(*s.variant);
            if (!v) return v.error();
            w.variant = *v;
        }
        w.tile.m = static_cast<int>(s.tile_m.value_or(128));
        w.tile.n = static_cast<int>(s.tile_n.value_or(128));
        w.tile.k = static_cast<int>(s.tile_k.value_or(32));
        TS_TRY(check_pow2("--tile-m", s.tile_m.value_or(128), 16, 1024));
        TS_TRY(check_pow2("--tile-n", s.tile_n.value_or(128), 16, 1024));
        TS_TRY(check_pow2("--tile-k", s.tile_k.value_or(32), 16, 1024));  // the GEMM kernel's mma k-step
        const std::int64_t stages = s.stages.value_or(2);
        TS_TRY(check_range("--stages", stages, 1, 8));
        w.tile.stages = static_cast<int>(stages);
        const std::int64_t warps = s.warps.value_or(8);
        TS_TRY(check_pow2("--warps", warps, 1, 32));
        w.tile.warps = static_cast<int>(warps);
        return w;
    }

    // Fused: Br x Bc. Defaults keep the block within the A100's 163 KB and the register file.
    const std::int64_t br_default = w.head_dim == 256 ? 64 : 128;
    const std::int64_t bc_default = w.head_dim <= 64 ? 64 : 32;
    const std::int64_t br = s.tile_m.value_or(br_default);
    const std::int64_t bc = s.tile_n.value_or(bc_default);
    TS_TRY(check_pow2("--tile-m", br, 16, 1024));
    TS_TRY(check_pow2("--tile-n", bc, 16, 1024));
    w.tile.m = static_cast<int>(br);
    w.tile.n = static_cast<int>(bc);
    w.tile.k = 0;
    if (k == KernelFamily::attention_flash1) {
        const std::int64_t stages = s.stages.value_or(1);
        if (stages != 1)
            return make_error("--stages must be 1 for attention-flash1 (K_j, V_j are single-buffered) (got " +
                              std::to_string(stages) + ")");
        w.tile.stages = 1;
    } else {
        const std::int64_t stages = s.stages.value_or(2);
        TS_TRY(check_range("--stages", stages, 1, 8));
        w.tile.stages = static_cast<int>(stages);
    }
    // Fused attention's default is one warp per 16 query rows; a Br above 512 would need more
    // than 32 warps, which the user did not ask for, so the error names the tile.
    if (!s.warps && br / 16 > 32)
        return make_error("--tile-m " + std::to_string(br) + " needs " + std::to_string(br / 16) +
                          " warps by default (one per 16 rows), over the limit of 32: use --tile-m <= 512 or give --warps");
    const std::int64_t warps = s.warps.value_or(std::max<std::int64_t>(1, br / 16));
    TS_TRY(check_pow2("--warps", warps, 1, 32));
    w.tile.warps = static_cast<int>(warps);
    return w;
}

Result<Workload> make_gemm(const WorkloadSpec& s, Workload w) {
    const KernelFamily k = w.kernel;
    for (auto [field, flag] : {std::pair{&s.batch, "--batch"}, {&s.heads, "--heads"}, {&s.seq, "--seq"},
                               {&s.seq_kv, "--seq-kv"}, {&s.head_dim, "--head-dim"}, {&s.rows, "--rows"}, {&s.cols, "--cols"}})
        TS_TRY(reject(*field, flag, k));
    TS_TRY(reject(s.causal, "--causal", k));
    TS_TRY(reject(s.variant, "--variant", k));
    w.m = s.m.value_or(4096);
    w.n = s.n.value_or(4096);
    w.k = s.k.value_or(4096);
    TS_TRY(check_range("--m", w.m, 1, kMaxGemmDim));
    TS_TRY(check_range("--n", w.n, 1, kMaxGemmDim));
    TS_TRY(check_range("--k", w.k, 1, kMaxGemmDim));
    if (s.raster) {
        auto r = parse_raster(*s.raster);
        if (!r) return r.error();
        w.raster = *r;
    }
    const std::int64_t tm = s.tile_m.value_or(128), tn = s.tile_n.value_or(128), tk = s.tile_k.value_or(32);
    // The tensor-core GEMM's warp tiles are multiples of 16 x 16 and its k-step one mma's 16
    // (kernels/gemm/gemm.cuh): a smaller tile has no kernel, and its tensor work would be undercounted.
    TS_TRY(check_pow2("--tile-m", tm, 16, 1024));
    TS_TRY(check_pow2("--tile-n", tn, 16, 1024));
    TS_TRY(check_pow2("--tile-k", tk, 16, 1024));
    const std::int64_t stages = s.stages.value_or(3), warps = s.warps.value_or(8);
    TS_TRY(check_range("--stages", stages, 1, 8));
    TS_TRY(check_pow2("--warps", warps, 1, 32));
    w.tile = Tile{static_cast<int>(tm), static_cast<int>(tn), static_cast<int>(tk), static_cast<int>(stages),
                  static_cast<int>(warps)};
    return w;
}

Result<Workload> make_softmax(const WorkloadSpec& s, Workload w) {
    const KernelFamily k = w.kernel;
    for (auto [field, flag] : {std::pair{&s.batch, "--batch"}, {&s.heads, "--heads"}, {&s.seq, "--seq"},
                               {&s.seq_kv, "--seq-kv"}, {&s.head_dim, "--head-dim"}, {&s.m, "--m"}, {&s.n, "--n"},
                               {&s.k, "--k"}, {&s.tile_k, "--tile-k"}})
        TS_TRY(reject(*field, flag, k));
    TS_TRY(reject(s.causal, "--causal", k));
    TS_TRY(reject(s.raster, "--raster", k));
    w.rows = s.rows.value_or(16384);
    w.cols = s.cols.value_or(4096);
    TS_TRY(check_range("--rows", w.rows, 1, kMaxRows));
    TS_TRY(check_range("--cols", w.cols, 1, kMaxCols));
    if (s.variant) {
        auto v = parse_softmax_variant(*s.variant);
        if (!v) return v.error();
        w.variant = *v;
    }
    const std::int64_t tm = s.tile_m.value_or(1), tn = s.tile_n.value_or(1024);
    TS_TRY(check_pow2("--tile-m", tm, 1, 1024));
    TS_TRY(check_pow2("--tile-n", tn, 1, 1024));
    const std::int64_t stages = s.stages.value_or(1), warps = s.warps.value_or(4);
    TS_TRY(check_range("--stages", stages, 1, 8));
    TS_TRY(check_pow2("--warps", warps, 1, 32));
    w.tile = Tile{static_cast<int>(tm), static_cast<int>(tn), 0, static_cast<int>(stages), static_cast<int>(warps)};
    return w;
}

}  // namespace

Status check_flag_value(std::string_view flag, std::string_view value) {
    auto status_of = [](const auto& parsed) -> Status {
        if (!parsed) return parsed.error();
        return {};
    };
    if (flag == "--kernel") return status_of(parse_kernel_family(value));
    if (flag == "--dtype") return status_of(parse_dtype(value));
    if (flag == "--variant") return status_of(parse_softmax_variant(value));
    if (flag == "--raster") return status_of(parse_raster(value));
    struct Range {
        const char* flag;
        std::int64_t lo, hi;
    };
    static const Range ranges[] = {
        {"--batch", 1, kMaxBatch}, {"--heads", 1, kMaxHeads},   {"--seq", 1, kMaxSeq},      {"--seq-kv", 1, kMaxSeq},
        {"--m", 1, kMaxGemmDim},   {"--n", 1, kMaxGemmDim},     {"--k", 1, kMaxGemmDim},    {"--rows", 1, kMaxRows},
        {"--cols", 1, kMaxCols},   {"--stages", 1, 8}};
    const std::string f(flag);
    std::int64_t v = 0;
    const bool integer = std::from_chars(value.data(), value.data() + value.size(), v).ptr == value.data() + value.size() &&
                         !value.empty();
    if (f == "--tile-m" || f == "--tile-n" || f == "--tile-k") {  // every family's tiles: powers of two
        if (!integer) return make_error(f + " expects an integer (got '" + std::string(value) + "')");
        // 1 is for softmax's rows per block; the attention and GEMM tiles start at 16.
        if (!is_pow2(v) || v < 1 || v > 1024)
            return make_error(f + " must be a power of two in [1, 1024] (attention and GEMM tiles: [16, 1024]) (got " +
                              std::string(value) + ")");
        return {};
    }
    if (f == "--warps") {  // every kernel's warp layout splits its tile in halves
        if (!integer) return make_error(f + " expects an integer (got '" + std::string(value) + "')");
        return check_pow2("--warps", v, 1, 32);
    }
    if (f == "--head-dim") {
        if (integer && (v == 16 || v == 32 || v == 64 || v == 128 || v == 256)) return {};
        return make_error("--head-dim must be one of 16, 32, 64, 128, 256 (got " + std::string(value) + ")");
    }
    for (const Range& r : ranges) {
        if (f != r.flag) continue;
        if (!integer) return make_error(f + " expects an integer (got '" + std::string(value) + "')");
        return check_range(r.flag, v, r.lo, r.hi);
    }
    return {};
}

Result<Workload> make_workload(const WorkloadSpec& s) {
    if (!s.kernel) return make_error("--kernel is required (attention-naive, attention-flash1, attention-flash2, gemm, softmax)");
    auto kind = parse_kernel_family(*s.kernel);
    if (!kind) return kind.error();
    Workload w;
    w.kernel = *kind;
    if (s.dtype) {
        auto d = parse_dtype(*s.dtype);
        if (!d) return d.error();
        w.dtype = *d;
    }
    w.persistent = s.persistent.value_or(false);
    if (is_attention(w.kernel)) return make_attention(s, w);
    if (w.kernel == KernelFamily::gemm) return make_gemm(s, w);
    return make_softmax(s, w);
}

std::string describe(const Workload& w) {
    std::ostringstream os;
    os << to_string(w.kernel);
    if (is_attention(w.kernel)) {
        os << " b=" << w.batch << " h=" << w.heads << " n=" << w.seq_q;
        if (w.seq_kv != w.seq_q) os << " n_kv=" << w.seq_kv;
        os << " d=" << w.head_dim << (w.causal ? " causal" : "");
    } else if (w.kernel == KernelFamily::gemm) {
        os << " m=" << w.m << " n=" << w.n << " k=" << w.k << " raster=" << to_string(w.raster);
    } else {
        os << " rows=" << w.rows << " cols=" << w.cols;
    }
    if (w.kernel == KernelFamily::softmax || w.kernel == KernelFamily::attention_naive)
        os << " " << to_string(w.variant);
    os << " " << to_string(w.dtype) << " tile=" << w.tile.m << "x" << w.tile.n;
    if (w.tile.k > 0) os << "x" << w.tile.k;
    os << " stages=" << w.tile.stages << " warps=" << w.tile.warps;
    if (w.persistent) os << " persistent";
    return os.str();
}

}  // namespace tilescope
