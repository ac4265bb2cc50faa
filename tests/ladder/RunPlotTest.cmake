cmake_policy(VERSION 3.25)
# Draws the ladder's plot from the committed sample CSV and checks that a PNG and an SVG come out
# (cmake -P). Variables: SCRIPTS (the scripts folder), CSV, STEM. The interpreter is the one
# scripts/ladder.sh would use (find_python of scripts/python.sh); a skip is reported when no Python
# has matplotlib.
execute_process(COMMAND bash -c ". \"$1/python.sh\" && find_python matplotlib" find "${SCRIPTS}"
                OUTPUT_VARIABLE python OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT python)
  message("SKIPPED: no python with matplotlib (install python3-matplotlib)")
  return()
endif()
message("plotting with ${python}")

file(REMOVE "${STEM}.png" "${STEM}.svg")
execute_process(COMMAND "${python}" "${SCRIPTS}/plot_ladder.py" "${CSV}" "${STEM}"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "plot_ladder.py exited with status ${status}")
endif()
foreach(extension png svg)
  if(NOT EXISTS "${STEM}.${extension}")
    message(FATAL_ERROR "${STEM}.${extension} was not written")
  endif()
  file(SIZE "${STEM}.${extension}" bytes)
  if(bytes EQUAL 0)
    message(FATAL_ERROR "${STEM}.${extension} is empty")
  endif()
endforeach()
file(READ "${STEM}.png" signature LIMIT 4 HEX)
if(NOT signature STREQUAL "89504e47")
  message(FATAL_ERROR "${STEM}.png is not a PNG file (starts with ${signature})")
endif()
file(READ "${STEM}.svg" svg LIMIT 4096)
if(NOT svg MATCHES "<svg")
  message(FATAL_ERROR "${STEM}.svg is not an SVG file")
endif()
message("plot written: ${STEM}.png, ${STEM}.svg")
