// The one translation unit that provides Catch2's main() for all graphpat tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
