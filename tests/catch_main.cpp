// The one translation unit that instantiates Catch2's runner; kept apart because
// it is slow to compile and never changes.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
