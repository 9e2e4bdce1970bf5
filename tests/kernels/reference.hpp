// CPU float64 references and helpers for the kernel tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/workload.hpp"
#include "kernels/measure/workload_runner.hpp"

namespace tilescope::test {

// Copies a runner buffer back to the host as doubles (fp16/bf16/fp32 decoded exactly).
std::vector<double> download(const kern::WorkloadRunner& r, const std::string& name);

// O = softmax(scale * Q K^T (+ causal mask)) V per (batch, head); also the natural-log lse.
void attention_reference(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
                         std::int64_t bh, std::int64_t nq, std::int64_t nkv, std::int64_t d, bool causal,
                         std::vector<double>& o, std::vector<double>* lse);
void gemm_reference(const std::vector<double>& a, const std::vector<double>& b, std::int64_t m, std::int64_t n,
                    std::int64_t k, std::vector<double>& c);
void softmax_reference(const std::vector<double>& x, std::int64_t rows, std::int64_t cols, std::vector<double>& y);

// ||out - ref|| / ||ref||; +inf if any output is NaN/Inf (unwritten poison).
double rel_error(const std::vector<double>& out, const std::vector<double>& ref);

}  // namespace tilescope::test
