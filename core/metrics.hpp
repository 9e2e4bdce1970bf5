// Metric names: the contract between prediction, measurement, CLI, GUI and files.
// Where Nsight Compute has a metric for a quantity we use its exact name, so a prediction and
// an `ncu --metrics` run line up column for column. Units: bytes, ns, counts (see README).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace tilescope {

enum class Metric : std::size_t {
    dram_bytes_read,      // dram__bytes_read.sum      byte
    dram_bytes_write,     // dram__bytes_write.sum     byte
    lts_t_bytes,          // lts__t_bytes.sum          byte (all requests reaching L2)
    gpu_time_duration,    // gpu__time_duration.sum    ns
    smem_bytes_read,      // smem__bytes_read.sum      byte
    smem_bytes_write,     // smem__bytes_write.sum     byte
    flops,                // flops                     count (flops_tensor + flops_fp32)
    flops_tensor,         // flops_tensor              count
    flops_fp32,           // flops_fp32                count
    sfu_ops,              // sfu_ops                   count
};
inline constexpr std::size_t kMetricCount = 10;

inline constexpr std::array<std::string_view, kMetricCount> kMetricNames = {
    "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "gpu__time_duration.sum",
    "smem__bytes_read.sum", "smem__bytes_write.sum", "flops", "flops_tensor", "flops_fp32", "sfu_ops"};
inline constexpr std::array<std::string_view, kMetricCount> kMetricUnits = {
    "byte", "byte", "byte", "ns", "byte", "byte", "count", "count", "count", "count"};

constexpr std::string_view metric_name(Metric m) { return kMetricNames[static_cast<std::size_t>(m)]; }
constexpr std::string_view metric_unit(Metric m) { return kMetricUnits[static_cast<std::size_t>(m)]; }
std::optional<Metric> parse_metric(std::string_view name);

// A fixed set of metric values. A metric that was not measured/predicted is NaN.
struct Metrics {
    std::array<double, kMetricCount> values{};
    double& operator[](Metric m) { return values[static_cast<std::size_t>(m)]; }
    double operator[](Metric m) const { return values[static_cast<std::size_t>(m)]; }
    Metrics& operator+=(const Metrics& o) {
        for (std::size_t i = 0; i < kMetricCount; ++i) values[i] += o.values[i];
        return *this;
    }
};

}  // namespace tilescope
