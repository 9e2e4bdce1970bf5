// CPU float64 references for the kernel tests.
#include "reference.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace tilescope::test {

namespace {
double half_to_double(std::uint16_t h) {
    const int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    double v;
    if (exp == 0) v = std::ldexp(static_cast<double>(man), -24);
    else if (exp == 31) v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else v = std::ldexp(static_cast<double>(man | 0x400), exp - 25);
    return sign ? -v : v;
}
double bf16_to_double(std::uint16_t h) {
    const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return static_cast<double>(f);
}
}  // namespace

std::vector<double> download(const kern::WorkloadRunner& r, const std::string& name) {
    const auto& b = r.buffers().at(name);
    std::vector<double> out(static_cast<size_t>(b.elements));
    if (b.dtype == DType::fp32) {
        std::vector<float> h(out.size());
        cudaMemcpy(h.data(), b.data, static_cast<size_t>(b.bytes), cudaMemcpyDeviceToHost);
        for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(h[i]);
    } else {
        std::vector<std::uint16_t> h(out.size());
        cudaMemcpy(h.data(), b.data, static_cast<size_t>(b.bytes), cudaMemcpyDeviceToHost);
        for (size_t i = 0; i < out.size(); ++i)
            out[i] = b.dtype == DType::fp16 ? half_to_double(h[i]) : bf16_to_double(h[i]);
    }
    return out;
}

void attention_reference(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
                         std::int64_t bh, std::int64_t nq, std::int64_t nkv, std::int64_t d, bool causal,
                         std::vector<double>& o, std::vector<double>* lse) {
    o.assign(static_cast<size_t>(bh * nq * d), 0.0);
    if (lse != nullptr) lse->assign(static_cast<size_t>(bh * nq), 0.0);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    std::vector<double> s(static_cast<size_t>(nkv));
    for (std::int64_t b = 0; b < bh; ++b) {
        const double* qb = q.data() + b * nq * d;
        const double* kb = k.data() + b * nkv * d;
        const double* vb = v.data() + b * nkv * d;
        double* ob = o.data() + b * nq * d;
        for (std::int64_t i = 0; i < nq; ++i) {
            double mx = -std::numeric_limits<double>::infinity();
            const std::int64_t last = causal ? std::min(i, nkv - 1) : nkv - 1;
            for (std::int64_t j = 0; j <= last; ++j) {
                double acc = 0;
                for (std::int64_t x = 0; x < d; ++x) acc += qb[i * d + x] * kb[j * d + x];
                s[static_cast<size_t>(j)] = acc * scale;
                mx = std::max(mx, s[static_cast<size_t>(j)]);
            }
            double sum = 0;
            for (std::int64_t j = 0; j <= last; ++j) {
                s[static_cast<size_t>(j)] = std::exp(s[static_cast<size_t>(j)] - mx);
                sum += s[static_cast<size_t>(j)];
            }
            for (std::int64_t j = 0; j <= last; ++j)
                for (std::int64_t x = 0; x < d; ++x) ob[i * d + x] += s[static_cast<size_t>(j)] / sum * vb[j * d + x];
            if (lse != nullptr) (*lse)[static_cast<size_t>(b * nq + i)] = mx + std::log(sum);
        }
    }
}

void gemm_reference(const std::vector<double>& a, const std::vector<double>& b, std::int64_t m, std::int64_t n,
                    std::int64_t k, std::vector<double>& c) {
    c.assign(static_cast<size_t>(m * n), 0.0);
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t x = 0; x < k; ++x) {
            const double av = a[static_cast<size_t>(i * k + x)];
            for (std::int64_t j = 0; j < n; ++j) c[static_cast<size_t>(i * n + j)] += av * b[static_cast<size_t>(x * n + j)];
        }
}

void softmax_reference(const std::vector<double>& x, std::int64_t rows, std::int64_t cols, std::vector<double>& y) {
    y.assign(x.size(), 0.0);
    for (std::int64_t r = 0; r < rows; ++r) {
        const double* xr = x.data() + r * cols;
        double mx = xr[0];
        for (std::int64_t c = 1; c < cols; ++c) mx = std::max(mx, xr[c]);
        double sum = 0;
        for (std::int64_t c = 0; c < cols; ++c) sum += std::exp(xr[c] - mx);
        for (std::int64_t c = 0; c < cols; ++c) y[static_cast<size_t>(r * cols + c)] = std::exp(xr[c] - mx) / sum;
    }
}

double rel_error(const std::vector<double>& out, const std::vector<double>& ref) {
    if (out.size() != ref.size()) return std::numeric_limits<double>::infinity();
    double num = 0, den = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        if (!std::isfinite(out[i])) return std::numeric_limits<double>::infinity();
        num += (out[i] - ref[i]) * (out[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    return std::sqrt(num / (den > 0 ? den : 1.0));
}

}  // namespace tilescope::test
