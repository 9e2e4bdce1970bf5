// Runs the real `tilescope` binary: bad input exits 2 with one "tilescope: error: " line on
// stderr; JSON parses; CSV has one header row; sweep rows = product of the lists; illegal
// configurations become rows; output is the same for any --jobs.
#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <string>
#include <vector>

namespace {

struct Run {
    int code = -1;
    std::string out, err;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Run run(const std::string& args) {
    static int counter = 0;
    // Unique per process: ctest runs the test cases as separate processes in parallel.
    const std::string base = std::string(TILESCOPE_TEST_TMP) + "/run" + std::to_string(getpid()) + "_" +
                             std::to_string(++counter);
    const std::string cmd = std::string("'") + TILESCOPE_BIN + "' " + args + " > '" + base + ".out' 2> '" + base + ".err'";
    const int status = std::system(cmd.c_str());
    Run r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(base + ".out");
    r.err = slurp(base + ".err");
    return r;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string line;
    while (std::getline(ss, line)) out.push_back(line);
    return out;
}

// Bad input: exit code 2 and one error line (containing `text`, if given).
void expect_error(const std::string& args, const std::string& text) {
    INFO("tilescope " << args);
    const Run r = run(args);
    CHECK(r.code == 2);
    const auto err = lines(r.err);
    REQUIRE(err.size() == 1);
    CHECK(err[0].rfind("tilescope: error: ", 0) == 0);
    CHECK(err[0].find(text) != std::string::npos);
}

void expect_bad_input(const std::string& args) { expect_error(args, ""); }

// A file in the test's temporary directory holding `text`; returns its path.
std::string temp_file(const std::string& name, const std::string& text) {
    const std::string path = std::string(TILESCOPE_TEST_TMP) + "/" + name + std::to_string(getpid());
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// `calibrate --gpu h100-sxm --from FILE ` with a one-microbenchmark file named by `tag`.
std::string calibrate_from(const std::string& tag) {
    const std::string from = temp_file(tag + ".jsonl", "{\"microbench\":\"hbm_bandwidth\",\"value\":3e12}\n");
    return "calibrate --gpu h100-sxm --from '" + from + "' ";
}

}  // namespace

TEST_CASE("bad input: exit code 2 and one error line", "[cli]") {
    const std::string bad_profile = std::string(TILESCOPE_TEST_TMP) + "/bad_profile" + std::to_string(getpid()) + ".json";
    std::ofstream(bad_profile) << "{\"name\": \"x\", \"compute_capability\": 80}";
    const std::string not_json = std::string(TILESCOPE_TEST_TMP) + "/not_json" + std::to_string(getpid()) + ".json";
    std::ofstream(not_json) << "{ this is not json";
    for (const std::string& args : std::vector<std::string>{
             "frobnicate",
             "predict --kernel attention-flash9",
             "predict --kernel gemm --m 0",
             "predict --kernel gemm --m -5",
             "predict --kernel attention-flash2 --batch 0",
             "predict --kernel attention-flash2 --seq abc",
             "predict --kernel attention-flash2 --tile-m 96",
             "predict --kernel attention-flash2 --gpu no-such-gpu",
             "predict --kernel attention-flash2 --gpu /nonexistent/dir/p.json",
             "predict --kernel attention-flash2 --gpu '" + bad_profile + "'",
             "predict --kernel attention-flash2 --gpu '" + not_json + "'",
             "predict --kernel attention-flash2 --head-dim 128 --tile-m 256 --tile-n 256 --stages 1 --warps 16",
             "predict --kernel gemm --format xml",
             "predict --kernel gemm --bogus 3",
             "predict --kernel gemm stray",
             "predict --kernel gemm --m 64,128",
             "predict --kernel gemm --model nonsense",
             "predict",
             "sweep --kernel gemm --m 64:x:*2",
             "sweep --kernel gemm --m 512:64:*2",
             "sweep --kernel gemm --m 64:512:*1",
             "sweep --kernel gemm --m 64:512",
             "sweep --kernel gemm --m 64,,128",
             "sweep --kernel gemm --jobs 0",
             "sweep --kernel gemm --format parquet",
             // a value no kernel family takes is a typo, not an illegal row
             "sweep --kernel attention-flash2 --dtype fp16,fp61",
             "sweep --kernel gemm --m 0,64",
             "sweep --kernel gemm --tile-m 100,128",
             "sweep --kernel attention-flash2 --head-dim 64,96",
             "sweep --kernel softmax --variant safe,onlien",
             "predict --kernel gemm --tile-m 8",
             "predict --kernel gemm --tile-k 8",
             // simulator-only flags with the analytic model are refused, not ignored
             "predict --kernel gemm --model analytic --exact",
             "predict --kernel gemm --model analytic --timeline",
             "sweep --kernel gemm --model analytic --l2 off",
             "compare --model analytic --exact",
             // too large to simulate: the simulator's refusal is bad input (2), with a hint that fits trace
             "trace --kernel gemm --m 65536 --n 65536 --k 65536",
             "compare --kernel gemm",
             "compare --fused attention-flash7",
             "compare --seq 0",
             "compare --m 5",  // not an abbreviation of --model: compare has no --m
             "predict --kernel gemm --form json",  // no guessed abbreviations
             "profiles --format yaml",
             "predict --kernel gemm --gpu h100-sxm --format json --out /dev/full",
             "bench --seconds -1",
             "calibrate --gpu h100-sxm --cases-matching softmax",
             "calibrate --gpu h100-sxm --measure-dataset /tmp/x.jsonl --cases-matching ''",
             "calibrate --gpu h100-sxm --fit-include attention-naive",
             "calibrate --gpu h100-sxm --max-fit-cases 5 --fit-include ''",
         }) {
        expect_bad_input(args);
    }
    CHECK(run("").code == 2);
    expect_error("frobnicate", "unknown command 'frobnicate' (tilescope --help lists them)");
}

TEST_CASE("tilescope version (or --version) names the version and the commit", "[cli]") {
    const Run r = run("--version");
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    CHECK_THAT(r.out, Catch::StartsWith("tilescope 0.") && Catch::Contains("(configured at commit "));
    CHECK(lines(r.out).size() == 1);
}

TEST_CASE("help exits 0", "[cli]") {
    for (const char* args : {"--help", "predict --help", "sweep --help", "compare --help", "profiles --help", "bench --help"}) {
        INFO(args);
        const Run r = run(args);
        CHECK(r.code == 0);
        CHECK(r.out.find("Usage: tilescope") != std::string::npos);
    }
}

TEST_CASE("predict: JSON parses, CSV has one header row, table shows launches", "[cli]") {
    const Run j = run("predict --kernel attention-naive --seq 512 --format json --model analytic");
    REQUIRE(j.code == 0);
    const auto v = boost::json::parse(j.out);
    CHECK(v.at("model").as_string() == "analytic");
    CHECK(v.at("gpu").as_string() == "a100-40gb");
    REQUIRE(v.at("launches").as_array().size() == 3);
    const auto& l0 = v.at("launches").as_array()[0];
    for (const char* key : {"name", "grid", "threads_per_block", "smem_bytes_per_block", "registers_per_thread",
                            "blocks_per_sm", "waves", "metrics", "bound"})
        CHECK(l0.as_object().contains(key));
    CHECK(v.at("total").at("metrics").at("dram__bytes_read.sum").as_int64() > 0);

    const Run c = run("predict --kernel gemm --m 1000 --format csv --gpu h100-sxm");
    REQUIRE(c.code == 0);
    const auto rows = lines(c.out);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].rfind("kernel,dtype,", 0) == 0);
    CHECK(rows[1].rfind("gemm,fp16,", 0) == 0);

    const Run t = run("predict --kernel attention-flash1 --seq 1000 --causal");
    REQUIRE(t.code == 0);
    CHECK(t.out.find("attention-flash1:fwd") != std::string::npos);
    CHECK(t.out.find("causal") != std::string::npos);

    const std::string out_file = std::string(TILESCOPE_TEST_TMP) + "/predict_out.json";
    const Run o = run("predict --kernel softmax --format json --out '" + out_file + "'");
    REQUIRE(o.code == 0);
    CHECK(o.out.empty());
    CHECK(boost::json::parse(slurp(out_file)).at("workload").at("kernel").as_string() == "softmax");
}

TEST_CASE("predict --exact: no coarsening (one iteration per simulated phase), bytes within 0.1%", "[cli]") {
    // 64 x 16 x 8 blocks x 16 iterations = 131,072 x 16 > 200,000 block-iterations: coarsened by default.
    const std::string table = "predict --kernel attention-flash2 --batch 64 --heads 16 --seq 1024 --head-dim 64 "
                              "--tile-m 32 --tile-n 32 --gpu h100-sxm --model sim";
    const std::string w = table + " --format json";
    const Run coarse = run(w);
    const Run exact = run(w + " --exact");
    REQUIRE(coarse.code == 0);
    REQUIRE(exact.code == 0);
    const auto c = boost::json::parse(coarse.out).at("launches").as_array()[0].as_object();
    const auto e = boost::json::parse(exact.out).at("launches").as_array()[0].as_object();
    CHECK(c.at("extra").at("sim_iterations_per_phase").to_number<double>() > 1);
    CHECK(e.at("extra").at("sim_iterations_per_phase").to_number<double>() == 1);
    // The table says which launch ran coarsened, and says nothing under --exact.
    const Run coarse_table = run(table);
    const Run exact_table = run(table + " --exact");
    REQUIRE(coarse_table.code == 0);
    REQUIRE(exact_table.code == 0);
    CHECK(coarse_table.out.find("coarsened (loop iterations per simulated phase): attention-flash2:fwd ") != std::string::npos);
    CHECK(exact_table.out.find("coarsened") == std::string::npos);
    for (const char* m : {"dram__bytes_read.sum", "lts__t_bytes.sum"})
        CHECK(c.at("metrics").at(m).to_number<double>() == Approx(e.at("metrics").at(m).to_number<double>()).epsilon(1e-3));
}

TEST_CASE("sweep: rows = product, illegal rows reported, order independent of jobs", "[cli]") {
    // 2 seqs x 4 tile-m (32..256) x 2 tile-n = 16 configurations; tile-n 256 with d=128 needs more
    // shared memory than an A100 block may have, and 256x64 (16 warps x ~176 registers) needs more
    // registers than a block may have: 5 illegal per seq.
    const std::string args = "sweep --kernel attention-flash2 --head-dim 128 --seq 1024,4096 --tile-m 32:256:*2 "
                             "--tile-n 64,256 --model analytic";
    const Run one = run(args + " --jobs 1");
    const Run two = run(args + " --jobs 2");
    REQUIRE(one.code == 0);
    REQUIRE(two.code == 0);
    CHECK(one.out == two.out);
    const auto rows = lines(one.out);
    REQUIRE(rows.size() == 1 + 16);
    CHECK(rows[0].rfind("kernel,", 0) == 0);
    int illegal = 0, ok = 0;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        CHECK(rows[i].rfind("kernel,", 0) != 0);  // exactly one header row
        if (rows[i].find(",illegal,") != std::string::npos) ++illegal;
        if (rows[i].size() > 4 && rows[i].substr(rows[i].size() - 4) == ",ok,") ++ok;
    }
    CHECK(illegal == 10);
    CHECK(ok == 6);
    CHECK(rows[2].find("needs 270336 B of shared memory per block") != std::string::npos);

    // tile-k 8 is a power of two (a legal flag value) but below the GEMM's mma k-step of 16: an
    // illegal row for this family, not an input error.
    const Run jl = run("sweep --kernel gemm --tile-m 16,32 --tile-k 8:32:*2 --format jsonl --gpu a100-40gb,h100-sxm --model analytic");
    REQUIRE(jl.code == 0);
    const auto jrows = lines(jl.out);
    REQUIRE(jrows.size() == 2 * 2 * 3);  // gpus x tile-m x tile-k(8,16,32)
    int jl_illegal = 0;
    for (const auto& row : jrows) {
        const auto v = boost::json::parse(row);
        if (v.at("status").as_string() == "illegal") {
            ++jl_illegal;
            CHECK(v.at("reason").as_string().find("--tile-k must be a power of two in [16, 1024] (got 8)") !=
                  std::string::npos);
        }
    }
    CHECK(jl_illegal == 4);  // tile-k 8 on both GPUs for both tile-m
}

TEST_CASE("compare and profiles", "[cli]") {
    const Run t = run("compare --seq 2048 --model analytic");
    REQUIRE(t.code == 0);
    CHECK(t.out.find("naive/fused") != std::string::npos);
    CHECK(t.out.find("Theta(N d + N^2)") != std::string::npos);
    const Run j = run("compare --seq 2048 --format json --fused attention-flash1 --model analytic");
    REQUIRE(j.code == 0);
    const auto v = boost::json::parse(j.out);
    CHECK(v.at("ratio_naive_over_fused").at("hbm_bytes").as_double() > 1.0);
    CHECK(v.at("fused").at("workload").at("kernel").as_string() == "attention-flash1");
    const Run c = run("compare --format csv --model analytic");
    REQUIRE(c.code == 0);
    CHECK(lines(c.out).size() == 3);

    const Run p = run("profiles --format json");
    REQUIRE(p.code == 0);
    const auto arr = boost::json::parse(p.out).as_array();
    CHECK(arr.size() >= 4);
    const Run show = run("profiles --show h100-sxm");
    REQUIRE(show.code == 0);
    CHECK(show.out.find("smem_per_block_max_bytes") != std::string::npos);
    CHECK(show.out.find("232448") != std::string::npos);
    const Run show_json = run("profiles --show a100-40gb --format json");
    REQUIRE(show_json.code == 0);
    CHECK(boost::json::parse(show_json.out).at("sm_count").at("value").as_int64() == 108);
    expect_bad_input("profiles --show b300");
    const Run pt = run("profiles");
    REQUIRE(pt.code == 0);
    CHECK(pt.out.find("h100-sxm") != std::string::npos);
}

TEST_CASE("sweep --rank: tiles ranked within each workload, GPU and model, illegal rows unranked", "[cli]") {
    // 2 shapes x 2 GPUs x tile-m {16, 64} x tile-k {8, 32}: tile-k 8 is illegal (below the GEMM's
    // mma k-step of 16; 24, not a power of two, is bad input before the sweep), so each
    // (shape, GPU) group ranks the two legal tiles 1 and 2.
    const std::string args =
        "sweep --kernel gemm --m 1024,2048 --tile-m 16,64 --tile-k 8,32 --gpu a100-40gb,h100-sxm --model analytic --rank";
    const Run csv = run(args);
    REQUIRE(csv.code == 0);
    const auto rows = lines(csv.out);
    REQUIRE(rows.size() == 1 + 16);
    CHECK(rows[0].size() > 25);
    CHECK(rows[0].substr(rows[0].size() - 25) == ",tile_rank,time_over_best");
    int empty = 0;
    for (std::size_t i = 1; i < rows.size(); ++i)
        if (rows[i].size() >= 2 && rows[i].substr(rows[i].size() - 2) == ",,") ++empty;
    CHECK(empty == 8);  // the illegal rows: no rank, no ratio

    const Run jl = run(args + " --format jsonl --jobs 1");
    REQUIRE(jl.code == 0);
    std::map<std::string, std::vector<std::pair<long, double>>> groups;
    std::map<std::string, std::vector<double>> times;
    for (const auto& row : lines(jl.out)) {
        const auto v = boost::json::parse(row);
        if (v.at("status").as_string() != "ok") {
            CHECK(v.at("tile_rank").is_null());
            CHECK(v.at("time_over_best").is_null());
            continue;
        }
        const std::string key = std::string(v.at("gpu").as_string()) + "/" +
                                std::to_string(v.at("workload").at("m").to_number<long>());
        groups[key].emplace_back(v.at("tile_rank").to_number<long>(), v.at("time_over_best").to_number<double>());
        times[key].push_back(v.at("total").at("metrics").at("gpu__time_duration.sum").to_number<double>());
    }
    REQUIRE(groups.size() == 4);
    for (const auto& [key, g] : groups) {
        REQUIRE(g.size() == 2);
        const auto& t = times.at(key);
        const std::size_t best = t[0] <= t[1] ? 0 : 1, other = 1 - best;
        CHECK(g[best].first == 1);
        CHECK(g[best].second == 0.0);
        CHECK(g[other].first == (t[0] == t[1] ? 1 : 2));
        CHECK(g[other].second == Approx(t[other] / t[best] - 1).epsilon(1e-5));
    }
    // Without --rank the columns are not there.
    CHECK(lines(run("sweep --kernel gemm --m 1024 --model analytic").out)[0].find("tile_rank") == std::string::npos);
}

TEST_CASE("predict and compare say how far the profile's predictions can be trusted", "[cli]") {
    const Run a100 = run("predict --kernel gemm --gpu a100-40gb --model analytic");
    REQUIRE(a100.code == 0);
    const auto rows = lines(a100.out);
    REQUIRE(rows.size() > 3);
    CHECK(rows[2].rfind("profile a100-40gb: datasheet numbers, not calibrated; never compared with measurements", 0) == 0);
    const Run cal = run("predict --kernel gemm --gpu calibrated/h100-sxm --model analytic");
    REQUIRE(cal.code == 0);
    CHECK(cal.out.find("profile calibrated/h100-sxm: calibrated; held out on an H100 SXM") != std::string::npos);
    const Run cmp = run("compare --seq 1024 --gpu h100-sxm --model analytic");
    REQUIRE(cmp.code == 0);
    CHECK(cmp.out.find("profile h100-sxm: datasheet numbers, not calibrated; held out on an H100 SXM") != std::string::npos);
    // JSON and CSV are unchanged by it.
    CHECK(run("predict --kernel gemm --gpu a100-40gb --model analytic --format json").out.find("not calibrated") ==
          std::string::npos);
}

TEST_CASE("calibrate checks --model, --out and --fit-report before fitting", "[cli][calibrate]") {
    const std::string cal = calibrate_from("mb_ok");
    expect_error(cal + "--model bogus", "--model must be one of ");
    expect_error(cal + "--model bogus", "(got 'bogus')");
    expect_error(cal + "--out /proc/x/y", "--out: cannot create directory '/proc/x'");
    expect_error(cal + "--out '" + std::string(TILESCOPE_TEST_TMP) + "'", "--out: '" + std::string(TILESCOPE_TEST_TMP) + "' is a directory");
    expect_error(cal + "--fit-report /tmp/x.fit-report", "--fit-report needs --out");
    // An existing --out is not truncated by the check, nor left created when --fit-report fails.
    const std::string existing = temp_file("existing_profile.json", "keep me");
    expect_error(cal + "--out '" + existing + "' --fit-report /proc/x/y", "--fit-report: cannot create directory '/proc/x'");
    CHECK(slurp(existing) == "keep me");
    const std::string fresh_dir = std::string(TILESCOPE_TEST_TMP) + "/fresh" + std::to_string(getpid());
    expect_error(cal + "--out '" + fresh_dir + "/sub/p.json' --fit-report /proc/x/y", "--fit-report");
    CHECK(!std::ifstream(fresh_dir + "/sub/p.json").good());
    CHECK(!std::filesystem::exists(fresh_dir));  // the directories made for the check are gone
}

TEST_CASE("calibrate --from refuses implausible and unknown microbenchmarks", "[cli][calibrate]") {
    const auto bench = [](const std::string& name, const std::string& value) {
        return temp_file("mb_" + name + ".jsonl", "{\"microbench\":\"" + name + "\",\"value\":" + value + "}\n");
    };
    // 1e300 B/s and 1 B/s were clamped to an efficiency of 1 and 0.05 without a word.
    expect_error("calibrate --gpu h100-sxm --from '" + bench("hbm_bandwidth", "1e300") + "'",
                 "microbenchmark hbm_bandwidth = 1e+300 B/s is implausible: outside [3.35e+10, 5.025e+12] B/s");
    expect_error("calibrate --gpu h100-sxm --from '" + bench("hbm_bandwidth", "1") + "'",
                 "microbenchmark hbm_bandwidth = 1 B/s is implausible");
    expect_error("calibrate --gpu h100-sxm --from '" + bench("tensor_fp16", "1e18") + "'",
                 "microbenchmark tensor_fp16 = 1e+18 FLOP/s is implausible");
    // 1e15 ns became a profile that `predict --gpu` refuses.
    expect_error("calibrate --gpu h100-sxm --from '" + bench("launch_overhead", "1e15") + "'",
                 "microbenchmark launch_overhead = 1e+15 ns is implausible: outside [0.01, 1e+09] ns");
    const std::string foo = temp_file("mb_foo.jsonl", "# a comment\n{\"microbench\":\"foo\",\"value\":1}\n");
    expect_error("calibrate --gpu h100-sxm --from '" + foo + "'",
                 foo + ":2: unknown microbenchmark 'foo' (known: hbm_bandwidth, l2_bandwidth,");
}

TEST_CASE("calibrate --fit with an empty field name is an error", "[cli][calibrate]") {
    const std::string cal = calibrate_from("mb_fit");
    for (const char* fit : {",", "''", "tensor_efficiency,", "tensor_efficiency,,block_overhead_ns"})
        expect_error(cal + "--fit " + fit, "--fit has an empty field name");
}

TEST_CASE("calibrate --from refuses the options that apply only when it measures", "[cli][calibrate]") {
    const std::string cal = calibrate_from("mb_measure");
    expect_error(cal + "--no-counters", "--no-counters applies only when calibrate measures (not with --from)");
    expect_error(cal + "--time-budget-s 60", "--time-budget-s applies only when calibrate measures");
    expect_error(cal + "--repeats 3", "--repeats applies only when calibrate measures");
}

TEST_CASE("bench: a workload flag without --kernel is an error, with --kernel it is used", "[cli]") {
    expect_error("bench --seconds 0.05 --tile-m 512 --tile-n 512", "--tile-m needs --kernel");
    expect_error("bench --seconds 0.05 --causal", "--causal needs --kernel");
    const Run r = run("bench --seconds 0.05 --kernel gemm --tile-m 64");
    REQUIRE(r.code == 0);
    CHECK(r.out.find("1 workload;") != std::string::npos);
}

TEST_CASE("predict --timeline needs --format json", "[cli]") {
    expect_error("predict --kernel gemm --m 256 --n 256 --k 256 --timeline", "--timeline needs --format json");
    expect_error("predict --kernel gemm --m 256 --n 256 --k 256 --timeline --format csv", "--timeline needs --format json");
    const Run j = run("predict --kernel gemm --m 256 --n 256 --k 256 --timeline --format json");
    REQUIRE(j.code == 0);
    CHECK(boost::json::parse(j.out).is_object());
}

TEST_CASE("an empty --out is an error, not standard output", "[cli]") {
    for (const std::string& args : std::vector<std::string>{"predict --kernel gemm", "sweep --kernel gemm --model analytic",
                                                            "trace --kernel gemm", "profiles", "compare --model analytic",
                                                            "calibrate --gpu h100-sxm"}) {
        expect_error(args + " --out ''", "--out has an empty value");
        expect_bad_input(args + " --out=");  // program_options' own error
    }
}

TEST_CASE("trace refuses a trace of more blocks than its limit", "[cli][trace]") {
    // 1,048,576 one-row blocks: a 204 MB file before the limit (~13 GB at the largest row count).
    const std::string out = std::string(TILESCOPE_TEST_TMP) + "/big_trace" + std::to_string(getpid()) + ".json";
    expect_error("trace --kernel softmax --rows 1048576 --cols 1 --gpu h100-sxm --out '" + out + "'",
                 "the trace would record 1048576 blocks; the limit is 1000000");
    CHECK(!std::ifstream(out).good());
    // The README's trace still works.
    const Run ok = run("trace --kernel attention-flash2 --batch 1 --heads 2 --seq 1024 --out '" + out + "'");
    REQUIRE(ok.code == 0);
    CHECK(ok.out.find("16 blocks") != std::string::npos);
}

TEST_CASE("a flash2 tile that does not fit shared memory names its stage count", "[cli]") {
    expect_error("predict --kernel attention-flash2 --head-dim 256 --tile-m 128 --tile-n 128 --stages 8",
                 "tile 128x128 with head-dim 256 and 8 stages needs 1114112 B of shared memory per block");
    // One stage: the stage count is not part of the message.
    expect_error("predict --kernel attention-flash2 --head-dim 128 --tile-m 256 --tile-n 256 --stages 1 --warps 16",
                 "tile 256x256 with head-dim 128 needs 196608 B of shared memory per block");
}
