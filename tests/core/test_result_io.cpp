// result_io: JSON round trip, CSV shape (one header row, same column count), table content.
#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include "core/analytic.hpp"
#include "core/hardware.hpp"
#include "core/lower.hpp"
#include "core/result_io.hpp"

using namespace tilescope;

namespace {
Prediction sample(const char* kernel) {
    WorkloadSpec s;
    s.kernel = kernel;
    s.batch = 2;
    s.seq = 1000;
    if (std::string(kernel) == "gemm" || std::string(kernel) == "softmax") {
        s.batch.reset();
        s.seq.reset();
    }
    auto w = make_workload(s);
    REQUIRE(w.ok());
    auto hw = load_hardware("a100-80gb");
    REQUIRE(hw.ok());
    auto l = lower(*w, *hw);
    REQUIRE(l.ok());
    return analytic(*w, *l, *hw);
}
std::size_t count(const std::string& s, char c) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), c)); }
}  // namespace

TEST_CASE("JSON round trip keeps workload, facts and metrics", "[result_io]") {
    for (const char* k : {"attention-naive", "attention-flash1", "attention-flash2", "gemm", "softmax"}) {
        INFO(k);
        const Prediction p = sample(k);
        const std::string text = to_json(p);
        auto parsed = boost::json::parse(text);
        CHECK(parsed.at("model").as_string() == "analytic");
        CHECK(parsed.at("total").at("metrics").at("dram__bytes_read.sum").is_number());
        auto back = prediction_from_json(text);
        REQUIRE(back.ok());
        CHECK(describe(back->workload) == describe(p.workload));
        CHECK(back->gpu == "a100-80gb");
        CHECK(back->bound == p.bound);
        REQUIRE(back->launches.size() == p.launches.size());
        for (std::size_t i = 0; i < p.launches.size(); ++i) {
            CHECK(back->launches[i].name == p.launches[i].name);
            CHECK(back->launches[i].facts.grid_x == p.launches[i].facts.grid_x);
            CHECK(back->launches[i].facts.blocks_per_sm == p.launches[i].facts.blocks_per_sm);
            for (std::size_t m = 0; m < kMetricCount; ++m)
                CHECK(back->launches[i].metrics.values[m] == Approx(p.launches[i].metrics.values[m]));
        }
        for (std::size_t m = 0; m < kMetricCount; ++m) CHECK(back->total.values[m] == Approx(p.total.values[m]));
    }
    CHECK_FALSE(prediction_from_json("[1,2]").ok());
    CHECK_FALSE(prediction_from_json("{\"workload\": {\"kernel\": \"nope\"}}").ok());
    // A workload value out of range names its JSON field (the check itself speaks in flags).
    auto zero = prediction_from_json(R"({"workload": {"kernel": "gemm", "m": 0, "n": 64, "k": 64}})");
    REQUIRE_FALSE(zero.ok());
    CHECK_THAT(zero.error().message, Catch::StartsWith("prediction JSON: $.workload.m: --m must be in [1, "));
    auto tile = prediction_from_json(R"({"workload": {"kernel": "gemm", "tile_m": 96}})");
    REQUIRE_FALSE(tile.ok());
    CHECK_THAT(tile.error().message, Catch::StartsWith("prediction JSON: $.workload.tile_m: --tile-m must be a power of two"));
}

TEST_CASE("CSV: one header row, rows with the same number of cells", "[result_io]") {
    const std::string header = csv_header();
    CHECK(header.find('\n') == std::string::npos);
    CHECK(header.rfind("kernel,dtype,", 0) == 0);
    CHECK(header.find("dram__bytes_read.sum") != std::string::npos);
    for (const char* k : {"attention-naive", "gemm", "softmax"}) {
        const std::string row = csv_row(sample(k));
        CHECK(count(row, ',') == count(header, ','));
        CHECK(row.substr(row.size() - 4) == ",ok,");
    }
    WorkloadSpec bad;
    bad.kernel = "gemm";
    bad.tile_m = 3;
    const std::string illegal = csv_row_illegal(bad, "analytic", "h100-sxm", "--tile-m must be a power of two, really");
    CHECK(count(illegal, ',') == count(header, ',') + 1);  // one comma inside the quoted reason
    CHECK(illegal.find(",illegal,\"--tile-m must be a power of two, really\"") != std::string::npos);
    auto line = boost::json::parse(json_line_illegal(bad, "analytic", "h100-sxm", "x"));
    CHECK(line.at("status").as_string() == "illegal");
    CHECK(line.at("workload").at("tile_m").as_int64() == 3);
}

TEST_CASE("table lists launches and metrics", "[result_io]") {
    const std::string t = to_table(sample("attention-naive"));
    CHECK(t.find("attention-naive:qk") != std::string::npos);
    CHECK(t.find("attention-naive:softmax") != std::string::npos);
    CHECK(t.find("dram__bytes_read.sum") != std::string::npos);
    CHECK(t.find("total") != std::string::npos);
    CHECK(format_metric(Metric::dram_bytes_read, 268435456.0) == "268 MB");
    CHECK(format_metric(Metric::gpu_time_duration, 1234567.0) == "1.235 ms");
    // No coalescer output, no coalescer row.
    CHECK(t.find("l2_coalesced_bytes") == std::string::npos);
}

TEST_CASE("table shows the L2 request coalescer's merged bytes when a launch reports them", "[result_io]") {
    Prediction p = sample("attention-naive");
    p.launches.at(0).extra["l2_coalesced_bytes"] = 2.5e6;
    p.launches.at(2).extra["l2_coalesced_bytes"] = 1.5e6;
    const std::string t = to_table(p);
    const auto row = t.find("l2_coalesced_bytes");
    REQUIRE(row != std::string::npos);
    const std::string line = t.substr(row, t.find('\n', row) - row);
    CHECK(line.find("2.5 MB") != std::string::npos);
    CHECK(line.find("-") != std::string::npos);  // the softmax launch reports none
    CHECK(line.find("4 MB") != std::string::npos);  // the total
}

TEST_CASE("table names the launches the simulator ran coarsened, and only those", "[result_io]") {
    Prediction p = sample("attention-naive");
    CHECK(to_table(p).find("coarsened") == std::string::npos);  // no simulator extras: no line
    p.launches.at(0).extra["sim_iterations_per_phase"] = 1.0;   // exact run: no line either
    CHECK(to_table(p).find("coarsened") == std::string::npos);
    p.launches.at(2).extra["sim_iterations_per_phase"] = 3.0;
    const std::string t = to_table(p);
    const auto at = t.find("coarsened (loop iterations per simulated phase): ");
    REQUIRE(at != std::string::npos);
    const std::string line = t.substr(at, t.find('\n', at) - at);
    CHECK(line.find("attention-naive:pv 3") != std::string::npos);
    CHECK(line.find("attention-naive:qk") == std::string::npos);
    CHECK(line.find("--exact") != std::string::npos);
}
