# Reliability tests of every chapter executable, added by course_add_chapter through
# course_add_reliability_tests(<target> <student|solution>). tests/reliability/reliability.py
# runs the checks and lists an executable's tests each time CTest runs (`reliability.py tests`), so
# that planted bugs (`<target> --describe`) and rows of large_cases.txt need no reconfiguring:
#   <target>.bad_input, .no_device      every executable; labels cpu, reliability
#   <target>.check.<id>                 the student's edition: each check its --describe lists,
#                                       on the student's kernels, when COURSE_CHECK names the
#                                       chapter (else SKIPPED); labels cpu (spills, sass: cuobjdump
#                                       reads the code) or gpu, and chNN
#   <target>.sanitize.<tool>.<problem>, .edge_sizes.<problem>, .refuse_oversize, .grid_limits,
#   .index_boundary, .bughunt.<bug>, .large.<case>     solutions only; labels gpu, solutions,
#                                       reliability, and sanitize, bughunt or large
# tests/reliability/CMakeLists.txt adds the harness's own tests.
set(COURSE_LARGE_TESTS OFF CACHE STRING
    "Large-size GPU tests (label large): OFF, ON (just past 2^31 elements) or MAX (up to 36 GiB)")
set_property(CACHE COURSE_LARGE_TESTS PROPERTY STRINGS OFF ON MAX)

find_program(COURSE_COMPUTE_SANITIZER NAMES compute-sanitizer
  HINTS "${CUDAToolkit_BIN_DIR}" "${CUDAToolkit_BIN_DIR}/../compute-sanitizer"
  DOC "compute-sanitizer for the sanitize tests (they are skipped without it)")
if(COURSE_COMPUTE_SANITIZER)
  message(STATUS "compute-sanitizer: ${COURSE_COMPUTE_SANITIZER}")
else()
  message(STATUS "compute-sanitizer not found: the sanitize tests will be skipped")
endif()
find_program(COURSE_NCU NAMES ncu
  HINTS "${CUDAToolkit_BIN_DIR}" "${CUDAToolkit_BIN_DIR}/../nsight-compute"
  DOC "Nsight Compute for the bug-hunt tests of ncu:<metric> bugs (skipped without it)")
find_program(COURSE_CUOBJDUMP NAMES cuobjdump HINTS "${CUDAToolkit_BIN_DIR}"
  DOC "cuobjdump for the spill and machine-code checks of a student's kernels (else skipped)")
find_package(Python3 COMPONENTS Interpreter QUIET)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "python3 not found: the reliability tests (label reliability) are left out")
endif()
set(COURSE_RELIABILITY ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/reliability/reliability.py)

# <edition> planted: a made-up chapter of the harness's own (its planted bugs only).
function(course_add_reliability_tests target edition)
  if(NOT Python3_Interpreter_FOUND)
    return()
  endif()
  list(JOIN COURSE_RELIABILITY "]==] [==[" command)
  set(file "${CMAKE_CURRENT_BINARY_DIR}/${target}_reliability.cmake")
  file(GENERATE OUTPUT "${file}" CONTENT "execute_process(COMMAND [==[${command}]==] tests
  [==[$<TARGET_FILE:${target}>]==] --target=${target} --edition=${edition}
  --large=${COURSE_LARGE_TESTS} [==[--sanitizer=${COURSE_COMPUTE_SANITIZER}]==]
  [==[--ncu=${COURSE_NCU}]==] [==[--cuobjdump=${COURSE_CUOBJDUMP}]==]
  [==[--build-dir=${PROJECT_BINARY_DIR}]==] OUTPUT_VARIABLE tests RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR \"listing the reliability tests of ${target} failed:\\n\${tests}\")
endif()
cmake_language(EVAL CODE \"\${tests}\")
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${file}")
endfunction()
