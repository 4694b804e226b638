# Writes one gzip'd man page (cmake -P, run by cmake/man_pages.cmake's build
# rules) from a program's --help with Debian's help2man:
#   -DHELP2MAN=path -DPROGRAM=path [-DSUBCOMMAND=word] -DPAGE=name -DSUMMARY=text
#   -DVERSION=x.y.z -DSEE_ALSO=page,page,... -DOUT=file.1.gz [-DSUBCOMMANDS=a,b,...]
# A subcommand's page is named as git names its own (numlab-train(1)), so its
# title and NAME line are rewritten from help2man's "numlab train". With
# SUBCOMMANDS, the page's program must list exactly those subcommands in its
# --help, so that a new subcommand cannot ship without its page.
cmake_minimum_required(VERSION 3.25)
foreach(required HELP2MAN PROGRAM PAGE SUMMARY VERSION OUT)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "help2man_page.cmake: -D${required}= is missing")
  endif()
endforeach()
# A sanitized build runs the programs too; a leak report at exit is not their help.
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
# numlab-gui's --help needs no display, but a Qt without one must not try to open it.
set(ENV{QT_QPA_PLATFORM} "offscreen")

if(DEFINED SUBCOMMANDS)
  execute_process(COMMAND ${PROGRAM} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} --help failed (${rc})")
  endif()
  string(REGEX REPLACE ".*\nSubcommands:\n" "" listed "${help}")
  string(REGEX MATCHALL "(^|\n)  [a-z0-9-]+" listed "${listed}")
  list(TRANSFORM listed STRIP)
  string(REPLACE "," ";" expected "${SUBCOMMANDS}")
  if(NOT listed STREQUAL expected)
    message(FATAL_ERROR "${PROGRAM} --help lists the subcommands '${listed}', cmake/man_pages.cmake has pages for "
                        "'${expected}': add the new one's page there")
  endif()
endif()

get_filename_component(dir ${OUT} DIRECTORY)
set(page_file ${dir}/${PAGE}.1)
set(see_also_file ${dir}/${PAGE}.h2m)
string(REPLACE "," ";" see_also "${SEE_ALSO}")
list(TRANSFORM see_also APPEND " (1)")
list(TRANSFORM see_also PREPEND ".BR ")
list(JOIN see_also ",\n" see_also)
file(WRITE ${see_also_file} "[SEE ALSO]\n${see_also}\n")

# help2man runs the command through the shell: a subcommand is a second word.
set(command ${PROGRAM})
if(DEFINED SUBCOMMAND)
  string(APPEND command " ${SUBCOMMAND}")
endif()
execute_process(COMMAND ${HELP2MAN} --no-info --version-string=${VERSION} --name=${SUMMARY}
                        --include=${see_also_file} --output=${page_file} ${command}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed on '${command}' (${rc})")
endif()

if(DEFINED SUBCOMMAND)
  get_filename_component(program_name ${PROGRAM} NAME)
  file(READ ${page_file} text)
  string(TOUPPER "${PAGE}" page_title)
  string(REGEX REPLACE "\n\\.TH [^\"]+ \"1\"" "\n.TH ${page_title} \"1\"" text "${text}")
  string(REPLACE "\"${program_name} ${SUBCOMMAND} ${VERSION}\"" "\"${program_name} ${VERSION}\"" text "${text}")
  string(REPLACE "\n${program_name} ${SUBCOMMAND} \\-" "\n${PAGE} \\-" text "${text}")
  file(WRITE ${page_file} "${text}")
endif()

# Debian ships man pages compressed with gzip -9n: no name, no time stamp (Policy 12.1).
execute_process(COMMAND gzip -9n --force ${page_file} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip failed on ${page_file} (${rc})")
endif()
