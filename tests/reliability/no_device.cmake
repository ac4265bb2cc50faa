cmake_policy(VERSION 3.25)
# A chapter executable run where no CUDA device is visible (CUDA_VISIBLE_DEVICES set to the empty
# string, so this runs on every machine, with or without a GPU) must say so in one line on stderr
# and exit with status 3, printing no result.
#   -DEXECUTABLE=<path>
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(arguments --problem matmul -m 8 -n 8 -k 8 --warmup 0 --reps 1)
rel_run(run 60 ON "${EXECUTABLE}" ${arguments})
rel_describe(shown ${arguments})
string(STRIP "${run_OUT}" stdout_text)
string(STRIP "${run_ERR}" stderr_text)
set(problems "")
if(NOT run_RESULT STREQUAL "3")
  list(APPEND problems "exit status ${run_RESULT}, expected 3 (no CUDA device)")
endif()
if(NOT stdout_text STREQUAL "")
  list(APPEND problems "it printed on stdout")
endif()
if(stderr_text MATCHES "\n")
  list(APPEND problems "stderr has more than one line")
endif()
if(NOT stderr_text MATCHES "^error: [^\n]*CUDA device")
  list(APPEND problems "stderr does not start with 'error: ' and name the missing CUDA device")
endif()
rel_stop_on_problems("'${EXECUTABLE} ${shown}' with no visible CUDA device"
                     "stdout: ${stdout_text}\nstderr: ${stderr_text}")
message("no visible CUDA device: exit status 3 and one line: ${stderr_text}")
