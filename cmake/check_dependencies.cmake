# The allowed dependencies between numlab's parts (README, "Architecture"),
# checked on the sources: every #include of a part that a folder may not use
# is reported with file and line, and the check fails.
#
#   cmake -DNUMLAB_SOURCE_DIR=<repo> -P cmake/check_dependencies.cmake
#
# A part is named by the include prefix its public headers carry: libnum/,
# rundb/, lab/, sweep/, experiments/. The numlab program (cli/) has no public headers,
# so nothing can include it; its libnum commands (formats, round, testfloat)
# must not need the trainer, the run database or the experiments.
cmake_minimum_required(VERSION 3.25)
if(NOT NUMLAB_SOURCE_DIR)
  message(FATAL_ERROR "check_dependencies: pass -DNUMLAB_SOURCE_DIR=<the repository root>")
endif()

# libnum's diagnostics headers: the scalar core and the kernels stay free of them.
set(libnum_diagnostics "libnum/hooks.hpp,libnum/tensor_stats.hpp,libnum/swamping.hpp,libnum/stats_,libnum/loss_scale_advice.hpp")

# folder or file glob (relative to the root) = include prefixes it must not use
set(rules
  "libnum=lab/,rundb/,experiments/"
  "libnum/src/core=libnum/array.hpp,libnum/cpu_features.hpp,${libnum_diagnostics}"
  "libnum/src/kernels=${libnum_diagnostics}"
  "rundb=libnum/,lab/,experiments/"
  "lab=experiments/"
  "sweep=experiments/,libnum/"
  "gui=lab/,experiments/,sweep/"
  "tests/libnum=lab/,rundb/,experiments/"
  "tests/rundb=libnum/,lab/,experiments/"
  "tests/gui=lab/,experiments/"
  "cli/formats_command.cpp=lab/,rundb/,experiments/"
  "cli/round_*=lab/,rundb/,experiments/"
  "cli/testfloat_*=lab/,rundb/,experiments/"
  "cli/cli_t*=lab/,rundb/,experiments/")

set(violations "")
foreach(rule IN LISTS rules)
  string(REGEX REPLACE "=.*$" "" folder "${rule}")
  string(REGEX REPLACE "^[^=]*=" "" forbidden "${rule}")
  string(REPLACE "," ";" forbidden "${forbidden}")
  if(IS_DIRECTORY "${NUMLAB_SOURCE_DIR}/${folder}")
    file(GLOB_RECURSE sources "${NUMLAB_SOURCE_DIR}/${folder}/*.cpp" "${NUMLAB_SOURCE_DIR}/${folder}/*.hpp"
         "${NUMLAB_SOURCE_DIR}/${folder}/*.h")
  else()
    file(GLOB sources "${NUMLAB_SOURCE_DIR}/${folder}")
    if(NOT sources)
      message(FATAL_ERROR "check_dependencies: rule '${rule}' matches no file")
    endif()
  endif()
  foreach(source IN LISTS sources)
    file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]*)[>\"].*$" "\\1" header "${line}")
      foreach(prefix IN LISTS forbidden)
        string(FIND "${header}" "${prefix}" at)
        if(at EQUAL 0)
          file(RELATIVE_PATH where "${NUMLAB_SOURCE_DIR}" "${source}")
          string(APPEND violations "  ${where}: includes ${header} (${folder} must not depend on ${prefix})\n")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "forbidden dependencies:\n${violations}")
endif()
message(STATUS "dependency rules hold")
