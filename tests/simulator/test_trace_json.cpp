// The trace is valid JSON (parsed back with Boost.JSON), with one complete event per block.
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <map>

#include "simulator/simulate.hpp"
#include "simulator/trace_json.hpp"
#include "sim_test_support.hpp"

using namespace tilescope;

TEST_CASE("trace JSON parses and holds every block once", "[sim][trace]") {
    const Hardware hw = test::test_gpu();
    test::SimpleLaunch s;
    s.blocks = 300;
    s.threads = 256;
    s.regs = 64;
    s.iterations = 4;
    s.load_bytes = 8192;
    s.fp32_flops = 1e5;
    s.store_bytes = 1024;
    const std::vector<Launch> launches = {test::make_simple_launch(s, "first \"quoted\""),
                                          test::make_simple_launch(s, "second")};
    auto p = sim::simulate(test::test_workload(), launches, hw, sim::Options{});
    REQUIRE(p.ok());
    const std::string text = sim::trace_json(*p);
    boost::system::error_code ec;
    const boost::json::value v = boost::json::parse(text, ec);
    REQUIRE_FALSE(ec);
    const auto& events = v.at("traceEvents").as_array();
    std::map<std::string, std::map<std::int64_t, int>> blocks_seen;  // launch -> block -> count
    int counters = 0, thread_names = 0;
    for (const auto& e : events) {
        const auto& o = e.as_object();
        const std::string ph(o.at("ph").as_string());
        const std::string name(o.at("name").as_string());
        if (ph == "X" && name.rfind("block ", 0) == 0) {
            const std::string cat(o.at("cat").as_string());
            blocks_seen[cat][o.at("args").at("block").as_int64()]++;
            CHECK(o.at("dur").to_number<double>() >= 0);
        }
        if (ph == "C") ++counters;
        if (ph == "M" && name == "thread_name") ++thread_names;
    }
    REQUIRE(blocks_seen.size() == 2);
    for (const auto& [launch, seen] : blocks_seen) {
        CHECK(seen.size() == 300);
        for (const auto& [block, count] : seen) CHECK(count == 1);
    }
    CHECK(counters > 4);
    CHECK(thread_names >= 1 + 132);  // "launches" + at least one slot per SM
}
