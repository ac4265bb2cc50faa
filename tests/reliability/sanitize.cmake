cmake_policy(VERSION 3.25)
# Runs one problem of a chapter executable under one compute-sanitizer tool, at small awkward
# sizes and in every launch variant the executable offers (tile and block widths, thread
# mappings, compiled mask sizes and tap counts, kernel variants), and fails if the tool reports
# anything.
#   -DCOMPUTE_SANITIZER=<path>  the tool, found at configure time (if not: looked up on PATH)
#   -DTOOL=memcheck|racecheck|synccheck|initcheck
#   -DEXECUTABLE=<path>
#   -DPROBLEM=matmul|minplus|conv2d|conv1d
#   -DARGS=<a,b,...>  one command line instead of PROBLEM's variants (the large cases): a
#                     refusal (exit status 4, one error line, nothing reported) passes too, and a
#                     machine too small for it skips the test
# The harness's own tests run a deliberately broken executable (no PROBLEM):
#   -DARGS=<arguments>            what to run
#   -DEXPECT_FINDING=<regex>      pass only if the tool reports errors and its report matches this
# Prints "SKIPPED: ..." (a CTest skip) where there is no compute-sanitizer or no CUDA device.
# With -DDRY_RUN=ON it prints the command lines it would run under the tool, one a line, and runs
# none (no compute-sanitizer or device needed).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# The exit status compute-sanitizer gives when it found errors: distinct from the executables' own
# statuses (0 to 4), so a report can tell the two apart.
set(sanitizer_error_exit 99)
# Seconds one run under the tool may take; racecheck is the slowest.
set(run_timeout 600)
# Timing is not the point here: one checked run and one timed run, and none of the previous
# chapter's kernels (they are checked with their own chapter).
set(quick --warmup 0 --reps 1 --no-compare)

set(sanitizer "${COMPUTE_SANITIZER}")
if(NOT sanitizer OR NOT EXISTS "${sanitizer}")
  find_program(sanitizer_on_path compute-sanitizer)
  set(sanitizer "${sanitizer_on_path}")
endif()
if(NOT sanitizer AND NOT DRY_RUN)
  message("SKIPPED: compute-sanitizer was not found (it comes with the CUDA toolkit; "
          "reconfigure with -DCOURSE_COMPUTE_SANITIZER=<path> to use it)")
  return()
endif()
if(NOT TOOL MATCHES "^(memcheck|racecheck|synccheck|initcheck)$")
  message(FATAL_ERROR "TOOL must be memcheck, racecheck, synccheck or initcheck, got '${TOOL}'")
endif()

# The runs: each element is one command line, its arguments separated by spaces.
set(runs "")
if(DEFINED PROBLEM)
  rel_skip_unless_offered("${EXECUTABLE}" ${PROBLEM})
endif()
if(DEFINED ARGS)
  # The arguments may come separated by commas (a CTest command line cannot carry a list).
  string(REGEX REPLACE "[,;]" " " one_run "${ARGS}")
  if(DEFINED PROBLEM)
    string(PREPEND one_run "--problem ${PROBLEM} ")
  endif()
  list(APPEND runs "${one_run}")
  separate_arguments(probe_arguments UNIX_COMMAND "${one_run}")
  if(DEFINED PROBLEM)
    list(APPEND probe_arguments ${quick})
    # A large case: minutes under the tool, not seconds.
    set(run_timeout 1500)
  endif()
else()
  rel_read_help("${EXECUTABLE}")
  rel_launch_variants()
  set(product_variants ${REL_PRODUCT_VARIANTS})
  set(conv_variants ${REL_CONV_VARIANTS})

  set(p "--problem ${PROBLEM}")
  if(PROBLEM STREQUAL "matmul" OR PROBLEM STREQUAL "minplus")
    set(sizes "-m 33 -n 65 -k 17")
    list(APPEND runs "${p} ${sizes}")
    foreach(variant IN LISTS product_variants)
      list(APPEND runs "${p} ${sizes} ${variant}")
    endforeach()
  elseif(PROBLEM STREQUAL "conv2d")
    set(image "--height 37 --width 29")
    if(REL_MASK_SIDES)
      # Every compiled mask side is a kernel of its own.
      list(GET REL_MASK_SIDES 0 default_side)
      foreach(side IN LISTS REL_MASK_SIDES)
        list(APPEND runs "${p} ${image} --mask ${side}")
      endforeach()
    else()
      set(default_side 13)
      # Square, and non-square both ways round (a chapter may compile one of them).
      list(APPEND runs "${p} ${image} --mask 13" "${p} ${image} --mask 5x3"
                       "${p} ${image} --mask 3x5")
      if(REL_MASK_MAX GREATER_EQUAL 63)
        # The largest mask: its tile needs more than the default 48 KB of shared memory per block
        # in a chapter that stages mask and tile together.
        list(APPEND runs "${p} --height 70 --width 70 --mask 63")
      endif()
    endif()
    foreach(variant IN LISTS conv_variants)
      list(APPEND runs "${p} ${image} --mask ${default_side} ${variant}")
    endforeach()
    # A kernel variant may compile its own kernels for small square masks (chapter 3's dispatch).
    foreach(kernel_variant IN LISTS REL_OTHER_VARIANTS)
      foreach(side 1 3 5 7 9 11)
        if(side LESS_EQUAL REL_MASK_MAX)
          list(APPEND runs "${p} ${image} --mask ${side} --variant ${kernel_variant}")
        endif()
      endforeach()
    endforeach()
  elseif(PROBLEM STREQUAL "conv1d")
    if(REL_TAP_COUNTS)
      # Every compiled tap count is a kernel of its own; the largest also with a signal shorter
      # than its halo and with one whose second block reads the first one's inputs as its halo
      # (blocks of up to 256 outputs), the middle one with n one past 256.
      rel_tap_choices()
      set(taps ${REL_TAPS_LARGEST})
      foreach(count IN LISTS REL_TAP_COUNTS)
        list(APPEND runs "${p} -n 100 --taps ${count}")
      endforeach()
      list(APPEND runs "${p} -n 37 --taps ${REL_TAPS_LARGEST}"
                       "${p} -n 300 --taps ${REL_TAPS_LARGEST}"
                       "${p} -n 257 --taps ${REL_TAPS_MIDDLE}")
    else()
      set(taps 37)
      set(more_taps 100)
      if(REL_MAX_TAPS GREATER 0 AND REL_MAX_TAPS LESS more_taps)
        set(more_taps ${REL_MAX_TAPS})
      endif()
      if(REL_MAX_TAPS GREATER 0 AND REL_MAX_TAPS LESS taps)
        set(taps ${REL_MAX_TAPS})
      endif()
      list(APPEND runs "${p} -n 100 --taps ${taps}" "${p} -n 37 --taps ${more_taps}")
      if(REL_MAX_TAPS GREATER more_taps)
        list(APPEND runs "${p} -n 300 --taps ${REL_MAX_TAPS}")
      endif()
    endif()
    foreach(variant IN LISTS conv_variants)
      list(APPEND runs "${p} -n 100 --taps ${taps} ${variant}")
    endforeach()
  else()
    message(FATAL_ERROR "PROBLEM must be matmul, minplus, conv2d or conv1d, got '${PROBLEM}'")
  endif()
  list(GET runs 0 first_run)
  separate_arguments(probe_arguments UNIX_COMMAND "${first_run}")
  list(APPEND probe_arguments ${quick})
endif()

# Reads a tool's report. Sets <prefix>_SUMMARY (TRUE when a summary line is there: "ERROR
# SUMMARY: N errors", or racecheck's "RACECHECK SUMMARY: N hazards displayed (E errors, W
# warnings)") and <prefix>_FINDINGS (every count in them, summed: a warning fails too).
function(read_report prefix text)
  set(findings 0)
  set(summary FALSE)
  string(REGEX MATCHALL "ERROR SUMMARY: [0-9]+ errors?" error_lines "${text}")
  foreach(line IN LISTS error_lines)
    string(REGEX MATCH "[0-9]+" count "${line}")
    math(EXPR findings "${findings} + ${count}")
    set(summary TRUE)
  endforeach()
  string(REGEX MATCHALL
         "RACECHECK SUMMARY: [0-9]+ hazards? displayed \\([0-9]+ errors?, [0-9]+ warnings?\\)"
         race_lines "${text}")
  foreach(line IN LISTS race_lines)
    string(REGEX MATCHALL "[0-9]+" counts "${line}")
    foreach(count IN LISTS counts)
      math(EXPR findings "${findings} + ${count}")
    endforeach()
    set(summary TRUE)
  endforeach()
  set(${prefix}_SUMMARY ${summary} PARENT_SCOPE)
  set(${prefix}_FINDINGS ${findings} PARENT_SCOPE)
endfunction()

# Stops with a skip when the failure came from having no CUDA device: the executable, run on its
# own, says so with exit status 3.
macro(skip_if_no_device)
  rel_run(probe 120 OFF "${EXECUTABLE}" ${probe_arguments})
  if(probe_RESULT STREQUAL "3")
    message("SKIPPED: no CUDA device")
    return()
  endif()
endmacro()

if(DRY_RUN)
  foreach(run IN LISTS runs)
    message("${run}")
  endforeach()
  return()
endif()

set(REL_FAILURES "")
foreach(run IN LISTS runs)
  separate_arguments(arguments UNIX_COMMAND "${run}")
  if(DEFINED PROBLEM)
    list(APPEND arguments ${quick})
  endif()
  rel_describe(shown ${arguments})
  string(TIMESTAMP start "%s")
  rel_run(tool ${run_timeout} OFF "${sanitizer}" --tool ${TOOL}
          --error-exitcode ${sanitizer_error_exit} --print-limit 100
          "${EXECUTABLE}" ${arguments})
  rel_elapsed(seconds ${start})
  set(report "${tool_OUT}\n${tool_ERR}")
  read_report(report "${report}")
  set(reason "")
  set(refusal FALSE)
  if(NOT tool_RESULT MATCHES "^[0-9]+$")
    set(reason "it did not finish: ${tool_RESULT}")
  elseif(NOT report_SUMMARY)
    set(reason "the ${TOOL} summary is missing from the report (exit status ${tool_RESULT})")
  elseif(report MATCHES "Internal Sanitizer Error|terminated before first instrumented API call")
    set(reason "compute-sanitizer could not check the run (exit status ${tool_RESULT})")
  elseif(DEFINED EXPECT_FINDING)
    if(report_FINDINGS EQUAL 0 OR tool_RESULT STREQUAL "0")
      set(reason "${TOOL} reported nothing (exit status ${tool_RESULT}), yet the kernel is broken")
    elseif(NOT report MATCHES "${EXPECT_FINDING}")
      set(reason "${TOOL} reported errors, but none matches '${EXPECT_FINDING}'")
    endif()
  elseif(report_FINDINGS GREATER 0 OR tool_RESULT STREQUAL "${sanitizer_error_exit}")
    set(reason "${TOOL} reported ${report_FINDINGS} errors or hazards")
  elseif(DEFINED ARGS AND tool_RESULT STREQUAL "4" AND tool_ERR MATCHES "${REL_TOO_SMALL}")
    message("SKIPPED: this machine cannot hold '${shown}'")
    return()
  elseif(DEFINED ARGS AND tool_RESULT STREQUAL "4" AND tool_ERR MATCHES "(^|\n)error: "
         AND NOT tool_ERR MATCHES "${REL_CRASH}")
    # A large case the chapter refuses cleanly: nothing to check.
    set(refusal TRUE)
  elseif(NOT tool_RESULT STREQUAL "0")
    set(reason "the executable exited with status ${tool_RESULT} under ${TOOL}")
  endif()
  if(reason STREQUAL "")
    if(DEFINED EXPECT_FINDING)
      message("${TOOL} caught it (${report_FINDINGS} counted, exit status ${tool_RESULT}, "
              "${seconds} s): ${shown}")
    elseif(refusal)
      rel_error_line(error_line "${tool_ERR}")
      message("refused, ${TOOL} clean (${seconds} s): ${shown}\n  ${error_line}")
    else()
      message("${TOOL} clean (${seconds} s): ${shown}")
    endif()
  else()
    skip_if_no_device()
    rel_note_failure("${shown}" "${reason}" "${report}")
  endif()
endforeach()

rel_report_failures("${TOOL} of ${EXECUTABLE}: see the reports above")
