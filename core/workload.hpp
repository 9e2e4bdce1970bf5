// Workload: a kernel family, a problem shape, a tile configuration and a dtype.
//
// Built at the edge (CLI flags, GUI, sweep rows) from a WorkloadSpec of optional raw values,
// then validated once by make_workload() into an immutable Workload with every default filled.
// Hardware-dependent legality (shared memory per block, threads, registers) is checked later by
// lower(), which knows the GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tilescope {

enum class KernelFamily { attention_naive, attention_flash1, attention_flash2, gemm, softmax };
enum class DType { fp16, bf16, fp32 };
enum class SoftmaxVariant { safe, online };
enum class Raster { row, column };  // GEMM block order: blockIdx walks N first (row) or M first

std::string_view to_string(KernelFamily);
std::string_view to_string(DType);
std::string_view to_string(SoftmaxVariant);
std::string_view to_string(Raster);
Result<KernelFamily> parse_kernel_family(std::string_view);  // "attention-naive", ...
Result<DType> parse_dtype(std::string_view);
Result<SoftmaxVariant> parse_softmax_variant(std::string_view);
Result<Raster> parse_raster(std::string_view);
int dtype_bytes(DType);
bool is_attention(KernelFamily);

// Tile configuration. Meaning by family:
//   attention: m = Br (query rows per tile), n = Bc (key/value rows per tile), k unused
//              (the whole head dimension is one tile); naive attention uses m/n/k for its two GEMMs.
//   gemm:      m x n output tile, k = depth of one K step.
//   softmax:   m = rows per block, n = columns held per block step.
struct Tile {
    int m = 0;
    int n = 0;
    int k = 0;
    int stages = 0;   // shared-memory pipeline depth (1 = no overlap of loads and compute)
    int warps = 0;    // warps per block
};

// Raw input: every field optional; make_workload() fills defaults per family and validates.
struct WorkloadSpec {
    std::optional<std::string> kernel;   // family name; required
    std::optional<std::string> dtype;
    std::optional<int64_t> batch, heads, seq, seq_kv, head_dim;
    std::optional<bool> causal;
    std::optional<int64_t> m, n, k;
    std::optional<int64_t> rows, cols;
    std::optional<std::string> variant;
    std::optional<int64_t> tile_m, tile_n, tile_k, stages, warps;
    std::optional<std::string> raster;
    std::optional<bool> persistent;
};

struct Workload {
    KernelFamily kernel = KernelFamily::attention_flash2;
    DType dtype = DType::fp16;
    // attention
    int64_t batch = 0, heads = 0, seq_q = 0, seq_kv = 0, head_dim = 0;
    bool causal = false;
    // gemm: C[m,n] = A[m,k] * B[k,n]
    int64_t m = 0, n = 0, k = 0;
    Raster raster = Raster::row;
    // softmax over rows x cols
    int64_t rows = 0, cols = 0;
    SoftmaxVariant variant = SoftmaxVariant::safe;
    Tile tile;
    bool persistent = false;  // one resident block per slot looping over tiles
};

// Validates ranges (positive sizes, tiles that are powers of two within the family's menu
// bounds, ...) and fills defaults. Error messages name the flag: "--tile-m must be > 0 (got 0)".
Result<Workload> make_workload(const WorkloadSpec&);

// One flag value on its own, before it meets the other flags: an enum that parses, a size or
// count within the range every kernel family accepts. `flag` is "--dtype", "--m", ...; a flag
// with no fixed domain (--causal, --persistent) or an unknown one passes. `tilescope sweep`
// refuses such a value (exit 2) instead of turning a typo into "illegal" rows; what depends on
// the combination (a tile that does not fit, a flag of another family) stays a row.
Status check_flag_value(std::string_view flag, std::string_view value);

// Short human label, e.g. "attention-flash2 b=4 h=16 n=4096 d=64 fp16 tile=128x64 stages=2 warps=4".
std::string describe(const Workload&);

}  // namespace tilescope
