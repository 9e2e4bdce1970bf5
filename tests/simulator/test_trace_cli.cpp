// End to end: `tilescope trace` writes a trace that parses, with one event per block; `--l2`
// is accepted by predict and trace and rejected with exit code 2 when it is not on/off.
#include <sys/wait.h>

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

int run(const std::string& args) {
    const std::string cmd = std::string(TILESCOPE_BIN) + " " + args + " >/dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

TEST_CASE("tilescope trace writes a parsable trace with every block once", "[cli][trace]") {
    const std::string out = std::string(TILESCOPE_TEST_TMP) + "/trace_cli.json";
    // flash2 b=1 h=2 n=1000 (ragged) Br=64: 2 x 16 = 32 blocks.
    REQUIRE(run("trace --kernel attention-flash2 --batch 1 --heads 2 --seq 1000 --head-dim 64 --tile-m 64 "
                "--gpu h100-sxm --out " + out) == 0);
    const boost::json::value v = boost::json::parse(slurp(out));
    std::set<std::int64_t> blocks;
    std::size_t block_events = 0;
    bool hbm_counter = false;
    for (const auto& e : v.at("traceEvents").as_array()) {
        const auto& o = e.as_object();
        if (o.at("ph").as_string() == "X" && o.at("name").as_string().starts_with("block ")) {
            blocks.insert(o.at("args").at("block").as_int64());
            ++block_events;
        }
        if (o.at("ph").as_string() == "C" && o.at("name").as_string() == "HBM bandwidth") hbm_counter = true;
    }
    CHECK(block_events == 32);
    CHECK(blocks.size() == 32);
    CHECK(hbm_counter);
}

TEST_CASE("l2 flag: on and off accepted, anything else is exit code 2", "[cli][l2]") {
    CHECK(run("predict --kernel gemm --m 256 --n 256 --k 256 --gpu h100-sxm --l2 off") == 0);
    CHECK(run("predict --kernel gemm --m 256 --n 256 --k 256 --gpu h100-sxm --l2 on --model sim") == 0);
    CHECK(run("predict --kernel gemm --m 256 --n 256 --k 256 --gpu h100-sxm --l2 maybe") == 2);
    CHECK(run("trace --kernel gemm --m 256 --n 256 --k 256 --gpu h100-sxm --l2 nope --out /dev/null") == 2);
}
