# Compiles SOURCE for sm_90 with ptxas's resource report and fails unless every function whose
# mangled name contains PATTERN has a 0-byte stack frame and no spill stores or loads.
# cmake -DNVCC=... -DSOURCE=... -DPATTERN=... "-DINCLUDES=dir;dir" -P CheckResources.cmake
cmake_policy(VERSION 3.25)
set(include_flags "")
foreach(dir IN LISTS INCLUDES)
  list(APPEND include_flags "-I${dir}")
endforeach()
execute_process(
  COMMAND ${NVCC} -std=c++17 -O3 -arch=sm_90 -c ${SOURCE} -o /dev/null --resource-usage
          ${include_flags}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "nvcc failed (${status}):\n${err}")
endif()
set(report "${out}${err}")
# ptxas prints, per function:
#   ptxas info    : Function properties for <mangled name>
#       <S> bytes stack frame, <T> bytes spill stores, <L> bytes spill loads
string(REGEX MATCHALL "Function properties for [^\n]*\n[^\n]*" entries "${report}")
set(checked 0)
set(bad "")
foreach(entry IN LISTS entries)
  string(REGEX MATCH "Function properties for ([^\n]*)" _ "${entry}")
  set(name "${CMAKE_MATCH_1}")
  if(NOT name MATCHES "${PATTERN}")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  string(REGEX MATCH "([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads"
         _ "${entry}")
  if(NOT CMAKE_MATCH_0 OR NOT CMAKE_MATCH_1 EQUAL 0 OR NOT CMAKE_MATCH_2 EQUAL 0
     OR NOT CMAKE_MATCH_3 EQUAL 0)
    string(APPEND bad "  ${name}: ${entry}\n")
  endif()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no function matching '${PATTERN}' in the resource report:\n${report}")
endif()
if(bad)
  message(FATAL_ERROR "kernels with a stack frame or spills:\n${bad}")
endif()
message(STATUS "${checked} functions matching '${PATTERN}': no stack frame, no spills")
