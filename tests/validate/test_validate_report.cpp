#include <catch2/catch.hpp>

#include <limits>

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "core/metrics.hpp"
#include "core/result_io.hpp"
#include "validate/dataset.hpp"
#include "validate/report_format.hpp"
#include "validate/validate.hpp"

using namespace tilescope;
using namespace tilescope::validate;

namespace {

Workload gemm(int64_t m, int tm, int tn) {
    Workload w;
    w.kernel = KernelFamily::gemm;
    w.dtype = DType::fp16;
    w.m = m;
    w.n = m;
    w.k = m;
    w.tile = Tile{tm, tn, 32, 3, 8};
    return w;
}

Measurement measured(const Workload& w, double hbm_read, double hbm_write, double l2, double t_ns) {
    Measurement m;
    m.model = "measured";
    m.workload = w;
    m.gpu = "h100-sxm";
    m.total.values.fill(NAN);
    m.total[Metric::dram_bytes_read] = hbm_read;
    m.total[Metric::dram_bytes_write] = hbm_write;
    m.total[Metric::lts_t_bytes] = l2;
    m.total[Metric::gpu_time_duration] = t_ns;
    return m;
}

// A data set of tile sweeps over a few GEMM sizes; measured time depends on the tile.
Dataset synthetic() {
    Dataset d;
    d.origin = "synthetic";
    for (int64_t m : {1024, 2048, 3072, 4096, 5120, 6144}) {
        for (int tm : {64, 128}) {
            for (int tn : {64, 128, 256}) {
                Case c;
                c.measured = measured(gemm(m, tm, tn), 1e6 * double(m), 2e5 * double(m), 3e6 * double(m),
                                      1000.0 * double(m) / double(tm) * (1.0 + 64.0 / tn));
                c.name = case_name(c.measured.workload);
                c.key = sweep_key(c.measured.workload);
                c.split = split_of(c.measured.workload);
                d.cases.push_back(c);
            }
        }
    }
    return d;
}

Hardware hw() {
    Hardware h;
    h.name = "h100-sxm";
    return h;
}

// Predicts the measurement scaled by `factor`, optionally reversing the time order in a sweep.
Predictor scaled(const Dataset& d, double bytes_factor, double time_factor, bool scramble) {
    std::map<std::string, Measurement> by_name;
    for (const auto& c : d.cases) by_name[c.name] = c.measured;
    return [by_name, bytes_factor, time_factor, scramble](const Workload& w, const Hardware&) -> Result<Prediction> {
        if (w.m == 6144 && w.tile.m == 64 && w.tile.n == 64) return make_error("tile not supported by model");
        Prediction p = by_name.at(case_name(w));
        p.model = "test";
        for (const Metric q : {Metric::dram_bytes_read, Metric::dram_bytes_write, Metric::lts_t_bytes})
            p.total[q] *= bytes_factor;
        double t = p.total[Metric::gpu_time_duration] * time_factor;
        if (scramble) t = 1e9 / t;  // reverses every sweep's order
        p.total[Metric::gpu_time_duration] = t;
        return p;
    };
}

// `d` less the one case that scaled() cannot predict.
Dataset predictable(Dataset d) {
    d.cases.erase(std::remove_if(d.cases.begin(), d.cases.end(),
                                 [](const Case& c) {
                                     const Workload& w = c.measured.workload;
                                     return w.m == 6144 && w.tile.m == 64 && w.tile.n == 64;
                                 }),
                  d.cases.end());
    return d;
}

}  // namespace

TEST_CASE("validate: exact predictions pass every target", "[validate][report]") {
    const Dataset d = synthetic();
    auto r = run_validation(d, hw(), "test", scaled(d, 1.0, 1.0, false), {SplitFilter::all, 2, {}});
    REQUIRE(r.ok());
    CHECK(r->cases.size() == 36);
    // the one case the model cannot predict is kept with its reason
    int failed = 0;
    for (const auto& c : r->cases) failed += c.error.empty() ? 0 : 1;
    CHECK(failed == 1);
    CHECK(r->all.quantities[0].usable == 35);
    CHECK(r->all.quantities[0].unusable == 1);
    CHECK(r->all.quantities[0].errors.mape == Approx(0).margin(1e-12));
    CHECK(r->all.spearman_mean == Approx(1.0));
    CHECK(r->all.regret_mean == Approx(0).margin(1e-12));
    for (const auto& b : r->all.pair_order)
        if (b.pairs > 0) CHECK(b.right == Approx(static_cast<double>(b.pairs)));
    CHECK(r->all.order_resolution95 == Approx(0.01));
    CHECK(r->sweeps.size() == 6);
    CHECK(r->heldout.sweeps_ranked + r->train.sweeps_ranked == 6);
    // Every target is met, but the case left out of the figures fails the check that every case
    // was predicted, with its name and reason: nothing passes without it.
    const auto every = std::find_if(r->checks.begin(), r->checks.end(),
                                    [](const Check& c) { return c.what.rfind("every case predicted", 0) == 0; });
    REQUIRE(every != r->checks.end());
    CHECK_FALSE(every->pass);
    CHECK_THAT(every->what, Catch::Contains("1 of 36 not (first: ") && Catch::Contains("tile not supported by model"));
    CHECK(check_line(*every).find("FAIL") == 0);
    // A figure with no data (no held-out tile sweep) is N/A with the reason, not a FAIL, and the
    // report does not call it a missed target; it is not a pass either.
    Check rho{"held-out mean Spearman (time, per tile sweep)", std::numeric_limits<double>::quiet_NaN(), 0.9, false, false};
    rho.id = "spearman_mean";
    const std::string na_line = "N/A   held-out mean Spearman (time, per tile sweep) = n/a (target >= 0.90): no held-out "
                                "tile sweep gives this figure (none in these measurements, or every one's tiles predicted "
                                "alike)";
    CHECK(check_line(rho) == na_line);
    Report na;
    na.checks = {rho};
    na.pass = false;
    CHECK(report_table(na).find("TARGETS NOT ALL CHECKED (N/A: no data for them)") != std::string::npos);
    CHECK(report_table(na).find("TARGETS MISSED") == std::string::npos);
    // With a recorded baseline it is not "worse" than the recorded figure, nor a regression.
    REQUIRE(apply_baseline(na, "{\"recorded\": {\"spearman_mean\": 0.885}}", "b.json").ok());
    CHECK(check_line(na.checks[0]) == na_line);
    CHECK_FALSE(na.pass_with_baseline);
    CHECK(report_table(na).find("REGRESSION") == std::string::npos);
    CHECK(report_table(na).find("no regression in the figures that could be checked against the recorded baseline "
                                "b.json (the N/A ones could not)") != std::string::npos);
    for (const auto& c : r->checks)
        if (!c.id.empty() && r->heldout.sweeps_ranked > 0) CHECK(c.pass);
    CHECK_FALSE(r->pass);
    // Without that case every check passes.
    auto all = run_validation(predictable(d), hw(), "test", scaled(d, 1.0, 1.0, false), {SplitFilter::all, 2, {}});
    REQUIRE(all.ok());
    CHECK(all->cases.size() == 35);
    for (const auto& c : all->checks) CHECK(c.pass);
    if (all->heldout.sweeps_ranked > 0) CHECK(all->pass);
}

TEST_CASE("validate: biased bytes and reversed ranking fail the right checks", "[validate][report]") {
    const Dataset d = synthetic();
    auto r = run_validation(d, hw(), "test", scaled(d, 1.08, 1.0, true), {SplitFilter::heldout, 1, {}});
    REQUIRE(r.ok());
    CHECK(r->all.quantities[static_cast<std::size_t>(Quantity::hbm_bytes)].errors.mape == Approx(0.08));
    CHECK(r->all.quantities[static_cast<std::size_t>(Quantity::lts_bytes)].errors.mape == Approx(0.08));
    CHECK(r->all.spearman_mean == Approx(-1.0));
    CHECK(r->all.regret_mean > 0.5);
    // every pair of every sweep is ordered wrong: no order resolution
    double right = 0;
    std::size_t pairs = 0;
    for (const auto& b : r->all.pair_order) {
        right += b.right;
        pairs += b.pairs;
    }
    CHECK(pairs == 6 * 15 - 5);  // six sweeps of 6 tiles, one with a failed prediction (5 tiles)
    CHECK(right == 0.0);
    CHECK(std::isnan(r->all.order_resolution95));
    CHECK(r->all.spearman_ci95.lo == Approx(-1.0));  // every sweep reversed: no spread
    CHECK(r->all.spearman_ci95.hi == Approx(-1.0));
    CHECK(r->all.regret_ci95.lo <= r->all.regret_mean);
    CHECK(r->all.regret_mean <= r->all.regret_ci95.hi);
    CHECK_FALSE(r->pass);
    std::map<std::string, bool> pass;
    for (const auto& c : r->checks) pass[c.what] = c.pass;
    CHECK_FALSE(pass.at("held-out hbm_bytes MAPE"));   // 8 % > 5 %
    CHECK(pass.at("held-out lts_bytes MAPE"));         // 8 % <= 10 %
    CHECK_FALSE(pass.at("held-out mean Spearman (time, per tile sweep)"));
}

TEST_CASE("report formats: JSON parses, table and Markdown carry the checks, plots are written",
          "[validate][report]") {
    const Dataset d = synthetic();
    auto r = run_validation(d, hw(), "test", scaled(d, 1.02, 1.03, false), {SplitFilter::all, 1, {}});
    REQUIRE(r.ok());
    const auto j = boost::json::parse(report_json(*r));
    REQUIRE(j.is_object());
    CHECK(j.as_object().at("cases").as_array().size() == 36);
    CHECK(j.at("summary").at("all").at("quantities").at("time").at("mape").as_double() ==
          Approx(0.03));
    // every case is 3 % off in time, so the bootstrap interval of the MAPE is exactly 3 %
    const auto& ci = j.at("summary").at("all").at("quantities").at("time").at("mape_ci95").as_array();
    CHECK(ci.at(0).as_double() == Approx(0.03));
    CHECK(ci.at(1).as_double() == Approx(0.03));
    CHECK(j.at("summary").at("all").at("spearman_mean_ci95").as_array().at(1).as_double() == Approx(1.0));
    // pairwise order by predicted gap: every bin of the default edges, the last open-ended
    const auto& bins = j.at("summary").at("all").at("pair_order_by_predicted_gap").as_array();
    CHECK(bins.size() == default_gap_edges().size());
    CHECK(bins.back().at("gap_hi").is_null());
    CHECK(j.at("summary").at("all").at("order_resolution95").as_double() == Approx(0.01));
    const std::string t = report_table(*r);
    CHECK(t.find("held-out hbm_bytes MAPE") != std::string::npos);
    CHECK(t.find("tile pairs ordered right") != std::string::npos);
    // Named after the process: ctest runs tests side by side (the presets' jobs), and clones too.
    const auto dir = std::filesystem::temp_directory_path() / ("tilescope_validate_test_plots" + std::to_string(getpid()));
    auto files = write_plots(*r, dir.string());
    REQUIRE(files.ok());
    CHECK(files->size() == kQuantityCount);
    for (const auto& f : *files) CHECK(std::filesystem::file_size(dir / f) > 1000);
    const std::string md = report_markdown(*r, *files);
    CHECK(md.find("| held-out hbm_bytes MAPE | 2.00% | <= 5.00% | pass |") != std::string::npos);
    CHECK(md.find("![scatter_time.png](scatter_time.png)") != std::string::npos);
    CHECK(md.find("| 95% resolution |") != std::string::npos);
    CHECK(md.find("| all | 85 |") != std::string::npos);  // 85 usable tile pairs
    std::filesystem::remove_all(dir);
}

TEST_CASE("dataset: microbench, failed rows, comments and errors by line", "[validate][dataset]") {
    const std::string text =
        "# comment\n"
        "\n"
        "{\"microbench\":\"hbm_bandwidth\",\"value\":3.0e12,\"unit\":\"bytes_per_s\"}\n"
        "{\"status\":\"illegal\",\"reason\":\"tile 256x256 needs too much shared memory\"}\n";
    auto d = parse_dataset(text, "x.jsonl");
    REQUIRE(d.ok());
    CHECK(d->cases.empty());
    CHECK(microbench_value(*d, "hbm_bandwidth") == 3.0e12);
    CHECK(std::isnan(microbench_value(*d, "l2_bandwidth")));
    REQUIRE(d->skipped.size() == 1);
    CHECK(d->skipped[0].find("line 4: illegal") == 0);
    auto bad = parse_dataset("{\"microbench\":\"x\",\"value\":-1}\n", "y.jsonl");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("y.jsonl:1") == 0);
    CHECK_FALSE(parse_dataset("not json\n", "z").ok());
}

TEST_CASE("dataset: measurement lines round-trip through core's JSON", "[validate][dataset]") {
    const Measurement m = measured(gemm(2048, 128, 128), 1e7, 2e6, 3e7, 12345.0);
    const std::string line = to_json(m);
    std::string one_line;
    for (char c : line)
        if (c != '\n') one_line += c;
    auto d = parse_dataset(one_line + "\n", "m.jsonl");
    REQUIRE(d.ok());
    REQUIRE(d->cases.size() == 1);
    CHECK(d->skipped.empty());
    // A pretty-printed measurement cut short says where the document breaks, not "line 1".
    REQUIRE(line.find('\n') != std::string::npos);
    const std::string cut = line.substr(0, line.size() / 2);
    const auto lines_in_cut = std::count(cut.begin(), cut.end(), '\n');
    auto broken = parse_dataset(cut, "pretty.json");
    REQUIRE_FALSE(broken.ok());
    CHECK_THAT(broken.error().message,
               Catch::StartsWith("pretty.json: not valid JSON at line " + std::to_string(lines_in_cut + 1) + ", column ") &&
                   Catch::Contains("(read as one JSON document; as JSON Lines, line 1 is no object either)"));
    // The same case twice is refused, naming both lines: one copy would be scored, silently.
    auto twice = parse_dataset(one_line + "\n" + one_line + "\n", "m.jsonl");
    REQUIRE_FALSE(twice.ok());
    CHECK(twice.error().message.find("m.jsonl:2: case " + case_name(m.workload) + " repeats line 1") == 0);
    CHECK(d->cases[0].name == case_name(m.workload));
    CHECK(quantity_of(d->cases[0].measured, Quantity::time) == Approx(12345.0));
    CHECK(quantity_of(d->cases[0].measured, Quantity::hbm_bytes) == Approx(1.2e7));
}

TEST_CASE("dataset: a wrong type, a non-integer size, an unknown field or a bad metric is an error naming it",
          "[validate][dataset]") {
    const Measurement m = measured(gemm(2048, 128, 128), 1e7, 2e6, 3e7, 12345.0);
    std::string line = to_json_line(m);
    while (!line.empty() && line.back() == '\n') line.pop_back();
    REQUIRE(parse_dataset(line + "\n", "ok.jsonl").ok());
    auto expect_error = [&](const std::string& from, const std::string& to, const std::string& says) {
        std::string edited = line;
        const auto at = edited.find(from);
        REQUIRE(at != std::string::npos);
        edited.replace(at, from.size(), to);
        auto d = parse_dataset(edited + "\n", "bad.jsonl");
        INFO("replaced " << from << " with " << to);
        REQUIRE_FALSE(d.ok());
        INFO(d.error().message);
        CHECK(d.error().message.find("bad.jsonl:1") == 0);
        CHECK(d.error().message.find(says) != std::string::npos);
    };
    expect_error("\"m\":2048", "\"m\":\"2048\"", "$.workload.m: must be an integer (got \"2048\")");
    expect_error("\"m\":2048", "\"m\":2048.7", "$.workload.m: must be an integer");
    expect_error("\"m\":2048", "\"m\":null", "$.workload.m: must be an integer (got null)");
    expect_error("\"tile_m\":128", "\"tile_m\":\"64\"", "$.workload.tile_m: must be an integer");
    expect_error("\"persistent\":false", "\"persistent\":\"yes\"", "$.workload.persistent: must be true or false");
    expect_error("\"m\":2048", "\"m\":2048,\"mm\":1", "$.workload.mm: unknown field");
    expect_error("\"gpu__time_duration.sum\":12345", "\"gpu__time_duration.sum\":\"x\"",
                 ".metrics.gpu__time_duration.sum: must be a number >= 0 or null (got \"x\")");
    expect_error("\"dram__bytes_read.sum\":10000000", "\"dram__bytes_read.sum\":-5",
                 ".metrics.dram__bytes_read.sum: must be a number >= 0 or null (got -5)");
    expect_error("\"gpu__time_duration.sum\":12345", "\"gpu__time_duration.sum\":0",
                 "$.total.metrics.gpu__time_duration.sum: a measured time must be at least 1 ns (got 0)");
    expect_error("\"gpu__time_duration.sum\":12345", "\"gpu__time_duration.sum\":1E-305",
                 "gpu__time_duration.sum: a measured time must be at least 1 ns (got 1e-305)");
    expect_error("\"gpu__time_duration.sum\":12345", "\"gpu__time_duration.sum\":null",
                 "$.total.metrics.gpu__time_duration.sum: a measurement needs a time (got null)");
    expect_error("\"dram__bytes_read.sum\":10000000", "\"dram__bytes_read.sum\":1E-308",
                 "$.total.metrics.dram__bytes_read.sum: a byte count is 0 or at least 1");
    // a workload field its family uses, left out, is not predicted at its default
    expect_error("\"m\":2048,", "", "$.workload.m: missing (a measurement states every field of its workload");
    expect_error("\"launches\":[", "\"launches\":\"abc\",\"was_launches\":[", "$.launches must be an array");
    expect_error("\"status\":\"ok\"", "\"status\":0", "$.status must be a string");
    // a key stated twice (the JSON reader would keep the last one silently)
    expect_error("\"gpu__time_duration.sum\":12345", "\"gpu__time_duration.sum\":12345,\"gpu__time_duration.sum\":99",
                 ".metrics.gpu__time_duration.sum: the key appears twice in its object");
    expect_error("\"m\":2048", "\"m\":2048,\"m\":4096", "$.workload.m: the key appears twice in its object");
    // A total that is not the sum of its launches' counters (any error size could follow).
    Measurement two = m;
    LaunchResult l1, l2;
    l1.name = "a";
    l2.name = "b";
    l1.metrics = m.total;
    l2.metrics = m.total;
    for (const Metric b : {Metric::dram_bytes_read, Metric::dram_bytes_write, Metric::lts_t_bytes}) {
        l1.metrics[b] = 0.25 * m.total[b];
        l2.metrics[b] = 0.75 * m.total[b];
    }
    two.launches = {l1, l2};
    std::string ok = to_json_line(two);
    REQUIRE(parse_dataset(ok, "sum.jsonl").ok());
    two.total[Metric::lts_t_bytes] = 123;
    auto bad = parse_dataset(to_json_line(two), "sum.jsonl");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message == "sum.jsonl:1: $.total.metrics.lts__t_bytes.sum = 123 is not the sum of its launches' (3e+07)");
}

TEST_CASE("dataset: one measurement as `measure --format json` writes it, or an array of them", "[validate][dataset]") {
    const Measurement a = measured(gemm(2048, 128, 128), 1e7, 2e6, 3e7, 12345.0);
    const Measurement b = measured(gemm(2048, 64, 128), 1e7, 2e6, 3e7, 23456.0);
    const std::string pretty = to_json(a);
    REQUIRE(std::count(pretty.begin(), pretty.end(), '\n') > 2);  // several lines, one object
    auto one = parse_dataset(pretty, "flash2.json");
    REQUIRE(one.ok());
    REQUIRE(one->cases.size() == 1);
    CHECK(quantity_of(one->cases[0].measured, Quantity::time) == Approx(12345.0));
    auto two = parse_dataset("[" + pretty + ",\n" + to_json(b) + "]\n", "sweep.json");
    REQUIRE(two.ok());
    CHECK(two->cases.size() == 2);
    // an element that is not a measurement is named by its position
    auto bad = parse_dataset("[" + pretty + ", {\"model\": \"sim\"}]", "mixed.json");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("mixed.json:2") == 0);
    // the same in a whole-file measurement, which is reformatted to lines (that would drop one)
    std::string twice = pretty;
    const auto brace = twice.find('{');
    REQUIRE(brace != std::string::npos);
    twice.insert(brace + 1, "\"model\": \"measured\",");
    auto dup = parse_dataset(twice, "dup.json");
    REQUIRE_FALSE(dup.ok());
    CHECK(dup.error().message == "dup.json: $.model: the key appears twice in its object (state it once)");
    // a multi-line file that is not one JSON value is refused with where the document breaks
    auto broken = parse_dataset(pretty.substr(0, pretty.size() / 2), "cut.json");
    REQUIRE_FALSE(broken.ok());
    CHECK(broken.error().message.find("cut.json: not valid JSON at line ") == 0);
}

#include "validate/prediction_cache.hpp"

TEST_CASE("stored predictions: round trip, reproduction check passes, a changed model fails it",
          "[validate][cache]") {
    const Dataset d = synthetic();
    const Hardware h = hw();
    auto fresh = run_validation(d, h, "test", scaled(d, 1.02, 1.03, false), {SplitFilter::all, 1, {}});
    REQUIRE(fresh.ok());
    const std::string text = prediction_cache_jsonl(*fresh, profile_fingerprint(h));
    auto cache = parse_prediction_cache(text, "cache.jsonl");
    REQUIRE(cache.ok());
    CHECK(cache->cases.size() == 36);
    CHECK(cache->model == "test");

    ValidateOptions o{SplitFilter::all, 1, {}};
    o.cache = &*cache;
    o.verify_sample = 5;
    auto same = run_validation(d, h, "test", scaled(d, 1.02, 1.03, false), o);
    REQUIRE(same.ok());
    CHECK(same->checks.back().what == "stored predictions reproduce");
    CHECK(same->checks.back().pass);
    CHECK(same->all.quantities[0].errors.mape == Approx(fresh->all.quantities[0].errors.mape));
    CHECK(same->predictions_source.find("5 matched") != std::string::npos);

    auto changed = run_validation(d, h, "test", scaled(d, 1.02, 1.04, false), o);
    REQUIRE(changed.ok());
    CHECK_FALSE(changed->checks.back().pass);
    CHECK_FALSE(changed->pass);

    Hardware other = h;
    other.calibration.hbm_efficiency = 0.5;
    auto stale = run_validation(d, other, "test", scaled(d, 1.02, 1.03, false), o);
    REQUIRE(stale.ok());
    CHECK_FALSE(stale->checks.back().pass);
    CHECK(stale->checks.back().what.find("another version of profile") != std::string::npos);
    Hardware renamed = h;
    renamed.name = "some-other-gpu";
    auto foreign = run_validation(d, renamed, "test", scaled(d, 1.02, 1.03, false), o);
    REQUIRE(foreign.ok());
    CHECK_FALSE(foreign->checks.back().pass);
    CHECK(foreign->checks.back().what.find("were made with profile " + h.name + ", not some-other-gpu") !=
          std::string::npos);
    CHECK_FALSE(parse_prediction_cache("{\"case\":1}\n", "bad").ok());
    // A stored value that is not a number >= 0 (or null), or a case without an error and
    // without a positive time, is an error with its line: it would leave the figures silently.
    {
        const std::string header = text.substr(0, text.find('\n') + 1);
        const std::string line = "{\"case\":\"c\",\"predicted\":{\"hbm_bytes\":1,\"time\":";
        for (const auto& [time, says] : std::vector<std::pair<std::string, std::string>>{
                 {"-5}}", "cache.jsonl:2: predicted.time must be a finite number >= 0 (got -5)"},
                 {"\"x\"}}", "cache.jsonl:2: predicted.time must be a number or null (got \"x\")"},
                 {"null}}", "cache.jsonl:2: predicted.time must be a positive number when the case has no \"error\""},
                 {"0}}", "cache.jsonl:2: predicted.time must be a positive number when the case has no \"error\""}}) {
            auto bad = parse_prediction_cache(header + line + time + "\n", "cache.jsonl");
            REQUIRE_FALSE(bad.ok());
            CHECK(bad.error().message == says);
        }
        // the writer's own form of a case the model could not predict is read back
        auto failed = parse_prediction_cache(header + line + "null},\"error\":\"tile too big\"}\n", "cache.jsonl");
        REQUIRE(failed.ok());
        CHECK(failed->cases.at("c").error == "tile too big");
        auto none = parse_prediction_cache("\n\n", "empty.jsonl");
        REQUIRE_FALSE(none.ok());
        CHECK(none.error().message == "empty.jsonl: empty predictions file (no header line)");
    }
    // a line of the stored file that states a key twice (the first line: its model)
    std::string twice = text;
    twice.insert(twice.find('{') + 1, "\"model\":\"other\",");
    auto dup = parse_prediction_cache(twice, "cache.jsonl");
    REQUIRE_FALSE(dup.ok());
    CHECK(dup.error().message == "cache.jsonl:1: $.model: the key appears twice in its object (state it once)");
}

TEST_CASE("baseline: a missed target within its recorded figure passes --check, a regression fails it",
          "[validate][report]") {
    const Dataset d = predictable(synthetic());
    auto r = run_validation(d, hw(), "test", scaled(d, 1.08, 1.0, true), {SplitFilter::heldout, 1, {}});
    REQUIRE(r);
    REQUIRE_FALSE(r->pass);
    const auto& hbm = r->checks[0];
    REQUIRE(hbm.id == "hbm_bytes_mape");
    REQUIRE_FALSE(hbm.pass);
    const double v = hbm.value;

    // Without a baseline nothing changes.
    CHECK_FALSE(r->pass_with_baseline);

    // Recording every missed figure exactly: no regression, but the targets are still missed.
    std::string rec;
    for (const auto& c : r->checks)
        if (!c.pass && !c.id.empty())
            rec += (rec.empty() ? "" : ",") +
                   ("\"" + c.id + "\":" + std::to_string(c.upper ? c.value + 1e-6 : std::max(-1.0, c.value - 1e-6)));
    Report same = *r;
    REQUIRE(apply_baseline(same, "{\"recorded\":{" + rec + "}}", "b.json"));
    {
        Report twice = *r;
        auto st = apply_baseline(twice, "{\"recorded\":{" + rec + "," + rec + "}}", "b.json");
        REQUIRE_FALSE(st.ok());
        CHECK_THAT(st.error().message, Catch::Contains("the key appears twice"));
    }
    CHECK(same.pass_with_baseline);
    CHECK_FALSE(same.pass);
    CHECK(same.checks[0].within_recorded);
    CHECK(check_line(same.checks[0]).find("FAIL") == 0);
    CHECK(check_line(same.checks[0]).find("no regression") != std::string::npos);
    CHECK(report_table(same).find("TARGETS MISSED") != std::string::npos);

    // A recorded figure better than the value: a regression.
    Report worse = *r;
    REQUIRE(apply_baseline(worse, "{\"recorded\":{\"hbm_bytes_mape\":" + std::to_string(v / 2) + "}}", "b.json"));
    CHECK_FALSE(worse.pass_with_baseline);
    CHECK_FALSE(worse.checks[0].within_recorded);
    CHECK(check_line(worse.checks[0]).find("WORSE") != std::string::npos);

    // Only some missed figures recorded: the others still fail.
    Report partial = *r;
    REQUIRE(apply_baseline(partial, "{\"recorded\":{\"hbm_bytes_mape\":1.0}}", "b.json"));
    CHECK_FALSE(partial.pass_with_baseline);

    // Bad input is an error naming the problem.
    Report bad = *r;
    CHECK_FALSE(apply_baseline(bad, "{\"recorded\":{\"warp_mape\":0.1}}", "b.json"));
    CHECK_FALSE(apply_baseline(bad, "{\"recorded\":{\"time_mape\":\"x\"}}", "b.json"));
    // a figure no MAPE or Spearman can take (it would pass every value, or none)
    for (const char* figure : {"{\"time_mape\":-1}", "{\"spearman_mean\":1.5}", "{\"regret_mean\":-0.01}"}) {
        auto st = apply_baseline(bad, std::string("{\"recorded\":") + figure + "}", "b.json");
        REQUIRE_FALSE(st.ok());
        CHECK_THAT(st.error().message, Catch::Contains("must be"));
    }
    CHECK_FALSE(apply_baseline(bad, "[1]", "b.json"));
    CHECK(apply_baseline(bad, "{}", "b.json").error().message.find("recorded") != std::string::npos);
}

TEST_CASE("validate: per-family summaries partition the cases", "[validate][report]") {
    const Dataset d = synthetic();
    auto r = run_validation(d, hw(), "test", scaled(d, 1.0, 1.0, false), {SplitFilter::all, 1, {}});
    REQUIRE(r);
    REQUIRE(r->families.size() == 1);
    CHECK(r->families[0].family == "gemm");
    const auto t = static_cast<std::size_t>(Quantity::time);
    CHECK(r->families[0].heldout.quantities[t].usable == r->heldout.quantities[t].usable);
    CHECK(r->families[0].train.quantities[t].usable == r->train.quantities[t].usable);
    CHECK(report_markdown(*r, {}).find("## Errors per kernel family") != std::string::npos);
}

TEST_CASE("dataset: a misparsed driver_version is recovered from the NVRM line", "[validate][dataset]") {
    Measurement m = measured(gemm(2048, 128, 128), 1e7, 2e6, 3e7, 12345.0);
    m.provenance["driver_version"] = "for";
    m.provenance["nvidia_driver"] = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build";
    std::string one_line;
    for (char c : to_json(m))
        if (c != '\n') one_line += c;
    auto d = parse_dataset(one_line + "\n", "m.jsonl");
    REQUIRE(d.ok());
    CHECK(d->provenance.at("driver_version") == "580.159.04");
    CHECK(d->provenance.at("driver_version_as_measured") == "for");

    // A well-formed version is left alone.
    m.provenance["driver_version"] = "575.57.08";
    one_line.clear();
    for (char c : to_json(m))
        if (c != '\n') one_line += c;
    auto e = parse_dataset(one_line + "\n", "m.jsonl");
    REQUIRE(e.ok());
    CHECK(e->provenance.at("driver_version") == "575.57.08");
    CHECK(e->provenance.count("driver_version_as_measured") == 0);
}

TEST_CASE("validate: the warp model's issue form changes the profile fingerprint", "[validate][cache]") {
    Hardware h = hw();
    h.calibration.warp_iteration_ns = 200;
    const std::string power = profile_fingerprint(h);
    h.calibration.warp_issue_model = 1;
    const std::string issue = profile_fingerprint(h);
    CHECK(power != issue);
    CHECK(issue == profile_fingerprint(h));
    h.calibration.warp_issue_model = 0;
    CHECK(profile_fingerprint(h) == power);
    h.calibration.warp_queue_model = 1;  // the queue form (change 26) too
    CHECK(profile_fingerprint(h) != power);
    CHECK(profile_fingerprint(h) != issue);
    h.calibration.warp_queue_model = 0;
    CHECK(profile_fingerprint(h) == power);
    h.calibration.warp_load_issue_serial = 1;  // serial load issue (change 33) too
    CHECK(profile_fingerprint(h) != power);
    h.calibration.warp_load_issue_serial = 0;
    CHECK(profile_fingerprint(h) == power);
}

TEST_CASE("validate: the store-path and pipeline-order fields change the fingerprint, their defaults do not",
          "[validate][cache]") {
    Hardware h = hw();
    const std::string base = profile_fingerprint(h);
    std::vector<std::string> seen{base};
    h.calibration.fragment_store_bytes_per_s = 0.9e12;
    seen.push_back(profile_fingerprint(h));
    h.calibration.fragment_store_own_drain = 1;  // change 35
    seen.push_back(profile_fingerprint(h));
    h.calibration.fragment_store_issue_ns_per_byte = 0.0632;  // change 35
    seen.push_back(profile_fingerprint(h));
    h.calibration.pipeline_wait_then_issue = 1;  // change 36
    seen.push_back(profile_fingerprint(h));
    h.calibration.hbm_activations_per_s = 2.6e10;  // change 37
    seen.push_back(profile_fingerprint(h));
    h.calibration.smem_fill_bypass = 1;  // change 40
    seen.push_back(profile_fingerprint(h));
    for (std::size_t i = 0; i < seen.size(); ++i)
        for (std::size_t j = i + 1; j < seen.size(); ++j) CHECK(seen[i] != seen[j]);
    h.calibration.fragment_store_bytes_per_s = 0;
    h.calibration.fragment_store_own_drain = 0;
    h.calibration.fragment_store_issue_ns_per_byte = 0;
    h.calibration.pipeline_wait_then_issue = 0;
    h.calibration.hbm_activations_per_s = 0;
    h.calibration.smem_fill_bypass = 0;
    CHECK(profile_fingerprint(h) == base);
}

TEST_CASE("validate: the L1 fields change the profile fingerprint, their defaults do not", "[validate][cache]") {
    Hardware h = hw();
    const std::string lru = profile_fingerprint(h);
    h.calibration.l1_random_replacement = 1;
    const std::string random = profile_fingerprint(h);
    CHECK(random != lru);
    h.calibration.l1_capacity_fraction = 0.5;
    CHECK(profile_fingerprint(h) != random);
    h.calibration.l1_random_replacement = 0;
    h.calibration.l1_capacity_fraction = 1.0;
    CHECK(profile_fingerprint(h) == lru);
}

TEST_CASE("validate: the queueing latency term changes the profile fingerprint, its default does not", "[validate][cache]") {
    Hardware h = hw();
    const std::string none = profile_fingerprint(h);
    h.calibration.load_latency_ns_per_tbps = 150;
    const std::string queued = profile_fingerprint(h);
    CHECK(queued != none);
    h.calibration.load_latency_ns_per_tbps = 0;
    CHECK(profile_fingerprint(h) == none);
}

namespace {

// Naive attention-like cases of three launches ("a:qk", "a:softmax", "a:pv"), measured with the
// given per-launch times; the case total is their sum.
Dataset three_launch_dataset() {
    Dataset d;
    d.origin = "synthetic-launches";
    for (int64_t m : {1024, 2048, 4096})
        for (int tm : {64, 128}) {
            Case c;
            c.measured = measured(gemm(m, tm, 64), 4e6, 1e6, 9e6, 0);
            c.measured.total[Metric::gpu_time_duration] = 0;
            for (const char* name : {"a:qk", "a:softmax", "a:pv"}) {
                LaunchResult l;
                l.name = name;
                l.metrics.values.fill(NAN);
                l.metrics[Metric::dram_bytes_read] = c.measured.total[Metric::dram_bytes_read] / 3;
                l.metrics[Metric::dram_bytes_write] = c.measured.total[Metric::dram_bytes_write] / 3;
                l.metrics[Metric::lts_t_bytes] = c.measured.total[Metric::lts_t_bytes] / 3;
                l.metrics[Metric::gpu_time_duration] = 1000.0 * double(m) / double(tm);
                c.measured.total[Metric::gpu_time_duration] += l.metrics[Metric::gpu_time_duration];
                c.measured.launches.push_back(l);
            }
            c.name = case_name(c.measured.workload);
            c.key = sweep_key(c.measured.workload);
            c.split = split_of(c.measured.workload);
            d.cases.push_back(c);
        }
    return d;
}

// Predicts QK^T 20% slow and P V 20% fast, so every case total is exact; `rename` gives the
// softmax launch another name (a lowering that does not match the measured launches).
Predictor cancelling(const Dataset& d, bool rename = false) {
    std::map<std::string, Measurement> by_name;
    for (const auto& c : d.cases) by_name[c.name] = c.measured;
    return [by_name, rename](const Workload& w, const Hardware&) -> Result<Prediction> {
        Prediction p = by_name.at(case_name(w));
        p.model = "test";
        p.launches[0].metrics[Metric::gpu_time_duration] *= 1.2;
        p.launches[2].metrics[Metric::gpu_time_duration] *= 0.8;
        if (rename) p.launches[1].name = "a:other";
        return p;
    };
}

}  // namespace

TEST_CASE("validate: launches of multi-launch cases are compared one by one", "[validate][report]") {
    const Dataset d = three_launch_dataset();
    auto r = run_validation(d, hw(), "test", cancelling(d), {SplitFilter::all, 2, {}});
    REQUIRE(r.ok());
    const auto t = static_cast<std::size_t>(Quantity::time);
    // the totals are exact: the two launch errors cancel
    CHECK(r->all.quantities[t].errors.mape == Approx(0).margin(1e-12));
    REQUIRE(r->launches.size() == 3);
    CHECK(r->launches[0].launch == "a:qk");
    CHECK(r->launches[2].launch == "a:pv");
    for (const auto& l : r->launches) {
        const auto& tr = l.train.quantities[t];
        const auto& ho = l.heldout.quantities[t];
        CHECK(tr.usable + ho.usable == 6);
        const double want = l.launch == "a:softmax" ? 0.0 : 0.2;
        for (const auto* qs : {&tr, &ho})
            if (qs->usable > 0) CHECK(qs->errors.mape == Approx(want).margin(1e-12));
        CHECK(l.family == "gemm");
    }
    for (const auto& c : r->cases) REQUIRE(c.launches.size() == 3);
    const std::string table = report_table(*r);
    CHECK(table.find("per launch of multi-launch cases") != std::string::npos);
    CHECK(table.find("0.800 (0.80-0.80)") != std::string::npos);  // P V: geometric mean, range
    CHECK(table.find("1.200 (1.20-1.20)") != std::string::npos);
    const auto j = boost::json::parse(report_json(*r));
    const auto& qk = j.at("launches").at("a:qk");
    CHECK(qk.at("family").as_string() == "gemm");
    const auto& c0 = j.at("cases").as_array().at(0);
    CHECK(c0.at("launches").as_array().size() == 3);
    CHECK(c0.at("launches").as_array().at(2).at("ape").at("time").as_double() == Approx(0.2));
    CHECK(report_markdown(*r, {}).find("## Errors per launch") != std::string::npos);

    // a prediction whose launches are named otherwise is compared as a whole only
    auto other = run_validation(d, hw(), "test", cancelling(d, true), {SplitFilter::all, 1, {}});
    REQUIRE(other.ok());
    CHECK(other->launches.empty());
    for (const auto& c : other->cases) CHECK(c.launches.empty());
    CHECK(report_table(*other).find("per launch") == std::string::npos);
    // ... and the report says so, naming the cases
    CHECK(other->launches_unpaired.size() == other->cases.size());
    CHECK(report_table(*other).find(std::to_string(other->cases.size()) +
                                    " case(s) compared as a whole only: their measured launches differ") !=
          std::string::npos);
    CHECK(boost::json::parse(report_json(*other)).at("launches_unpaired").as_array().size() == other->cases.size());
    CHECK(r->launches_unpaired.empty());
}

TEST_CASE("stored predictions: per-launch values round trip and are checked", "[validate][cache]") {
    const Dataset d = three_launch_dataset();
    const Hardware h = hw();
    auto fresh = run_validation(d, h, "test", cancelling(d), {SplitFilter::all, 1, {}});
    REQUIRE(fresh.ok());
    const std::string text = prediction_cache_jsonl(*fresh, profile_fingerprint(h));
    auto cache = parse_prediction_cache(text, "cache.jsonl");
    REQUIRE(cache.ok());
    REQUIRE(cache->cases.begin()->second.launches.size() == 3);
    CHECK(cache->cases.begin()->second.launches[1].first == "a:softmax");

    ValidateOptions o{SplitFilter::all, 1, {}};
    o.cache = &*cache;
    o.verify_sample = 6;
    auto same = run_validation(d, h, "test", cancelling(d), o);
    REQUIRE(same.ok());
    CHECK(same->checks.back().pass);
    const auto t = static_cast<std::size_t>(Quantity::time);
    REQUIRE(same->launches.size() == 3);
    CHECK(same->launches[2].train.quantities[t].usable + same->launches[2].heldout.quantities[t].usable == 6);

    // a per-launch value that the model no longer gives fails the reproduction check, even
    // though every case total still matches
    PredictionCache edited = *cache;
    edited.cases.begin()->second.launches[0].second[t] *= 1.01;
    o.cache = &edited;
    auto stale = run_validation(d, h, "test", cancelling(d), o);
    REQUIRE(stale.ok());
    CHECK_FALSE(stale->checks.back().pass);

    // a file without per-launch values (written before they were stored) still validates the
    // totals; the report says the per-launch values are missing
    PredictionCache old = *cache;
    for (auto& [name, cp] : old.cases) cp.launches.clear();
    o.cache = &old;
    auto older = run_validation(d, h, "test", cancelling(d), o);
    REQUIRE(older.ok());
    CHECK(older->checks.back().pass);
    CHECK(report_table(*older).find("hold no per-launch values") != std::string::npos);

    CHECK_FALSE(parse_prediction_cache(text.substr(0, text.find('\n') + 1) +
                                           "{\"case\":\"x\",\"predicted\":{},\"launches\":[{\"name\":1}]}\n",
                                       "bad")
                    .ok());
}

namespace {

CaseResult timed_case(const std::string& sweep, const std::string& tile, const std::string& family,
                      const std::string& variant, Split split, double predicted, double measured) {
    CaseResult c;
    c.name = sweep + "|" + tile;
    c.key = sweep;
    c.family = family;
    c.variant = variant;
    c.split = split;
    c.predicted.fill(NAN);
    c.measured.fill(NAN);
    const auto t = static_cast<std::size_t>(Quantity::time);
    c.predicted[t] = predicted;
    c.measured[t] = measured;
    return c;
}

}  // namespace

TEST_CASE("validate: per-tile bias is a tile's error relative to its sweep-mates, per variant and split",
          "[validate][report]") {
    // Tile A is predicted 1.1x in every sweep, B and C exactly: relative to its sweep-mates A is
    // 1.1^(2/3) slow and B, C are 1.1^(-1/3), whatever the sweep's common error (x 0.8 here) and
    // its measured times.
    std::vector<CaseResult> cases;
    for (const auto& [sweep, split, scale] : std::vector<std::tuple<std::string, Split, double>>{
             {"gemm/s1", Split::train, 1.0}, {"gemm/s2", Split::train, 0.8}, {"gemm/s3", Split::heldout, 1.3}}) {
        cases.push_back(timed_case(sweep, "A", "gemm", "", split, 1.1 * scale * 100, 100));
        cases.push_back(timed_case(sweep, "B", "gemm", "", split, scale * 250, 250));
        cases.push_back(timed_case(sweep, "C", "gemm", "", split, scale * 400, 400));
    }
    // The same tile name at another head dimension is another group; a sweep of one usable case
    // carries no bias, and neither does a failed prediction.
    cases.push_back(timed_case("attention-flash2/x/d64", "A", "attention-flash2", "d=64", Split::train, 120, 100));
    cases.push_back(timed_case("attention-flash2/x/d64", "B", "attention-flash2", "d=64", Split::train, 100, 100));
    cases.push_back(timed_case("attention-flash2/x/d128", "A", "attention-flash2", "d=128", Split::train, 90, 100));
    cases.push_back(timed_case("attention-flash2/y/d128", "A", "attention-flash2", "d=128", Split::heldout, 90, 100));
    CaseResult failed = timed_case("attention-flash2/y/d128", "B", "attention-flash2", "d=128", Split::heldout, 1, 1);
    failed.error = "cannot predict";
    cases.push_back(failed);

    const auto b = tile_biases(cases);
    REQUIRE(b.size() == 5);  // gemm A, B, C; flash2 A and B at d=64
    auto find = [&](const std::string& family, const std::string& tile, const std::string& variant) {
        const auto it = std::find_if(b.begin(), b.end(), [&](const TileBias& x) {
            return x.family == family && x.tile == tile && x.variant == variant;
        });
        REQUIRE(it != b.end());
        return *it;
    };
    const TileBias a = find("gemm", "A", "");
    CHECK(a.train == Approx(std::pow(1.1, 2.0 / 3) - 1));
    CHECK(a.heldout == Approx(std::pow(1.1, 2.0 / 3) - 1));
    CHECK(a.train_sweeps == 2);
    CHECK(a.heldout_sweeps == 1);
    CHECK(find("gemm", "B", "").train == Approx(std::pow(1.1, -1.0 / 3) - 1));
    CHECK(find("gemm", "C", "").heldout == Approx(std::pow(1.1, -1.0 / 3) - 1));
    const TileBias f = find("attention-flash2", "A", "d=64");
    CHECK(f.train == Approx(std::sqrt(1.2) - 1));
    CHECK(f.heldout_sweeps == 0);
    CHECK(std::isnan(f.heldout));
    CHECK(find("attention-flash2", "B", "d=64").train == Approx(1 / std::sqrt(1.2) - 1));
    // d=128: two sweeps of one usable case each, so no group at all
    CHECK(std::none_of(b.begin(), b.end(), [](const TileBias& x) { return x.variant == "d=128"; }));
    // Groups in both halves: gemm A, B, C, equal on both sides, so r = 1; fewer than 3: NaN.
    CHECK(tile_bias_correlation(b) == Approx(1.0));
    CHECK(std::isnan(tile_bias_correlation(std::vector<TileBias>(b.begin(), b.begin() + 2))));
}

TEST_CASE("report formats: the per-tile bias is in the table, the JSON and the Markdown", "[validate][report]") {
    const Dataset d = synthetic();
    auto r = run_validation(d, hw(), "test", scaled(d, 1.0, 1.0, true), {SplitFilter::all, 1, {}});
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->tile_bias.empty());
    CHECK(report_table(*r).find("per-tile time bias relative to each sweep") != std::string::npos);
    CHECK(report_markdown(*r, {}).find("## Per-tile bias (time, relative to each sweep)") != std::string::npos);
    const auto j = boost::json::parse(report_json(*r));
    const auto& groups = j.at("tile_bias").at("groups").as_array();
    CHECK(groups.size() == r->tile_bias.size());
    CHECK(groups.at(0).as_object().contains("heldout_sweeps"));
}
