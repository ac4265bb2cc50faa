cmake_policy(VERSION 3.25)
# scripts/ladder.sh on a copy of the repository's README, results/ and scripts (cmake -P), fed the
# committed sample through --from-csv:
#   - by default it writes the CSV files and the table under the copy's build folder, prints the
#     table laid out for the terminal with the goals, and changes no file outside the build folder
#     (the README and results/ stay as they are);
#   - with --update-readme it copies the CSV files into results/ and regenerates the README's table
#     between its markers, nothing else; a second run changes nothing;
#   - a ladder option with --from-csv is refused.
# Variables: SOURCE_DIR (the repository), SAMPLE_DIR (tests/ladder), WORK_DIR (a scratch folder).
set(tree "${WORK_DIR}/tree")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${tree}/scripts")
foreach(script ladder.sh python.sh update_results_table.py results_table.py readme_block.py
               plot_ladder.py)
  file(COPY "${SOURCE_DIR}/scripts/${script}" DESTINATION "${tree}/scripts")
endforeach()
file(COPY "${SOURCE_DIR}/README.md" "${SOURCE_DIR}/results" DESTINATION "${tree}")
set(sample "${SAMPLE_DIR}/sample_ladder.csv")

# The files outside the build folder and their contents, as a list of "path=sha256".
function(snapshot out)
  file(GLOB_RECURSE files RELATIVE "${tree}" "${tree}/*")
  set(entries "")
  foreach(path IN LISTS files)
    if(path MATCHES "^build/" OR path MATCHES "__pycache__")
      continue()
    endif()
    file(SHA256 "${tree}/${path}" hash)
    list(APPEND entries "${path}=${hash}")
  endforeach()
  list(SORT entries)
  set(${out} "${entries}" PARENT_SCOPE)
endfunction()

function(run_ladder_script prefix)
  execute_process(COMMAND bash "${tree}/scripts/ladder.sh" ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
  message("ladder.sh ${ARGN}:\n${output}${errors}")
  if(errors MATCHES "no Python 3 found")
    message("SKIPPED: no Python 3 to write the table with")
    return()
  endif()
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ladder.sh ${ARGN} exited with status ${status}")
  endif()
  set(${prefix}_OUT "${output}" PARENT_SCOPE)
endfunction()

# 1. The default: everything under build/results/, printed, nothing else touched; the build
#    folder holds the ladder executable, build/ladder, as it does after a build.
file(WRITE "${tree}/build/ladder" "#!/bin/sh\nexit 3\n")
snapshot(before)
file(READ "${tree}/README.md" readme_before)
run_ladder_script(default --from-csv "${sample}" --no-plot)
foreach(printed "Measured on Example GPU on 2025-01-15" "\n  4096  4\\.60  9\\.40 \\(2\\.04x\\)"
                "\n  met +matmul 4096: chapter 2 at least 1\\.5x chapter 1 +2\\.04x")
  if(NOT default_OUT MATCHES "${printed}")
    message(FATAL_ERROR "the table was not printed: no line matches \"${printed}\"")
  endif()
endforeach()
foreach(file ladder.csv ladder_goals.csv ladder.md)
  if(NOT EXISTS "${tree}/build/results/${file}")
    message(FATAL_ERROR "build/results/${file} was not written")
  endif()
endforeach()
file(READ "${tree}/build/results/ladder.md" table)
if(NOT table MATCHES "\\| matmul \\| 4096 \\|")
  message(FATAL_ERROR "build/results/ladder.md holds no table:\n${table}")
endif()
snapshot(after)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "the default run changed files outside the build folder:\n"
                      "before: ${before}\nafter: ${after}")
endif()

# 2. --update-readme: results/ and the README's table, nothing else.
foreach(pass first second)
  run_ladder_script(update --from-csv "${sample}" --update-readme --no-plot)
  file(READ "${tree}/README.md" readme_${pass})
  set(update_${pass}_OUT "${update_OUT}")
endforeach()
if(NOT readme_first MATCHES "Measured on \\*\\*Example GPU\\*\\* on 2025-01-15")
  message(FATAL_ERROR "--update-readme did not put the table into the README")
endif()
foreach(marker "<!-- ladder:begin -->" "<!-- ladder:end -->")
  string(FIND "${readme_before}" "${marker}" at_before)
  string(FIND "${readme_first}" "${marker}" at_first)
  if(at_before LESS 0 OR at_first LESS 0)
    message(FATAL_ERROR "the README lacks the marker ${marker}")
  endif()
endforeach()
string(REGEX REPLACE "<!-- ladder:begin -->.*<!-- ladder:end -->" "" outside_before
                     "${readme_before}")
string(REGEX REPLACE "<!-- ladder:begin -->.*<!-- ladder:end -->" "" outside_first
                     "${readme_first}")
if(NOT outside_before STREQUAL outside_first)
  message(FATAL_ERROR "--update-readme changed the README outside the markers")
endif()
file(SHA256 "${sample}" sample_hash)
file(SHA256 "${tree}/results/ladder.csv" results_hash)
if(NOT sample_hash STREQUAL results_hash)
  message(FATAL_ERROR "--update-readme did not record the CSV in results/ladder.csv")
endif()
if(NOT readme_first STREQUAL readme_second OR NOT update_second_OUT MATCHES "already up to date")
  message(FATAL_ERROR "a second --update-readme on the same CSV changed the README")
endif()
snapshot(recorded)
foreach(entry IN LISTS recorded)
  string(REGEX REPLACE "=.*" "" path "${entry}")
  if(NOT path MATCHES "^(README\\.md|results/)" AND NOT entry IN_LIST before)
    message(FATAL_ERROR "--update-readme changed ${path}")
  endif()
endforeach()
# 3. A ladder option with --from-csv, which runs nothing, is refused with one line.
execute_process(COMMAND bash "${tree}/scripts/ladder.sh" --from-csv "${sample}" --quick
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_QUIET)
set(expected "error: --from-csv runs nothing, so --quick cannot go with it\n")
if(NOT status EQUAL 1 OR NOT errors STREQUAL expected)
  message(FATAL_ERROR "--from-csv with --quick: status ${status}, said: ${errors}")
endif()
message("the default run left the tree as it was; --update-readme wrote results/ and the README; "
        "--from-csv refused a ladder option")
