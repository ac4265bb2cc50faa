# course_detect_cuda_architecture(<out-var>)
# Sets <out-var> to the compute capability of the first visible GPU without the dot ("90" for an
# H100), or to an empty string when nvidia-smi is missing or sees no GPU.
function(course_detect_cuda_architecture out_var)
  set(${out_var} "" PARENT_SCOPE)
  find_program(COURSE_NVIDIA_SMI nvidia-smi)
  if(NOT COURSE_NVIDIA_SMI)
    return()
  endif()
  execute_process(
    COMMAND ${COURSE_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
    OUTPUT_VARIABLE capabilities RESULT_VARIABLE result ERROR_QUIET
    OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
  if(result EQUAL 0)  # no "N.N" at the start (no GPU) leaves the result empty
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" first "${capabilities}")
    string(REPLACE "." "" architecture "${first}")
    set(${out_var} "${architecture}" PARENT_SCOPE)
  endif()
endfunction()
