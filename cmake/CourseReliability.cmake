# Reliability tests of every chapter executable, added by course_add_chapter through
# course_add_reliability_tests(<target> <chNN> <student|solution>). The scripts and tables live in
# tests/reliability/; tests/reliability/CMakeLists.txt adds the harness's own tests.
#
# Every executable (labels "cpu;reliability", no GPU needed):
#   <target>.bad_input    every row of tests/reliability/bad_input_table.txt is refused with exit
#                         status 2 and one "error: " line naming the flag and the value
#   <target>.no_device    with no visible CUDA device: one line on stderr and exit status 3
# Solution executables only (labels "gpu;solutions;reliability", skipped without a GPU):
#   <target>.sanitize.<tool>.<problem>   compute-sanitizer memcheck, racecheck, synccheck and
#                         initcheck at small awkward sizes in every launch variant; label
#                         "sanitize" too; skipped without compute-sanitizer
#   <target>.edge_sizes.<problem>   sizes 1 and 2 in every dimension
#   <target>.refuse_oversize        sizes that fit no GPU: refused before allocation (exit 4)
#   <target>.grid_limits            outputs 4194241 long in y: PASS or a clear refusal
#   <target>.index_boundary         a product output of more than 2^31 elements
#   <target>.large.<case>           tests/reliability/large_cases.txt, label "large", only with
#                                   -DCOURSE_LARGE_TESTS=ON or MAX
#   <target>.bughunt.<bug>          every planted bug (`<target> --list-bugs`, read when CTest
#                                   runs, so a chapter adds bugs without touching CMake) under the
#                                   tool that must catch it, and the same tool clean on the
#                                   chapter's own kernels (tests/reliability/bughunt.py); label
#                                   "bughunt" too
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
find_package(Python3 COMPONENTS Interpreter QUIET)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "python3 not found: the bug-hunt tests (label bughunt) are left out")
endif()

set(COURSE_RELIABILITY_DIR "${PROJECT_SOURCE_DIR}/tests/reliability")
include(${COURSE_RELIABILITY_DIR}/common.cmake)  # rel_table_rows(), rel_table_columns()
set(COURSE_SANITIZER_TOOLS memcheck racecheck synccheck initcheck)
set(COURSE_RELIABILITY_PROBLEMS matmul minplus conv2d conv1d)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${COURSE_RELIABILITY_DIR}/large_cases.txt")

# course_add_bughunt_tests(<target> [WILL_FAIL_PREFIX <prefix>])
# Tests <target>.bughunt.<bug> for every planted bug that `<target> --list-bugs` prints when CTest
# runs (a CTest include file asks the executable), and one failing <target>.bughunt test when it
# prints none. Bugs whose names start with <prefix> must escape their tool (the harness's own
# tests: WILL_FAIL).
function(course_add_bughunt_tests target)
  cmake_parse_arguments(ARG "" "WILL_FAIL_PREFIX" "" ${ARGN})
  if(NOT Python3_Interpreter_FOUND)
    return()
  endif()
  set(file "${CMAKE_CURRENT_BINARY_DIR}/${target}_bughunt.cmake")
  set(template [==[
set(exe [[$<TARGET_FILE:@TARGET@>]])
set(hunt [[@PYTHON@]] [[@SCRIPT@]] --executable "${exe}" --sanitizer [[@SANITIZER@]] --ncu [[@NCU@]])
set(names "")
if(NOT EXISTS "${exe}")
  add_test([[@TARGET@.bughunt.NOT_BUILT]] [[@TARGET@.bughunt.NOT_BUILT]])
  list(APPEND names [[@TARGET@.bughunt.NOT_BUILT]])
else()
  execute_process(COMMAND "${exe}" --list-bugs RESULT_VARIABLE code OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 60)
  string(REPLACE ";" "," out "${out}")
  string(REGEX MATCHALL "[^
]+" lines "${out}")
  if(NOT code STREQUAL "0")
    add_test([[@TARGET@.bughunt]] [[@CMAKE@]] -E echo "FAIL: --list-bugs exited ${code}: ${err}")
    set_tests_properties([[@TARGET@.bughunt]] PROPERTIES WILL_FAIL TRUE)
    list(APPEND names [[@TARGET@.bughunt]])
  elseif(NOT lines)
    add_test([[@TARGET@.bughunt]] ${hunt} --none)
    list(APPEND names [[@TARGET@.bughunt]])
  endif()
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^([^	]+)	([^	]+)	")
      message(WARNING "@TARGET@ --list-bugs: not NAME<TAB>TOOL<TAB>summary: ${line}")
      continue()
    endif()
    # Kept before the next MATCHES, which sets CMAKE_MATCH_<n> anew.
    set(bug "${CMAKE_MATCH_1}")
    set(tool "${CMAKE_MATCH_2}")
    set(name "@TARGET@.bughunt.${bug}")
    add_test(${name} ${hunt} --bug ${bug} --tool ${tool})
    list(APPEND names ${name})
    if(tool MATCHES "^ncu:")
      # The profiler reads the GPU's counters, which one process at a time may hold.
      set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE)
    endif()
    if(NOT "@PREFIX@" STREQUAL "" AND bug MATCHES "^@PREFIX@")
      set_tests_properties(${name} PROPERTIES WILL_FAIL TRUE)
    endif()
  endforeach()
endif()
foreach(name IN LISTS names)
  set_tests_properties(${name} PROPERTIES LABELS "@LABELS@" TIMEOUT 3600
                       SKIP_REGULAR_EXPRESSION "SKIPPED:")
endforeach()
]==])
  set(TARGET ${target})
  set(PYTHON "${Python3_EXECUTABLE}")
  set(SCRIPT "${COURSE_RELIABILITY_DIR}/bughunt.py")
  set(SANITIZER "${COURSE_COMPUTE_SANITIZER}")
  set(NCU "${COURSE_NCU}")
  set(CMAKE "${CMAKE_COMMAND}")
  set(PREFIX "${ARG_WILL_FAIL_PREFIX}")
  set(LABELS "bughunt;gpu;solutions;reliability")
  string(CONFIGURE "${template}" content @ONLY)
  file(GENERATE OUTPUT "${file}" CONTENT "${content}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${file}")
endfunction()

function(course_add_reliability_tests target label edition)
  set(dir "${COURSE_RELIABILITY_DIR}")
  set(exe "$<TARGET_FILE:${target}>")
  set(skip SKIP_REGULAR_EXPRESSION "SKIPPED:")

  add_test(NAME ${target}.bad_input
    COMMAND ${CMAKE_COMMAND} -DEXECUTABLE=${exe} -DTABLE=${dir}/bad_input_table.txt
            -P ${dir}/bad_input.cmake)
  add_test(NAME ${target}.no_device
    COMMAND ${CMAKE_COMMAND} -DEXECUTABLE=${exe} -P ${dir}/no_device.cmake)
  set_tests_properties(${target}.bad_input ${target}.no_device PROPERTIES
    LABELS "cpu;reliability" TIMEOUT 300)

  # The rest checks kernels: the solutions' (a student's unfinished kernels would fail them).
  if(NOT edition STREQUAL "solution")
    return()
  endif()
  set(gpu_labels "gpu;solutions;reliability")
  course_add_bughunt_tests(${target})

  foreach(tool IN LISTS COURSE_SANITIZER_TOOLS)
    foreach(problem IN LISTS COURSE_RELIABILITY_PROBLEMS)
      set(name ${target}.sanitize.${tool}.${problem})
      add_test(NAME ${name}
        COMMAND ${CMAKE_COMMAND} "-DCOMPUTE_SANITIZER=${COURSE_COMPUTE_SANITIZER}"
                -DTOOL=${tool} -DEXECUTABLE=${exe} -DPROBLEM=${problem}
                -P ${dir}/sanitize.cmake)
      set_tests_properties(${name} PROPERTIES LABELS "sanitize;${gpu_labels}" TIMEOUT 1800 ${skip})
    endforeach()
  endforeach()

  foreach(problem IN LISTS COURSE_RELIABILITY_PROBLEMS)
    add_test(NAME ${target}.edge_sizes.${problem}
      COMMAND ${CMAKE_COMMAND} -DEXECUTABLE=${exe} -DMODE=edge -DPROBLEM=${problem}
              -P ${dir}/run_cases.cmake)
    set_tests_properties(${target}.edge_sizes.${problem} PROPERTIES
      LABELS "${gpu_labels}" TIMEOUT 900 ${skip})
  endforeach()

  foreach(mode_and_name refuse:refuse_oversize grid:grid_limits boundary:index_boundary)
    string(REPLACE ":" ";" mode_and_name "${mode_and_name}")
    list(GET mode_and_name 0 mode)
    list(GET mode_and_name 1 name)
    add_test(NAME ${target}.${name}
      COMMAND ${CMAKE_COMMAND} -DEXECUTABLE=${exe} -DMODE=${mode} -P ${dir}/run_cases.cmake)
    set_tests_properties(${target}.${name} PROPERTIES
      LABELS "${gpu_labels}" TIMEOUT 1200 ${skip})
  endforeach()
  # 8.6 GB of GPU memory each: one at a time, so that several chapters' boundary tests do not
  # crowd each other out of a smaller GPU.
  set_tests_properties(${target}.index_boundary PROPERTIES RESOURCE_LOCK course_gpu_memory)

  if(COURSE_LARGE_TESTS STREQUAL "ON" OR COURSE_LARGE_TESTS STREQUAL "MAX")
    rel_table_rows(rows "${dir}/large_cases.txt")
    foreach(row IN LISTS rows)
      rel_table_columns(column "${row}" 5 "large_cases.txt")
      set(tier ${column_1})
      set(case ${column_2})
      set(problem ${column_3})
      set(arguments "${column_4}")
      set(expect ${column_5})
      if(NOT tier MATCHES "^(on|max)$" OR NOT case MATCHES "^[a-z0-9_]+$"
         OR NOT problem IN_LIST COURSE_RELIABILITY_PROBLEMS
         OR NOT expect MATCHES "^(pass|refuse|pass-or-refuse|memcheck)$")
        message(FATAL_ERROR "large_cases.txt: a row needs a tier (on, max), a name, a problem and "
                            "an expectation (pass, refuse, pass-or-refuse, memcheck): ${row}")
      endif()
      if(tier STREQUAL "max" AND NOT COURSE_LARGE_TESTS STREQUAL "MAX")
        continue()
      endif()
      string(REPLACE " " ";" arguments "${arguments}")
      list(REMOVE_ITEM arguments "")
      list(JOIN arguments "," arguments)
      if(expect STREQUAL "memcheck")
        add_test(NAME ${target}.large.${case}
          COMMAND ${CMAKE_COMMAND} "-DCOMPUTE_SANITIZER=${COURSE_COMPUTE_SANITIZER}"
                  -DTOOL=memcheck -DEXECUTABLE=${exe} -DPROBLEM=${problem} "-DARGS=${arguments}"
                  -P ${dir}/sanitize.cmake)
      else()
        add_test(NAME ${target}.large.${case}
          COMMAND ${CMAKE_COMMAND} -DEXECUTABLE=${exe} -DMODE=large -DPROBLEM=${problem}
                  -DEXPECT=${expect} "-DARGS=${arguments}" -P ${dir}/run_cases.cmake)
      endif()
      # Up to 36 GiB of GPU memory and as much on the host: alone.
      set_tests_properties(${target}.large.${case} PROPERTIES
        LABELS "large;${gpu_labels}" TIMEOUT 3600 RUN_SERIAL TRUE ${skip})
    endforeach()
  endif()
endfunction()
