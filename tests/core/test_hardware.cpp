// Profile loading: every bundled profile loads; each broken field is reported with its JSON path.
#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include <fstream>
#include <sstream>

#include "core/hardware.hpp"

using namespace tilescope;
namespace json = boost::json;

namespace {

json::object bundled_json(const std::string& name) {
    std::ifstream in(profile_dir() + "/" + name + ".json");
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str()).as_object();
}

std::string parse_error(const json::object& o) {
    auto r = parse_hardware(json::serialize(o), "test.json");
    REQUIRE_FALSE(r.ok());
    return r.error().message;
}

}  // namespace

TEST_CASE("every bundled profile loads and is consistent", "[hardware]") {
    const auto names = list_bundled_profiles();
    for (const char* want : {"a100-40gb", "a100-80gb", "h100-sxm", "h200"}) {
        CHECK(std::find(names.begin(), names.end(), want) != names.end());
    }
    for (const auto& name : names) {
        INFO(name);
        auto hw = load_hardware(name);
        REQUIRE(hw.ok());
        CHECK(hw->sm_count > 0);
        CHECK(hw->sources.count("hbm_bandwidth_bytes_per_s") == 1);
        CHECK(hw->smem_carveout_steps_bytes.back() == hw->smem_per_sm_bytes);
    }
    auto a100 = load_hardware("a100-40gb");
    REQUIRE(a100.ok());
    CHECK(a100->sm_count == 108);
    CHECK(a100->smem_per_block_max_bytes == 166912);
    CHECK(a100->hbm_bandwidth_bytes_per_s == Approx(1.555e12));
    auto h100 = load_hardware("h100-sxm");
    REQUIRE(h100.ok());
    CHECK(h100->sm_count == 132);
    CHECK(h100->smem_per_block_max_bytes == 232448);
    CHECK(h100->smem_per_sm_bytes == 233472);
}

TEST_CASE("loading by path and unknown names", "[hardware]") {
    auto by_path = load_hardware(profile_dir() + "/h200.json");
    REQUIRE(by_path.ok());
    CHECK(by_path->name == "h200");
    auto unknown = load_hardware("b300");
    REQUIRE_FALSE(unknown.ok());
    CHECK_THAT(unknown.error().message, Catch::Contains("unknown GPU profile 'b300'") && Catch::Contains("a100-40gb"));
    auto missing = load_hardware("/nonexistent/x.json");
    REQUIRE_FALSE(missing.ok());
    CHECK_THAT(missing.error().message, Catch::Contains("cannot read profile file"));
    // A calibrated name that was never made (no A100 was calibrated) lists what there is.
    auto uncalibrated = load_hardware("calibrated/a100-40gb");
    REQUIRE_FALSE(uncalibrated.ok());
    CHECK_THAT(uncalibrated.error().message,
               Catch::StartsWith("unknown GPU profile 'calibrated/a100-40gb' (no bundled profile and no such file); "
                                 "available: ") &&
                   Catch::Contains("calibrated/h100-sxm"));
}

TEST_CASE("broken profile fields are reported with their JSON path", "[hardware]") {
    auto base = bundled_json("h100-sxm");
    {
        auto o = base;
        o["sm_count"].as_object()["value"] = -4;
        CHECK(parse_error(o) == "profile test.json: $.sm_count.value: must be a positive integer (got -4)");
    }
    {
        auto o = base;
        o.erase("l2_bytes");
        CHECK(parse_error(o) == "profile test.json: $.l2_bytes: missing field");
    }
    {
        auto o = base;
        o["smem_carveout_steps_bytes"].as_object()["value"] = json::array{0, 8192, 4096};
        CHECK_THAT(parse_error(o), Catch::StartsWith("profile test.json: $.smem_carveout_steps_bytes.value: must be ascending"));
    }
    {
        auto o = base;
        o["smem_per_block_max_bytes"].as_object()["value"] = 240000;
        CHECK(parse_error(o) ==
              "profile test.json: $.smem_per_block_max_bytes.value: 240000 exceeds smem_per_sm_bytes 233472");
    }
    {
        auto o = base;
        o["hbm_bytes"].as_object()["value"] = 80;  // GB typed as a count of bytes
        CHECK_THAT(parse_error(o), Catch::StartsWith("profile test.json: $.hbm_bytes.value: 80 must exceed l2_bytes 52428800"));
    }
    {
        auto o = base;
        o["register_allocation_unit"].as_object()["value"] = 7;
        CHECK(parse_error(o) == "profile test.json: $.register_allocation_unit.value: must be a power of two (got 7)");
    }
    {
        auto o = base;
        o["l1_smem_bytes_per_sm"].as_object()["value"] = 1000;
        CHECK_THAT(parse_error(o), Catch::StartsWith("profile test.json: $.l1_smem_bytes_per_sm.value: 1000 must be at "
                                                     "least smem_per_sm_bytes 233472"));
    }
    {
        auto o = base;
        o["sm_clock_hz"].as_object()["value"] = "fast";
        CHECK(parse_error(o) == "profile test.json: $.sm_clock_hz.value: must be a positive number (got \"fast\")");
    }
    {
        auto o = base;
        o["warp_size_threads"].as_object()["value"] = 1.5;
        CHECK_THAT(parse_error(o), Catch::StartsWith("profile test.json: $.warp_size_threads.value: must be a positive integer"));
    }
    {
        auto o = base;
        o["hbm_bytes"].as_object().erase("source");
        CHECK_THAT(parse_error(o), Catch::StartsWith("profile test.json: $.hbm_bytes.source: missing field"));
    }
    {
        auto o = base;
        o["sm_cout"] = 3;
        CHECK(parse_error(o) == "profile test.json: $.sm_cout: unknown field");
    }
    {
        auto o = base;
        o["calibration"] = json::object{{"hbm_efficiency", 1.5}};
        CHECK(parse_error(o) == "profile test.json: $.calibration.hbm_efficiency: must be a number in (0, 1] (got 1.5)");
    }
    {
        // A key stated twice: Boost.JSON would keep the last one silently.
        std::string text = json::serialize(base);
        const std::string first = "\"sm_count\":";
        const auto at = text.find(first);
        REQUIRE(at != std::string::npos);
        text.insert(at, "\"sm_count\":{\"value\":66,\"source\":\"typo\"},");
        auto r = parse_hardware(text, "dup.json");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message == "profile dup.json: $.sm_count: the key appears twice in its object (state it once)");
        auto with_cal = base;  // and inside a nested object
        with_cal["calibration"] = json::object{{"hbm_efficiency", 1}};
        std::string cal = json::serialize(with_cal);
        const std::string one = "{\"hbm_efficiency\":1}";
        const auto c = cal.find(one);
        REQUIRE(c != std::string::npos);
        cal.replace(c, one.size(), "{\"hbm_efficiency\":1,\"hbm_efficiency\":0.8}");
        auto rc = parse_hardware(cal, "dup.json");
        REQUIRE_FALSE(rc.ok());
        CHECK(rc.error().message ==
              "profile dup.json: $.calibration.hbm_efficiency: the key appears twice in its object (state it once)");
    }
    {
        auto r = parse_hardware("{ not json", "bad.json");
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.error().message, Catch::StartsWith("profile bad.json: $: not valid JSON at line 1, column 3 ("));
    }
}

TEST_CASE("calibration and provenance are read and hardware_to_json round-trips", "[hardware]") {
    auto base = bundled_json("a100-40gb");
    base["calibration"] = json::object{{"hbm_efficiency", 0.9}, {"launch_overhead_ns", 1500.0}};
    base["provenance"] = json::object{{"gpu", "NVIDIA A100"}, {"driver", 550}};
    auto hw = parse_hardware(json::serialize(base), "cal.json");
    REQUIRE(hw.ok());
    CHECK(hw->calibration.calibrated);
    CHECK(hw->calibration.hbm_efficiency == 0.9);
    CHECK(hw->calibration.launch_overhead_ns == 1500.0);
    CHECK(hw->calibration.l2_efficiency == 1.0);
    CHECK(hw->provenance.at("gpu") == "NVIDIA A100");
    CHECK(hw->provenance.at("driver") == "550");

    auto again = parse_hardware(hardware_to_json(*hw), "roundtrip.json");
    REQUIRE(again.ok());
    CHECK(again->sm_count == hw->sm_count);
    CHECK(again->smem_carveout_steps_bytes == hw->smem_carveout_steps_bytes);
    CHECK(again->l2_bandwidth_bytes_per_s == hw->l2_bandwidth_bytes_per_s);
    CHECK(again->sources == hw->sources);
    CHECK(again->calibration.hbm_efficiency == 0.9);
    CHECK(again->provenance == hw->provenance);
}

TEST_CASE("profile_status says whether a profile is calibrated and what validation recorded", "[hardware]") {
    // The bundled profiles: A100s never measured, the H100/H200 datasheet ones validated
    // uncalibrated, the calibrated ones with their held-out errors.
    for (const char* name : {"a100-40gb", "a100-80gb"}) {
        auto hw = load_hardware(name);
        REQUIRE(hw.ok());
        const std::string s = profile_status(*hw);
        CHECK(s.rfind("datasheet numbers, not calibrated; never compared with measurements", 0) == 0);
    }
    for (const char* name : {"h100-sxm", "h200"}) {
        auto hw = load_hardware(name);
        REQUIRE(hw.ok());
        const std::string s = profile_status(*hw);
        CHECK(s.rfind("datasheet numbers, not calibrated; held out on an H", 0) == 0);
        CHECK(s.find("use calibrated/") != std::string::npos);
    }
    for (const char* name : {"calibrated/h100-sxm", "calibrated/h200"}) {
        auto hw = load_hardware(name);
        REQUIRE(hw.ok());
        const std::string s = profile_status(*hw);
        CHECK(s.rfind("calibrated; held out on an H", 0) == 0);
        CHECK(s.find("time ") != std::string::npos);
    }
    // A calibrated profile without the entry says so; an empty entry counts as none.
    auto hw = load_hardware("calibrated/h100-sxm");
    REQUIRE(hw.ok());
    hw->provenance.erase("validated");
    CHECK(profile_status(*hw) == "calibrated; no held-out validation recorded (run `tilescope validate`)");
    hw->provenance["validated"] = "";
    CHECK(profile_status(*hw) == "calibrated; no held-out validation recorded (run `tilescope validate`)");
}

TEST_CASE("a profile edited after its validation does not claim the recorded errors", "[hardware]") {
    // Each bundled validated profile records the fingerprint it was validated with, and it is
    // the profile's own (a note changed in provenance does not change the fingerprint).
    for (const char* name : {"h100-sxm", "h200", "calibrated/h100-sxm", "calibrated/h200"}) {
        auto hw = load_hardware(name);
        REQUIRE(hw.ok());
        REQUIRE(hw->provenance.count("validated_fingerprint") == 1);
        CHECK(hw->provenance.at("validated_fingerprint") == profile_fingerprint(*hw));
        hw->provenance["note"] = "copied";
        CHECK(profile_fingerprint(*hw) == hw->provenance.at("validated_fingerprint"));
        CHECK(profile_status(*hw).find("held out on an H") != std::string::npos);
        // A copy with one calibrated value or one hardware number changed is edited.
        auto edited = *hw;
        edited.calibration.block_overhead_ns += 1;
        edited.hbm_bandwidth_bytes_per_s *= 1.01;
        const std::string s = profile_status(edited);
        CHECK(s.find("held out on an H") == std::string::npos);
        CHECK(s.find("edited since it was validated") != std::string::npos);
        CHECK(s.find(hw->provenance.at("validated_fingerprint")) != std::string::npos);
    }
}

TEST_CASE("a profile value no GPU has (in the wrong unit, a typo) is refused with its range", "[hardware]") {
    auto base = load_hardware("calibrated/h100-sxm");
    REQUIRE(base.ok());
    const std::string text = hardware_to_json(*base);
    struct Bad {
        const char* field;
        const char* value;
        const char* says;
    };
    // A positive field's range does not offer 0; a range from 0 is stated as its upper end.
    for (const Bad& b : {Bad{"hbm_bandwidth_bytes_per_s", "1e-300", "must be in [1e+06, 1e+18] per second"},
                         // GB/s typed as B/s, seconds typed as ns: the user's unit mistakes.
                         Bad{"hbm_bandwidth_bytes_per_s", "3350", "must be in [1e+06, 1e+18] per second"},
                         Bad{"l2_latency_ns", "2.3e-7", "must be in [0.01, 1e+09] ns"},
                         Bad{"sm_clock_hz", "0.5", "must be in [1e+06, 1e+18] per second"},
                         Bad{"hbm_latency_ns", "1e308", "must be in [0.01, 1e+09] ns"},
                         Bad{"kernel_launch_latency_ns", "1e12", "must be 0 or in [0.01, 1e+09] ns"},
                         Bad{"kernel_launch_latency_ns", "3e-6", "must be 0 or in [0.01, 1e+09] ns"},
                         Bad{"smem_bandwidth_bytes_per_cycle_per_sm", "1e-300", "must be in [1, 1e+09] per cycle"},
                         Bad{"smem_bandwidth_bytes_per_cycle_per_sm", "0.001", "must be in [1, 1e+09] per cycle"},
                         // Integer facts: a huge SM count would have the simulator allocate
                         // tables per SM until it runs out of memory.
                         Bad{"sm_count", "100000000", "must be at most 4096 (got 100000000)"},
                         Bad{"max_blocks_per_sm", "2147483647", "must be at most 512"},
                         Bad{"l2_bytes", "1099511627776", "must be at most 17179869184"}}) {
        INFO(b.field);
        json::value v = json::parse(text);
        v.as_object()[b.field].as_object()["value"] = json::parse(b.value);
        auto hw = parse_hardware(json::serialize(v), "bad.json");
        REQUIRE_FALSE(hw.ok());
        CHECK(hw.error().message.find(std::string("profile bad.json: $.") + b.field + ".value: " + b.says) == 0);
        CHECK(hw.error().message.find("is the unit right?") != std::string::npos);
    }
    for (const Bad& b : {Bad{"warp_iteration_ns", "1e308", "must be 0 or in [0.01, 1e+09] ns"},
                         Bad{"launch_overhead_ns", "3e-6", "must be 0 or in [0.01, 1e+09] ns"},
                         Bad{"tensor_efficiency", "1e-308", "must be in [1e-06, 1] of peak"},
                         Bad{"load_latency_ns_per_byte", "1e9", "must be at most 1e+06"},
                         Bad{"fragment_store_bytes_per_s", "1", "must be 0 or in [1e+06, 1e+18] per second"}}) {
        INFO(b.field);
        json::value v = json::parse(text);
        v.as_object()["calibration"].as_object()[b.field] = json::parse(b.value);
        auto hw = parse_hardware(json::serialize(v), "bad.json");
        REQUIRE_FALSE(hw.ok());
        CHECK(hw.error().message.find(std::string("profile bad.json: $.calibration.") + b.field + ": " + b.says) == 0);
    }
}
