// Measurement harness checks: the streaming copy is exact, CUPTI's HBM bytes of a streaming
// copy of X bytes are X read and X written (within 2%), and measure() fills every metric.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cmath>
#include <vector>

#include "kernels/common/fill.hpp"
#include "kernels/measure/cupti_profiler.hpp"
#include "kernels/measure/measure.hpp"
#include "kernels/microbench/microbench.hpp"

using namespace tilescope;

TEST_CASE("streaming copy copies every byte", "[microbench]") {
    const std::int64_t bytes = 3 << 20;
    void* a = nullptr;
    void* b = nullptr;
    REQUIRE(cudaMalloc(&a, bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&b, bytes) == cudaSuccess);
    REQUIRE(kern::fill_uniform(a, bytes / 2, DType::fp16, 21, -1, 1).ok());
    REQUIRE(kern::fill_nan(b, bytes / 2, DType::fp16).ok());
    REQUIRE(kern::launch_copy(a, b, bytes, nullptr).ok());
    std::vector<unsigned char> ha(bytes), hb(bytes);
    REQUIRE(cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(ha == hb);
    cudaFree(a);
    cudaFree(b);
}

TEST_CASE("launch overhead: an empty kernel times in microseconds, without the busy kernel before it", "[microbench]") {
    auto r = kern::bench_launch_overhead(20);
    REQUIRE(r.ok());
    CHECK(r->name == "launch_overhead");
    CHECK(r->unit == "ns");
    // The busy kernel it is queued behind runs ~50 us; the H100 measured 3.0-3.2 us.
    CHECK(r->value > 200);
    CHECK(r->value < 20000);
}

TEST_CASE("CUPTI: a streaming copy of X bytes reads and writes X bytes of HBM within 2%", "[cupti]") {
    const kern::GpuCheck g = kern::check_gpu(true);
    if (g.state == kern::GpuState::no_permission) {
        WARN("skipped: " << g.message);
        return;
    }
    REQUIRE(g.state == kern::GpuState::ok);
    const std::int64_t bytes = 512LL << 20;  // far larger than L2
    void* a = nullptr;
    void* b = nullptr;
    REQUIRE(cudaMalloc(&a, bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&b, bytes) == cudaSuccess);
    REQUIRE(kern::fill_uniform(a, bytes / 2, DType::fp16, 22, -1, 1).ok());
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    auto prof = kern::RangeProfiler::create({"dram__bytes_read.sum", "dram__bytes_write.sum"}, 4);
    REQUIRE(prof.ok());
    auto r = (*prof)->profile([&] { return kern::launch_copy(a, b, bytes, nullptr); });
    if (!r) FAIL(r.error().message);
    REQUIRE(r->size() == 1);
    const double rd = (*r)[0].values[0], wr = (*r)[0].values[1];
    INFO("read " << rd << " write " << wr << " expected " << bytes);
    CHECK(std::fabs(rd - static_cast<double>(bytes)) <= 0.02 * static_cast<double>(bytes));
    CHECK(std::fabs(wr - static_cast<double>(bytes)) <= 0.02 * static_cast<double>(bytes));
    cudaFree(a);
    cudaFree(b);
}

TEST_CASE("measure() returns one launch per kernel with finite metrics", "[measure]") {
    Workload w;
    w.kernel = KernelFamily::attention_naive;
    w.batch = 1;
    w.heads = 4;
    w.seq_q = w.seq_kv = 512;
    w.head_dim = 64;
    w.tile = Tile{128, 128, 32, 2, 8};
    kern::MeasureOptions o;
    o.repeats = 3;
    o.counters = kern::check_gpu(true).state == kern::GpuState::ok;
    auto m = kern::measure(w, o);
    if (!m) FAIL(m.error().message);
    REQUIRE(m->launches.size() == 3);
    CHECK(m->model == "measured");
    CHECK(m->launches[0].name == "attention-naive:qk");
    CHECK(m->launches[2].name == "attention-naive:pv");
    CHECK(m->total[Metric::gpu_time_duration] > 0);
    CHECK(m->provenance.count("gpu_name") == 1);
    if (o.counters) {
        // S is 4*512*512*2 B = 2 MiB written by qk; the counters must see at least that much.
        CHECK(m->launches[0].metrics[Metric::dram_bytes_write] + m->launches[0].metrics[Metric::lts_t_bytes] > 2e6);
        CHECK(m->launches[0].metrics[Metric::flops_tensor] >= 4.0 * 512 * 512 * 64 * 2 * 0.99);
        CHECK(std::isfinite(m->total[Metric::smem_bytes_read]));
    }
}
