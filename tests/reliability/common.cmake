# Helpers shared by the reliability scripts (run with cmake -P) and cmake/CourseReliability.cmake:
# reading the tables, running a chapter executable with arguments that may be empty, reading the
# flags it offers from its --help, asking it which problems it has, and reporting failed runs.
#
# An argument list is a CMake list; an element "<empty>" stands for an empty argument (a CMake
# list cannot hold one that survives expansion).

# What an executable says when this machine cannot hold a case (the driver's refusal, a failed
# host or device allocation, a launcher's workspace that does not fit).
set(REL_TOO_SMALL
    "of device memory|out of host memory|allocating [^\n]* failed|cudaErrorMemoryAllocation")
# What an executable says when a kernel faulted: never a clean refusal.
set(REL_CRASH "execution of|illegal|misaligned|unspecified launch failure|LaunchFailure|Assert")

# rel_table_rows(<out-var> <file>): the rows of a table (bad_input_table.txt, large_cases.txt), one
# list element each: the file's lines less the blank ones and the comments (#).
function(rel_table_rows out file)
  file(STRINGS "${file}" lines)
  set(rows "")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^[ \t]*(#|$)")
      list(APPEND rows "${line}")
    endif()
  endforeach()
  set(${out} "${rows}" PARENT_SCOPE)
endfunction()

# rel_table_columns(<prefix> <row> <count> <table-name>): the <count> columns of <row>, separated
# by '|' and stripped of surrounding blanks, as <prefix>_1 ... <prefix>_<count> in the caller's
# scope. Stops with an error naming <table-name> when the row has another number of columns.
function(rel_table_columns prefix row count table)
  string(REPLACE "|" ";" columns "${row}")
  list(LENGTH columns found)
  if(NOT found EQUAL count)
    message(FATAL_ERROR "${table}: a row needs ${count} columns separated by '|': ${row}")
  endif()
  set(index 0)
  foreach(column IN LISTS columns)
    math(EXPR index "${index} + 1")
    string(STRIP "${column}" column)
    set(${prefix}_${index} "${column}" PARENT_SCOPE)
  endforeach()
endfunction()

# rel_run(<prefix> <timeout-seconds> <hide-device: ON|OFF> <command...>)
# Runs <command...> and sets <prefix>_RESULT (the exit status, or the reason it ended: a signal
# name or "Process terminated due to timeout"), <prefix>_OUT (stdout) and <prefix>_ERR (stderr).
# With hide-device ON the command runs with CUDA_VISIBLE_DEVICES set to the empty string, so the
# CUDA runtime sees no device even on a machine that has one.
function(rel_run prefix timeout hide_device)
  set(code "execute_process(COMMAND")
  if(hide_device)
    string(APPEND code " [==[${CMAKE_COMMAND}]==] -E env CUDA_VISIBLE_DEVICES=")
  endif()
  rel_join_arguments(arguments "\"\"" "[==[" "]==]" ${ARGN})
  string(APPEND code "${arguments} RESULT_VARIABLE _rel_result OUTPUT_VARIABLE _rel_out"
                     " ERROR_VARIABLE _rel_err TIMEOUT ${timeout})")
  cmake_language(EVAL CODE "${code}")
  set(${prefix}_RESULT "${_rel_result}" PARENT_SCOPE)
  set(${prefix}_OUT "${_rel_out}" PARENT_SCOPE)
  set(${prefix}_ERR "${_rel_err}" PARENT_SCOPE)
endfunction()

# rel_describe(<out-var> <arguments...>): the arguments as one line to show in a report.
function(rel_describe out)
  rel_join_arguments(text "''" "" "" ${ARGN})
  string(STRIP "${text}" text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# rel_join_arguments(<out-var> <empty> <before> <after> <arguments...>): each argument, after a
# space, written as <before><argument><after>, or as <empty> where it is "<empty>".
function(rel_join_arguments out empty before after)
  set(text "")
  foreach(argument IN LISTS ARGN)
    if(argument STREQUAL "<empty>")
      string(APPEND text " ${empty}")
    else()
      string(APPEND text " ${before}${argument}${after}")
    endif()
  endforeach()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# rel_split_list(<out-var> <text>): "32, 16" -> "32;16".
function(rel_split_list out text)
  string(REGEX MATCHALL "[0-9]+" values "${text}")
  set(${out} "${values}" PARENT_SCOPE)
endfunction()

# rel_read_help(<executable>)
# Runs `<executable> --help` (no device needed) and sets, in the caller's scope:
#   REL_TILES       tile widths offered by --tile, the default first (empty: no --tile)
#   REL_BLOCKS      block widths offered by --block, the default first (empty: no --block)
#   REL_MAPPING     TRUE when --mapping coalesced|transposed is offered
#   REL_VARIANTS    kernel variants offered by --variant, the default first (empty: no --variant)
#   REL_SIGNAL_CSV  TRUE when --signal-csv is offered
#   REL_MASK_SIDES  square mask sides compiled in (empty: any odd size up to REL_MASK_MAX)
#   REL_MASK_MAX    the largest mask side accepted
#   REL_TAP_COUNTS  conv1d tap counts compiled in, the default first (empty: any count up to
#                   REL_MAX_TAPS)
#   REL_MAX_TAPS    the largest conv1d mask length (0: no limit of the chapter's own, or the
#                   counts are compiled in)
# Stops the script with an error when --help does not work.
macro(rel_read_help executable)
  rel_run(_rel_help 30 ON "${executable}" --help)
  if(NOT _rel_help_RESULT STREQUAL "0" OR NOT _rel_help_OUT MATCHES "usage:")
    message(FATAL_ERROR "'${executable} --help' did not print the usage (exit "
                        "${_rel_help_RESULT}):\n${_rel_help_OUT}${_rel_help_ERR}")
  endif()
  set(REL_TILES "")
  set(REL_BLOCKS "")
  set(REL_MAPPING FALSE)
  set(REL_VARIANTS "")
  set(REL_SIGNAL_CSV FALSE)
  set(REL_MASK_SIDES "")
  set(REL_MASK_MAX 0)
  set(REL_TAP_COUNTS "")
  set(REL_MAX_TAPS 0)
  if(_rel_help_OUT MATCHES "--tile T +product tile width: ([0-9, ]+)")
    rel_split_list(REL_TILES "${CMAKE_MATCH_1}")
  endif()
  if(_rel_help_OUT MATCHES "--block B +[a-z0-9 ]*block width: ([0-9, ]+)")
    rel_split_list(REL_BLOCKS "${CMAKE_MATCH_1}")
  endif()
  if(_rel_help_OUT MATCHES "--mapping ")
    set(REL_MAPPING TRUE)
  endif()
  if(_rel_help_OUT MATCHES "--variant V +kernel variant: ([a-z0-9, ]+)")
    string(REGEX MATCHALL "[a-z0-9]+" REL_VARIANTS "${CMAKE_MATCH_1}")
  endif()
  if(_rel_help_OUT MATCHES "--signal-csv ")
    set(REL_SIGNAL_CSV TRUE)
  endif()
  if(_rel_help_OUT MATCHES "conv2d mask, odd sides, square: ([0-9, ]+)")
    rel_split_list(REL_MASK_SIDES "${CMAKE_MATCH_1}")
    foreach(_rel_side IN LISTS REL_MASK_SIDES)
      if(_rel_side GREATER REL_MASK_MAX)
        set(REL_MASK_MAX ${_rel_side})
      endif()
    endforeach()
  elseif(_rel_help_OUT MATCHES "conv2d mask, odd sides up to ([0-9]+)")
    set(REL_MASK_MAX ${CMAKE_MATCH_1})
  else()
    message(FATAL_ERROR "'${executable} --help' does not describe --mask:\n${_rel_help_OUT}")
  endif()
  if(_rel_help_OUT MATCHES "--taps M +conv1d mask length, compiled in: ([0-9, ]+)")
    rel_split_list(REL_TAP_COUNTS "${CMAKE_MATCH_1}")
  elseif(_rel_help_OUT MATCHES "--taps M [^\n]*at most ([0-9]+)")
    set(REL_MAX_TAPS ${CMAKE_MATCH_1})
  endif()
endmacro()

# rel_tap_choices(): after rel_read_help, with tap counts compiled in, sets REL_TAPS_SMALLEST,
# REL_TAPS_MIDDLE and REL_TAPS_LARGEST to the smallest, the middle and the largest of them.
macro(rel_tap_choices)
  set(_rel_sorted_taps ${REL_TAP_COUNTS})
  list(SORT _rel_sorted_taps COMPARE NATURAL)
  list(LENGTH _rel_sorted_taps _rel_tap_count)
  math(EXPR _rel_middle "${_rel_tap_count} / 2")
  list(GET _rel_sorted_taps 0 REL_TAPS_SMALLEST)
  list(GET _rel_sorted_taps ${_rel_middle} REL_TAPS_MIDDLE)
  list(GET _rel_sorted_taps -1 REL_TAPS_LARGEST)
endmacro()

# rel_launch_variants(): after rel_read_help, sets REL_PRODUCT_VARIANTS and REL_CONV_VARIANTS to
# the launch choices other than the defaults, one string of arguments each ("--tile 16",
# "--mapping transposed", "--block 8", "--variant dispatch --tile 16"): each tile or block width
# may be a kernel of its own, in every kernel variant. REL_OTHER_VARIANTS holds the variants other
# than the default.
macro(rel_launch_variants)
  set(REL_PRODUCT_VARIANTS "")
  set(REL_CONV_VARIANTS "")
  set(REL_OTHER_VARIANTS "")
  if(REL_VARIANTS)
    list(SUBLIST REL_VARIANTS 1 -1 REL_OTHER_VARIANTS)
  endif()
  list(SUBLIST REL_TILES 1 -1 _rel_other_tiles)
  list(SUBLIST REL_BLOCKS 1 -1 _rel_other_blocks)
  foreach(_rel_variant "" ${REL_OTHER_VARIANTS})
    set(_rel_prefix "")
    if(_rel_variant)
      set(_rel_prefix "--variant ${_rel_variant} ")
      list(APPEND REL_PRODUCT_VARIANTS "--variant ${_rel_variant}")
      list(APPEND REL_CONV_VARIANTS "--variant ${_rel_variant}")
    endif()
    foreach(_rel_tile IN LISTS _rel_other_tiles)
      list(APPEND REL_PRODUCT_VARIANTS "${_rel_prefix}--tile ${_rel_tile}")
    endforeach()
    foreach(_rel_block IN LISTS _rel_other_blocks)
      list(APPEND REL_CONV_VARIANTS "${_rel_prefix}--block ${_rel_block}")
    endforeach()
  endforeach()
  if(REL_MAPPING)
    list(APPEND REL_PRODUCT_VARIANTS "--mapping transposed")
  endif()
endmacro()

# rel_problem_offered(<out-var> <executable> <problem>)
# Asks the executable itself, with the device hidden: the driver checks the problem list before
# it looks for a device, so "has no <problem> kernel" (exit 2) means the chapter lacks it and
# "no CUDA device" (exit 3) means it offers it.
function(rel_problem_offered out executable problem)
  rel_run(probe 30 ON "${executable}" --problem ${problem})
  if(probe_RESULT STREQUAL "3")
    set(${out} TRUE PARENT_SCOPE)
  elseif(probe_RESULT STREQUAL "2" AND probe_ERR MATCHES "has no ${problem} kernel")
    set(${out} FALSE PARENT_SCOPE)
  else()
    message(FATAL_ERROR "'${executable} --problem ${problem}' with no visible device should exit "
                        "3 (no device) or 2 (no such kernel); it exited ${probe_RESULT}:\n"
                        "${probe_OUT}${probe_ERR}")
  endif()
endfunction()

# rel_skip_unless_offered(<executable> <problem>): ends the script with a skip ("SKIPPED: ...")
# when the chapter has no <problem> kernel. A macro, so that its return() ends the script.
macro(rel_skip_unless_offered executable problem)
  rel_problem_offered(_rel_offered "${executable}" ${problem})
  if(NOT _rel_offered)
    message("SKIPPED: this chapter has no ${problem} kernel")
    return()
  endif()
endmacro()

# rel_note_failure(<shown> <reason> <details>): adds one failed run (its command line, why it
# failed, and what it printed) to REL_FAILURES, which rel_report_failures() reports.
function(rel_note_failure shown reason details)
  set(REL_FAILURES "${REL_FAILURES}\n---- ${shown}\n---- ${reason}\n${details}\n" PARENT_SCOPE)
endfunction()

# rel_report_failures(<verdict>): when any run failed, prints the failed runs verbatim
# (FATAL_ERROR would re-wrap their lines) and stops with <verdict>.
function(rel_report_failures verdict)
  if(NOT REL_FAILURES STREQUAL "")
    message("${REL_FAILURES}")
    message(FATAL_ERROR "${verdict}")
  endif()
endfunction()

# rel_stop_on_problems(<heading> <details>): when the caller's list `problems` is not empty, stops
# the script with <heading>, one problem a line, and <details> (what the executable printed).
function(rel_stop_on_problems heading details)
  if(problems)
    string(REPLACE ";" "\n  " problem_lines "${problems}")
    message(FATAL_ERROR "${heading}:\n  ${problem_lines}\n${details}")
  endif()
endfunction()

# rel_error_line(<out-var> <stderr>): the one line of <stderr> that starts with "error: ", or
# "" when there is none or more than one.
function(rel_error_line out text)
  # Semicolons would split the matches into several list elements: set them aside.
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REGEX MATCHALL "(^|\n)error: [^\n]*" lines "${text}")
  list(LENGTH lines count)
  if(count EQUAL 1)
    string(STRIP "${lines}" line)
    string(REPLACE "<semicolon>" ";" line "${line}")
    set(${out} "${line}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# rel_unique(<out-var> <values...>): <values...> with duplicates removed, first kept.
function(rel_unique out)
  set(values ${ARGN})
  list(REMOVE_DUPLICATES values)
  set(${out} "${values}" PARENT_SCOPE)
endfunction()

# rel_elapsed(<out-var> <start>): whole seconds since <start> (from string(TIMESTAMP ... "%s")).
function(rel_elapsed out start)
  string(TIMESTAMP now "%s")
  math(EXPR seconds "${now} - ${start}")
  set(${out} "${seconds}" PARENT_SCOPE)
endfunction()
