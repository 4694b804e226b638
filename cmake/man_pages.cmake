# Man pages, one per installed program (Debian Policy 12.1; lintian:
# no-manual-page), made at build time by Debian's help2man from each
# program's --help, so that a page never says other than the program does.
# numlab has a page, and each subcommand one of its own named as git names
# its own (numlab-train(1)); numlab-gui has one. They are installed under
# share/man/man1, gzip'd, with the program they describe (components cli and
# gui, hence the numlab and numlab-gui packages).
option(NUMLAB_MAN_PAGES "Make and install man pages with help2man" ON)
if(NOT NUMLAB_MAN_PAGES)
  return()
endif()
find_program(NUMLAB_HELP2MAN help2man)
if(NOT NUMLAB_HELP2MAN)
  message(FATAL_ERROR "help2man not found: it makes the man pages (Debian: help2man, scripts/install-deps.sh); "
                      "or configure with -DNUMLAB_MAN_PAGES=OFF")
endif()

set(NUMLAB_MAN_DIR ${PROJECT_BINARY_DIR}/man)
file(MAKE_DIRECTORY ${NUMLAB_MAN_DIR})
set(NUMLAB_MAN_PAGE_FILES)

# numlab_man_page(PAGE TARGET SUMMARY COMPONENT [SUBCOMMAND word] [SEE_ALSO pages...] [SUBCOMMANDS words...])
function(numlab_man_page page target summary component)
  cmake_parse_arguments(PARSE_ARGV 4 arg "" "SUBCOMMAND" "SEE_ALSO;SUBCOMMANDS")
  set(out ${NUMLAB_MAN_DIR}/${page}.1.gz)
  set(args -DHELP2MAN=${NUMLAB_HELP2MAN} -DPROGRAM=$<TARGET_FILE:${target}> -DPAGE=${page} -DSUMMARY=${summary}
           -DVERSION=${PROJECT_VERSION} -DOUT=${out})
  if(arg_SUBCOMMAND)
    list(APPEND args -DSUBCOMMAND=${arg_SUBCOMMAND})
  endif()
  if(arg_SEE_ALSO)
    list(JOIN arg_SEE_ALSO "," see_also)
    list(APPEND args -DSEE_ALSO=${see_also})
  endif()
  if(arg_SUBCOMMANDS)
    list(JOIN arg_SUBCOMMANDS "," subcommands)
    list(APPEND args -DSUBCOMMANDS=${subcommands})
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} ${args} -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/help2man_page.cmake
    DEPENDS ${target} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/help2man_page.cmake
    COMMENT "Man page ${page}(1)" VERBATIM)
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT ${component})
  set(NUMLAB_MAN_PAGE_FILES ${NUMLAB_MAN_PAGE_FILES} ${out} PARENT_SCOPE)
endfunction()

# numlab's subcommands, in its --help's order, each with its page's NAME line.
set(subcommand_summaries
  "formats|show the bits, precision, range and epsilon of each number format"
  "round|round numbers into a format, with the errors and IEEE 754 flags"
  "testfloat|evaluate Berkeley TestFloat test cases with libnum"
  "certify|check libnum's fp16 and bf16 arithmetic on every operand pair against an independent oracle"
  "inspect|summarise, compare or export a numlab run database"
  "train|train a small network under a precision policy, traced into a run database"
  "experiment|reproduce the mixed-precision tutorials' experiments"
  "sweep|run a grid of training configurations with GNU parallel or a Slurm job array"
  "merge|merge numlab run databases into one file")
set(subcommands)
set(subcommand_pages)
foreach(entry IN LISTS subcommand_summaries)
  string(REPLACE "|" ";" entry "${entry}")
  list(GET entry 0 subcommand)
  list(GET entry 1 summary)
  list(APPEND subcommands ${subcommand})
  list(APPEND subcommand_pages numlab-${subcommand})
  numlab_man_page(numlab-${subcommand} numlab "${summary}" cli SUBCOMMAND ${subcommand} SEE_ALSO numlab)
endforeach()
set(numlab_see_also ${subcommand_pages})
if(TARGET numlab-gui)
  list(APPEND numlab_see_also numlab-gui)
  numlab_man_page(numlab-gui numlab-gui "viewer of numlab run databases" gui SEE_ALSO numlab numlab-inspect)
endif()
numlab_man_page(numlab numlab "low-precision arithmetic for deep learning, emulated bit for bit" cli
                SEE_ALSO ${numlab_see_also} SUBCOMMANDS ${subcommands})
add_custom_target(man_pages ALL DEPENDS ${NUMLAB_MAN_PAGE_FILES})
