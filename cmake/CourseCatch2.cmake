# Finds Catch2 v3 (Ubuntu 24.04) or v2.13 (Debian 12) and provides:
#   course_catch2_main  an interface target that links Catch2 with a main() of either version;
#   course_add_catch_tests(<target> LABELS <labels...>)  registers the tests with CTest.
# tests/catch.hpp hides the version difference from the test sources.
find_package(Catch2 3 QUIET)
add_library(course_catch2_main INTERFACE)
if(Catch2_FOUND)
  set(COURSE_CATCH2_MAJOR 3)
  target_link_libraries(course_catch2_main INTERFACE Catch2::Catch2WithMain)
else()
  find_package(Catch2 2.13 REQUIRED)
  set(COURSE_CATCH2_MAJOR 2)
  add_library(course_catch2_main_v2 STATIC ${PROJECT_SOURCE_DIR}/tests/catch_main_v2.cpp)
  target_link_libraries(course_catch2_main_v2 PUBLIC Catch2::Catch2)
  target_link_libraries(course_catch2_main INTERFACE course_catch2_main_v2)
endif()
message(STATUS "Catch2 ${Catch2_VERSION} (major ${COURSE_CATCH2_MAJOR})")
include(Catch)

# Tests print "SKIPPED: <reason>" and return when they cannot run here (no GPU, no
# compute-sanitizer, or a student's chapter that was not asked for); CTest then reports them as
# skipped, never as passed.
set(COURSE_SKIP_REGEX "SKIPPED:")

function(course_add_catch_tests target)
  cmake_parse_arguments(ARG "" "" "LABELS" ${ARGN})
  catch_discover_tests(${target} TEST_PREFIX "${target}: " TEST_LIST ${target}_TESTS)
  # Properties given to catch_discover_tests lose the semicolons of a list (several labels), so
  # the labels are set by a second CTest include file, read after the one listing the tests.
  set(properties_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_properties.cmake")
  file(WRITE "${properties_file}"
    "if(${target}_TESTS)\n"
    "  set_tests_properties(\${${target}_TESTS} PROPERTIES\n"
    "    LABELS \"${ARG_LABELS}\" SKIP_REGULAR_EXPRESSION \"${COURSE_SKIP_REGEX}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${properties_file}")
endfunction()
