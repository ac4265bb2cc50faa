# course_add_chapter(NUMBER <NN> SLUG <slug> [SM90A] [SMOKE_ARGS <args...>]) adds one chapter:
#   chNN_<slug>             the chapter's main.cu built with the student's chapters/NN_<slug>/kernels.cuh
#   chNN_<slug>_solution    the same main.cu built with solutions/NN_<slug>/kernels.cuh
#   tests/gpu/chNN.cu       built against each edition (test_chNN, test_chNN_solution)
#   CTest runs of both executables at a small size (SMOKE_ARGS).
# The solution edition only where the build has solutions/ (COURSE_SOLUTIONS, the top-level
# CMakeLists.txt): COURSE_EDITIONS lists the editions built. Each executable times the previous
# chapter on the same inputs: its solution where the build has solutions/ (main.cu includes it
# when COURSE_PREVIOUS_FROM_SOLUTIONS is defined), the student's own chapter otherwise.
# SM90A: the chapter uses Hopper's own instructions; its executables, its tests and the ladder's
# copy of it are built through course_hopper_architectures() (below).
# NN_<slug> joins the global property COURSE_CHAPTERS, from which the ladder takes its chapters.
# Labels: solution tests "gpu;solutions", the student's "gpu;chNN". The student's tests are
# opt-in: they report SKIPPED unless COURSE_CHECK names the chapter (COURSE_CHECK=chNN or all).
# Every chapter also joins:
#   student_editions        a target that builds every student executable and its tests
#                           (scripts/progress.sh builds it)
#   <build>/course_chapters.json  the build's chapters, in order: for each, its label (chNN), its
#                           number, its folder name (NN_slug), its student and solution
#                           executables and the targets that build the student's edition. The
#                           tools take the list of chapters from it and everything else about a
#                           chapter from `<executable> --describe` (docs/pages/tools.md).
#                           Without solutions (a hand-out, COURSE_SOLUTIONS OFF) the solution
#                           executable is "".
set(COURSE_EDITIONS student)
if(COURSE_SOLUTIONS)
  list(APPEND COURSE_EDITIONS solution)
endif()
set(COURSE_DEFAULT_SMOKE_ARGS -m 67 -n 45 -k 33 --height 37 --width 29 --mask 5x3
    --taps 7 --warmup 1 --reps 2)

# course_hopper_architectures(<target>): the target's code for compute capability 9.0 becomes
# sm_90a (Hopper's own instructions: wgmma, setmaxnreg); other architectures stay as they are.
function(course_hopper_architectures target)
  list(TRANSFORM CMAKE_CUDA_ARCHITECTURES REPLACE "^90(-real|-virtual)?$" "90a-real"
       OUTPUT_VARIABLE archs)
  set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES ${archs})
endfunction()

function(course_add_chapter)
  cmake_parse_arguments(CH "SM90A" "NUMBER;SLUG" "SMOKE_ARGS" ${ARGN})
  if(NOT CH_SMOKE_ARGS)
    set(CH_SMOKE_ARGS ${COURSE_DEFAULT_SMOKE_ARGS})
  endif()
  set(dir "${CH_NUMBER}_${CH_SLUG}")
  set(label "ch${CH_NUMBER}")
  set(student_targets "")
  # The chapters added so far, for the ladder (scripts/ladder/CMakeLists.txt).
  set_property(GLOBAL APPEND PROPERTY COURSE_CHAPTERS ${dir})
  if(CH_SM90A)  # the ladder compiles these chapters for sm_90a too
    set_property(GLOBAL APPEND PROPERTY COURSE_SM90A_CHAPTERS ${dir})
  endif()
  foreach(edition ${COURSE_EDITIONS})
    set(suffix "")
    set(kernels_dir "chapters/${dir}")
    set(labels gpu ${label})
    if(edition STREQUAL "solution")
      set(suffix "_solution")
      set(kernels_dir "solutions/${dir}")
      set(labels gpu solutions)
    endif()
    set(target "${label}_${CH_SLUG}${suffix}")
    set(test_target "test_${label}${suffix}")
    add_executable(${target} ${PROJECT_SOURCE_DIR}/chapters/${dir}/main.cu)
    course_use_kernels(${target} ${kernels_dir} ${edition})
    if(COURSE_SOLUTIONS)
      target_compile_definitions(${target} PRIVATE COURSE_PREVIOUS_FROM_SOLUTIONS)
    endif()
    if(CH_SM90A)
      course_hopper_architectures(${target})
    endif()
    course_add_run_test(${target} ${label} ${edition} ${CH_SMOKE_ARGS})
    # Sanitizer runs and the bad-input table for this executable (cmake/CourseReliability.cmake).
    if(COURSE_BUILD_TESTS AND COMMAND course_add_reliability_tests)
      course_add_reliability_tests(${target} ${edition})
    endif()
    if(COURSE_BUILD_TESTS AND EXISTS ${PROJECT_SOURCE_DIR}/tests/gpu/${label}.cu)
      add_executable(${test_target} ${PROJECT_SOURCE_DIR}/tests/gpu/${label}.cu)
      course_use_kernels(${test_target} ${kernels_dir} ${edition})
      if(CH_SM90A)
        course_hopper_architectures(${test_target})
      endif()
      target_link_libraries(${test_target} PRIVATE course_test_support course_catch2_main)
      target_compile_definitions(${test_target} PRIVATE COURSE_CHAPTER_LABEL="${label}")
      course_add_catch_tests(${test_target} LABELS ${labels})
      if(edition STREQUAL "student")
        list(APPEND student_targets ${test_target})
      endif()
    endif()
  endforeach()
  list(APPEND student_targets ${label}_${CH_SLUG})
  add_dependencies(student_editions ${student_targets})
  set(solution_file "")
  if(COURSE_SOLUTIONS)
    set(solution_file "$<TARGET_FILE:${label}_${CH_SLUG}_solution>")
  endif()
  list(JOIN student_targets "\", \"" json_targets)
  math(EXPR number "${CH_NUMBER}")
  set_property(GLOBAL APPEND PROPERTY COURSE_CHAPTER_JSON
    "    {\"label\": \"${label}\", \"number\": ${number}, \"folder\": \"${dir}\", \"student\": \"$<TARGET_FILE:${label}_${CH_SLUG}>\", \"solution\": \"${solution_file}\", \"student_targets\": [\"${json_targets}\"]}")
endfunction()

# course_add_run_test(<target> <chNN> <student|solution> [args...]): CTest runs the executable
# with the arguments through `tests/reliability/reliability.py run` (with the Python that
# cmake/CourseReliability.cmake found): it fails on FAIL, and a student's edition runs only on
# request. Labels: "gpu;solutions" for a solution, "gpu;chNN" for a student's.
function(course_add_run_test target label edition)
  if(NOT COURSE_BUILD_TESTS OR NOT Python3_Interpreter_FOUND)
    return()
  endif()
  set(labels gpu ${label})
  if(edition STREQUAL "solution")
    set(labels gpu solutions)
  endif()
  add_test(NAME ${target}.run COMMAND ${COURSE_RELIABILITY} run $<TARGET_FILE:${target}>
           --edition=${edition} --chapter=${label} -- ${ARGN})
  set_tests_properties(${target}.run PROPERTIES LABELS "${labels}"
    SKIP_REGULAR_EXPRESSION "SKIPPED:")
endfunction()

add_custom_target(student_editions)
set_property(GLOBAL PROPERTY COURSE_CHAPTER_JSON "")

# Writes <build>/course_chapters.json once every chapter has been added (deferred to the end of the
# top-level CMakeLists.txt).
function(_course_write_chapter_manifest)
  get_property(entries GLOBAL PROPERTY COURSE_CHAPTER_JSON)
  list(JOIN entries ",\n" content)
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/course_chapters.json
       CONTENT "{\n  \"schema\": 1,\n  \"chapters\": [\n${content}\n  ]\n}\n")
endfunction()
cmake_language(DEFER CALL _course_write_chapter_manifest)

# course_use_kernels(<target> <kernels-dir> <student|solution>)
# Points <target>'s `#include <kernels.cuh>` at <kernels-dir> and tells the code which edition it is.
# The repository root is on the include path too, so a driver can include the previous chapter's
# kernels as "solutions/NN_slug/kernels.cuh" (or "chapters/NN_slug/kernels.cuh") to report its
# speedup over them.
function(course_use_kernels target kernels_dir edition)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/${kernels_dir}
                                               ${PROJECT_SOURCE_DIR})
  target_compile_definitions(${target} PRIVATE
    COURSE_KERNELS_FILE="${kernels_dir}/kernels.cuh"
    $<$<STREQUAL:${edition},solution>:COURSE_SOLUTION_EDITION>)
  target_link_libraries(${target} PRIVATE course_common course_warnings)
endfunction()
