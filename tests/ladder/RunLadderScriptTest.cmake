cmake_policy(VERSION 3.25)
# scripts/ladder.sh --from-csv on the committed sample (cmake -P): regenerates the results table
# of a scratch README twice and checks that the table is there and the second run changed nothing.
# Variables: SCRIPT (scripts/ladder.sh), SAMPLE_DIR (tests/ladder), WORK_DIR (a scratch folder).
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(COPY "${SAMPLE_DIR}/sample_ladder.csv" "${SAMPLE_DIR}/sample_ladder_goals.csv"
     DESTINATION "${WORK_DIR}")
set(readme "${WORK_DIR}/README.md")
file(WRITE "${readme}" "# Course\n\n<!-- ladder:begin -->\nold\n<!-- ladder:end -->\n\nAfter.\n")

foreach(pass first second)
  execute_process(COMMAND bash "${SCRIPT}" --from-csv "${WORK_DIR}/sample_ladder.csv"
                          --readme "${readme}" --no-plot
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
  message("${output}${errors}")
  if(errors MATCHES "no Python 3 found")
    message("SKIPPED: no Python 3 to regenerate the table with")
    return()
  endif()
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ladder.sh --from-csv exited with status ${status}")
  endif()
  file(READ "${readme}" text_${pass})
endforeach()
if(NOT text_first MATCHES "Measured on \\*\\*Example GPU\\*\\* on 2025-01-15")
  message(FATAL_ERROR "the README's table does not name the GPU and the date:\n${text_first}")
endif()
if(NOT text_first MATCHES "\nAfter\\.\n$" OR text_first MATCHES "\nold\n")
  message(FATAL_ERROR "the README outside the markers changed, or the old table stayed")
endif()
if(NOT text_first STREQUAL text_second)
  message(FATAL_ERROR "a second run on the same CSV changed the README")
endif()
if(NOT output MATCHES "already up to date")
  message(FATAL_ERROR "the second run did not report the README as up to date")
endif()
