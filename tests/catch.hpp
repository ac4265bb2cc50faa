// The one place that knows which Catch2 is installed: v3 (Ubuntu 24.04) splits its headers,
// v2.13 (Debian 12) ships a single header. Test sources include this file only.
#pragma once

#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers.hpp>
#include <catch2/generators/catch_generators.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
