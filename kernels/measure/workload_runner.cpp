// WorkloadRunner: buffers and launch sequence per kernel family (see workload_runner.hpp).
#include "kernels/measure/workload_runner.hpp"

#include <cuda_runtime.h>

#include <string>

#include "kernels/common/fill.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/softmax/softmax.hpp"

namespace tilescope::kern {

namespace {

int elem_bytes(DType d) { return d == DType::fp32 ? 4 : 2; }

Status check_attention_tile(const Workload& w) {
    if (w.tile.warps != w.tile.m / 16)
        return make_error("--warps must be Br/16 = " + std::to_string(w.tile.m / 16) +
                          " for the attention kernels (each warp owns 16 query rows; got " +
                          std::to_string(w.tile.warps) + ")");
    if (w.kernel == KernelFamily::attention_flash2 && w.tile.stages != 2)
        return make_error("--stages must be 2 for the flash2 kernel (K/V double-buffered; got " +
                          std::to_string(w.tile.stages) + ")");
    if (w.kernel == KernelFamily::attention_flash1 && w.tile.stages != 1)
        return make_error("--stages must be 1 for the flash1 kernel (got " + std::to_string(w.tile.stages) + ")");
    return Status::success();
}

GemmArgs gemm_args(const Workload& w) {
    GemmArgs g;
    g.dtype = w.dtype;
    g.m = w.m;
    g.n = w.n;
    g.k = w.k;
    g.lda = w.k;
    g.ldb = w.n;
    g.ldc = w.n;
    g.raster = w.raster;
    g.tile = w.tile;
    return g;
}

SoftmaxArgs softmax_args(const Workload& w) {
    SoftmaxArgs s;
    s.dtype = w.dtype;
    s.rows = w.rows;
    s.cols = w.cols;
    s.variant = w.variant;
    s.tile = w.tile;
    return s;
}

}  // namespace

AttentionArgs attention_args(const Workload& w) {
    AttentionArgs a;
    a.dtype = w.dtype;
    a.batch = w.batch;
    a.heads = w.heads;
    a.seq_q = w.seq_q;
    a.seq_kv = w.seq_kv;
    a.head_dim = static_cast<int>(w.head_dim);
    a.causal = w.causal;
    a.br = w.tile.m;
    a.bc = w.tile.n;
    return a;
}

Status workload_supported(const Workload& w) {
    if (w.persistent) return make_error("--persistent is not supported by the measured kernels");
    switch (w.kernel) {
        case KernelFamily::attention_flash2: {
            Status st = flash2_supported(attention_args(w));
            if (!st) return st;
            return check_attention_tile(w);
        }
        case KernelFamily::attention_flash1: {
            Status st = flash1_supported(attention_args(w));
            if (!st) return st;
            return check_attention_tile(w);
        }
        case KernelFamily::attention_naive:
            return naive_supported(attention_args(w), w.tile, naive_default_softmax_tile());
        case KernelFamily::gemm:
            return gemm_supported(gemm_args(w));
        case KernelFamily::softmax:
            return softmax_supported(softmax_args(w));
    }
    return make_error("unknown kernel family");
}

WorkloadRunner::~WorkloadRunner() {
    for (auto& [name, b] : buffers_)
        if (b.data != nullptr) cudaFree(b.data);
}

Status WorkloadRunner::alloc(const std::string& name, std::int64_t elements, DType dtype, bool output,
                             bool workspace) {
    Buffer b;
    b.elements = elements;
    b.dtype = dtype;
    b.bytes = elements * elem_bytes(dtype);
    b.output = output;
    b.workspace = workspace;
    const cudaError_t e = cudaMalloc(&b.data, static_cast<size_t>(b.bytes));
    if (e != cudaSuccess)
        return make_error("cudaMalloc of " + std::to_string(b.bytes) + " B for " + name + " failed: " +
                          cudaGetErrorString(e));
    buffers_[name] = b;
    return Status::success();
}

std::int64_t WorkloadRunner::extra_device_bytes() const {
    std::int64_t n = 0;
    for (const auto& [name, b] : buffers_)
        if (b.workspace) n += b.bytes;
    return n;
}

Status WorkloadRunner::poison_outputs(void* stream) const {
    for (const auto& [name, b] : buffers_) {
        if (!b.output && !b.workspace) continue;
        Status st = fill_nan(b.data, b.elements, b.dtype, stream);
        if (!st) return st;
    }
    return Status::success();
}

Status WorkloadRunner::run_all(void* stream) const {
    for (const PlannedLaunch& l : launches_) {
        Status st = l.run(stream);
        if (!st) return make_error(l.name + ": " + st.error().message);
    }
    return Status::success();
}

#define TS_TRY_ST(expr)            \
    do {                           \
        Status st_ = (expr);       \
        if (!st_) return st_.error(); \
    } while (0)

Result<std::unique_ptr<WorkloadRunner>> WorkloadRunner::create(const Workload& w, std::uint64_t seed) {
    TS_TRY_ST(workload_supported(w));
    std::unique_ptr<WorkloadRunner> r(new WorkloadRunner());
    // A launch runs `launch` on a copy of `args` with the stream the caller passes in.
    auto add_launch = [&](std::string name, auto args, auto launch, Result<KernelFacts> facts) -> Status {
        if (!facts) return facts.error();
        std::function<Status(void*)> run = [args, launch](void* s) {
            auto x = args;
            x.stream = s;
            return launch(x);
        };
        r->launches_.push_back(PlannedLaunch{std::move(name), std::move(run), *facts});
        return Status::success();
    };

    if (w.kernel == KernelFamily::attention_naive || w.kernel == KernelFamily::attention_flash1 ||
        w.kernel == KernelFamily::attention_flash2) {
        const AttentionArgs base = attention_args(w);
        const std::int64_t bh = w.batch * w.heads;
        TS_TRY_ST(r->alloc("Q", bh * w.seq_q * w.head_dim, w.dtype, false, false));
        TS_TRY_ST(r->alloc("K", bh * w.seq_kv * w.head_dim, w.dtype, false, false));
        TS_TRY_ST(r->alloc("V", bh * w.seq_kv * w.head_dim, w.dtype, false, false));
        TS_TRY_ST(r->alloc("O", bh * w.seq_q * w.head_dim, w.dtype, true, false));
        AttentionArgs a = base;
        a.q = r->buffers_["Q"].data;
        a.k = r->buffers_["K"].data;
        a.v = r->buffers_["V"].data;
        a.o = r->buffers_["O"].data;
        if (w.kernel == KernelFamily::attention_flash2) {
            TS_TRY_ST(r->alloc("lse", bh * w.seq_q, DType::fp32, true, true));
            a.lse = static_cast<float*>(r->buffers_["lse"].data);
            TS_TRY_ST(add_launch(
                "attention-flash2:fwd", a, [](const AttentionArgs& x) { return launch_flash2(x); },
                flash2_facts(a)));
        } else if (w.kernel == KernelFamily::attention_flash1) {
            TS_TRY_ST(r->alloc("lm", 2 * bh * w.seq_q, DType::fp32, true, true));
            void* ws = r->buffers_["lm"].data;
            TS_TRY_ST(add_launch(
                "attention-flash1:fwd", a, [ws](const AttentionArgs& x) { return launch_flash1(x, ws); },
                flash1_facts(a)));
        } else {
            const std::int64_t scores = bh * w.seq_q * w.seq_kv;
            TS_TRY_ST(r->alloc("S", scores, w.dtype, true, true));
            TS_TRY_ST(r->alloc("P", scores, w.dtype, true, true));
            void* sp = r->buffers_["S"].data;
            void* pp = r->buffers_["P"].data;
            const GemmArgs qk = naive_gemm_args(a, w.tile, NaiveStage::qk, nullptr, sp);
            const SoftmaxArgs sm = naive_softmax_args(a, naive_default_softmax_tile(), w.variant, sp, pp);
            const GemmArgs pv = naive_gemm_args(a, w.tile, NaiveStage::pv, pp, nullptr);
            TS_TRY_ST(add_launch(
                "attention-naive:qk", qk, [](const GemmArgs& x) { return launch_gemm(x); },
                gemm_facts(qk)));
            TS_TRY_ST(add_launch(
                "attention-naive:softmax", sm, [](const SoftmaxArgs& x) { return launch_softmax(x); },
                softmax_facts(sm)));
            TS_TRY_ST(add_launch(
                "attention-naive:pv", pv, [](const GemmArgs& x) { return launch_gemm(x); },
                gemm_facts(pv)));
        }
    } else if (w.kernel == KernelFamily::gemm) {
        TS_TRY_ST(r->alloc("A", w.m * w.k, w.dtype, false, false));
        TS_TRY_ST(r->alloc("B", w.k * w.n, w.dtype, false, false));
        TS_TRY_ST(r->alloc("C", w.m * w.n, w.dtype, true, false));
        GemmArgs g = gemm_args(w);
        g.a = r->buffers_["A"].data;
        g.b = r->buffers_["B"].data;
        g.c = r->buffers_["C"].data;
        TS_TRY_ST(add_launch(
            "gemm", g, [](const GemmArgs& x) { return launch_gemm(x); },
            gemm_facts(g)));
    } else {
        TS_TRY_ST(r->alloc("x", w.rows * w.cols, w.dtype, false, false));
        TS_TRY_ST(r->alloc("y", w.rows * w.cols, w.dtype, true, false));
        SoftmaxArgs sa = softmax_args(w);
        sa.x = r->buffers_["x"].data;
        sa.y = r->buffers_["y"].data;
        TS_TRY_ST(add_launch(
            "softmax", sa, [](const SoftmaxArgs& x) { return launch_softmax(x); },
            softmax_facts(sa)));
    }

    // Inputs: uniform [-1, 1), a different stream of the hash per buffer.
    std::uint64_t salt = 0;
    for (auto& [name, b] : r->buffers_) {
        ++salt;
        if (b.output || b.workspace) continue;
        // softmax inputs get a wider range so rows have a real maximum to subtract
        const float span = (w.kernel == KernelFamily::softmax) ? 8.0f : 1.0f;
        TS_TRY_ST(fill_uniform(b.data, b.elements, b.dtype, seed * 1315423911ULL + salt, -span, span));
    }
    TS_TRY_ST(r->poison_outputs(nullptr));
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return make_error(std::string("preparing inputs: ") + cudaGetErrorString(e));
    return r;
}

#undef TS_TRY_ST

}  // namespace tilescope::kern
