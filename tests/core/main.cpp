// Catch2 main for the core tests (kept alone so test files recompile quickly).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
