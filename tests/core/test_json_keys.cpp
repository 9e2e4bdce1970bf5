// json_duplicate_key: a key stated twice in one object is found, with its path, wherever it is;
// equal keys in different objects, and texts without repeats, are not.
#include <catch2/catch.hpp>

#include <string>

#include "core/json_keys.hpp"

using tilescope::json_duplicate_key;
using tilescope::json_syntax_error;

TEST_CASE("json_duplicate_key finds a repeated key and names its path", "[json]") {
    CHECK(json_duplicate_key(R"({"a": 1, "a": 2})") == "$.a");
    CHECK(json_duplicate_key(R"({"x": {"y": 1, "z": [1, 2], "y": 3}})") == "$.x.y");
    // Inside arrays: the element's index is in the path (objects, arrays, scalars all count).
    CHECK(json_duplicate_key(R"({"l": [{"n": 1}, 7, "s", [0], null, true, 2.5, {"n": 1, "m": 2, "n": 3}]})") ==
          "$.l[7].n");
    CHECK(json_duplicate_key(R"([{"k": 1}, {"k": 1, "k": 1}])") == "$[1].k");
    // Keys compare as decoded strings: an escape that spells the same key is the same key.
    CHECK(json_duplicate_key(R"({"ab": 1, "a\u0062": 2})") == "$.ab");
    // The first repeat is reported, even when a later object repeats too.
    CHECK(json_duplicate_key(R"({"p": {"q": 1, "q": 2}, "p": 3})") == "$.p.q");
}

TEST_CASE("json_duplicate_key leaves distinct keys and invalid JSON alone", "[json]") {
    CHECK(json_duplicate_key(R"({"a": {"v": 1}, "b": {"v": 1}, "c": [{"v": 1}, {"v": 2}]})").empty());
    CHECK(json_duplicate_key(R"({"a": 1, "A": 2, "a ": 3})").empty());  // keys are case- and space-exact
    CHECK(json_duplicate_key("[1, 2, 3]").empty());
    CHECK(json_duplicate_key("{}").empty());
    CHECK(json_duplicate_key("").empty());
    CHECK(json_duplicate_key("{ not json").empty());  // the caller's parse reports that
    // A key longer than any parser buffer still compares whole (it may arrive in parts).
    const std::string big(100000, 'k');
    CHECK(json_duplicate_key("{\"" + big + "\": 1, \"" + big + "x\": 2}").empty());
    CHECK(json_duplicate_key("{\"" + big + "\": 1, \"" + big + "\": 2}") == "$." + big);
}

TEST_CASE("json_syntax_error says where the parser stopped", "[json]") {
    CHECK(json_syntax_error(R"({"a": [1, 2], "b": {"c": null}})").empty());
    CHECK(json_syntax_error(" 3.5 ").empty());
    CHECK(json_syntax_error("3.5").empty());  // a number that ends the text
    // NaN is not JSON: line 3, at the N.
    CHECK_THAT(json_syntax_error("{\n  \"a\": 1,\n  \"b\": NaN\n}"), Catch::StartsWith("not valid JSON at line 3, column 8 ("));
    // A truncated text stops at its end.
    CHECK_THAT(json_syntax_error("{\n  \"a\": [1, 2"), Catch::StartsWith("not valid JSON at line 2, column 13 ("));
    CHECK_THAT(json_syntax_error(""), Catch::StartsWith("not valid JSON at line 1, column 1 ("));
    // Two values are one too many: where the second starts.
    CHECK_THAT(json_syntax_error("{} {}"), Catch::StartsWith("not valid JSON at line 1, column 4 ("));
}
