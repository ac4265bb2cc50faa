cmake_policy(VERSION 3.25)
# Runs a chapter executable for CTest (cmake -P): EXECUTABLE, CHAPTER (chNN), EDITION, ARGS.
# A student's executable runs only when COURSE_CHECK names its chapter ("chNN" or "all"), since
# it fails by design until the exercises are done. Exit 3 (no CUDA device) becomes a skip.
if(EDITION STREQUAL "student")
  set(wanted "$ENV{COURSE_CHECK}")
  string(REPLACE "," ";" wanted "${wanted}")
  if(NOT CHAPTER IN_LIST wanted AND NOT "all" IN_LIST wanted)
    message("SKIPPED: your own ${CHAPTER} kernels are checked on request: "
            "COURSE_CHECK=${CHAPTER} ctest --test-dir <build> -L ${CHAPTER}")
    return()
  endif()
endif()
execute_process(COMMAND ${EXECUTABLE} ${ARGS} RESULT_VARIABLE status)
if(status EQUAL 3)
  message("SKIPPED: no CUDA device")
elseif(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXECUTABLE} exited with status ${status}")
endif()
