#include <catch2/catch.hpp>

#include "validate/split.hpp"

using namespace tilescope;
using namespace tilescope::validate;

namespace {
Workload flash2(int64_t n, int br, int bc) {
    Workload w;
    w.kernel = KernelFamily::attention_flash2;
    w.dtype = DType::fp16;
    w.batch = 16384 / n;
    w.heads = 32;
    w.seq_q = w.seq_kv = n;
    w.head_dim = 64;
    w.tile = Tile{br, bc, 0, 2, br / 16};
    return w;
}
}  // namespace

TEST_CASE("FNV-1a 64 reference values", "[validate][split]") {
    CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
    CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
    CHECK(fnv1a64("foobar") == 0x85944171f73967e8ULL);
}

TEST_CASE("case names: tile only in the name, not in the sweep key", "[validate][split]") {
    const Workload a = flash2(8192, 64, 64);
    const Workload b = flash2(8192, 128, 32);
    CHECK(sweep_key(a) == "attention-flash2/fp16/b2/h32/n8192/nkv8192/d64/c0");
    CHECK(case_name(a) == "attention-flash2/fp16/b2/h32/n8192/nkv8192/d64/c0|t64x64x0/s2/w4");
    CHECK(sweep_key(a) == sweep_key(b));
    CHECK(case_name(a) != case_name(b));
    // The whole sweep is on one side of the split.
    CHECK(split_of(a) == split_of(b));
    CHECK(split_of(a) == (fnv1a64(sweep_key(a)) % 2 == 0 ? Split::train : Split::heldout));
    // A persistent grid is another workload (its own case), in every family; a non-persistent
    // attention or softmax key is unchanged by it.
    Workload p = a;
    p.persistent = true;
    CHECK(sweep_key(p) == "attention-flash2/fp16/b2/h32/n8192/nkv8192/d64/c0/p1");
    CHECK(case_name(p) != case_name(a));
}

TEST_CASE("the split puts sweeps on both sides", "[validate][split]") {
    int train = 0, held = 0;
    for (int64_t n : {512, 1024, 2048, 4096, 8192, 16384}) {
        (split_of(flash2(n, 64, 64)) == Split::train ? train : held) += 1;
    }
    CHECK(train + held == 6);
    // Not a statistical claim: just that the rule is not degenerate on this family.
    CHECK(train > 0);
    CHECK(held > 0);
}

#include "core/lower.hpp"
#include "validate/dataset_cases.hpp"

TEST_CASE("every data-set case is a valid workload that lowers on the H100 profile", "[validate][dataset]") {
    const auto specs = dataset_case_specs();
    CHECK(specs.size() == 48 + 108 + 108 + 32 + 90);
    auto hw = load_hardware("h100-sxm");
    REQUIRE(hw.ok());
    std::size_t train = 0;
    for (const auto& s : specs) {
        auto w = make_workload(s);
        INFO((w.ok() ? std::string() : w.error().message));
        REQUIRE(w.ok());
        auto l = lower(*w, *hw);
        INFO(describe(*w));
        CHECK(l.ok());
        train += split_of(*w) == Split::train ? 1 : 0;
    }
    // Both sides of the split are well populated (the rule is fixed; this guards a degenerate key).
    CHECK(train > specs.size() / 4);
    CHECK(train < 3 * specs.size() / 4);
}

TEST_CASE("dataset_cases selects by split and by case-name text (calibrate --cases-matching)", "[validate][dataset]") {
    auto all = dataset_cases(false, {});
    REQUIRE(all.ok());
    CHECK(all->size() == dataset_case_specs().size());
    auto train = dataset_cases(true, {});
    REQUIRE(train.ok());
    CHECK(train->size() == 212);  // the data set's training half (docs/validation, "How the split was made")
    for (const auto& w : *train) CHECK(split_of(w) == Split::train);

    // One shape of change 27's grid: both variants x three tiles; a second pattern adds its cases.
    auto one = dataset_cases(false, {"/r1024/c16384|"});
    REQUIRE(one.ok());
    CHECK(one->size() == 6);
    for (const auto& w : *one) CHECK(case_name(w).find("softmax/fp16/") == 0);
    auto two = dataset_cases(false, {"/r1024/c16384|", "/r512/c32768|"});
    REQUIRE(two.ok());
    CHECK(two->size() == 12);
    // That shape is held out, so the training half has none of it.
    auto none_in_train = dataset_cases(true, {"/r1024/c16384|"});
    REQUIRE_FALSE(none_in_train.ok());
    auto nothing = dataset_cases(false, {"no such case"});
    REQUIRE_FALSE(nothing.ok());
    CHECK(nothing.error().message.find("--cases-matching") != std::string::npos);
}
