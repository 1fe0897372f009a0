# Run by the build (cmake -P) once linkscope is linked: the bash and zsh completion scripts from
# `linkscope __completion`, and the man page from `--help` (help2man), with every subcommand's --help as a section.
#   -DLINKSCOPE=<binary> -DOUT=<dir> -DVERSION=<x.y.z> -DHELP2MAN=<help2man or empty>
foreach(var LINKSCOPE OUT VERSION)
  if(NOT ${var})
    message(FATAL_ERROR "LinkscopeShellFiles.cmake needs -D${var}=...")
  endif()
endforeach()

function(run_linkscope output)
  execute_process(COMMAND ${LINKSCOPE} ${ARGN} OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "`linkscope ${ARGN}` failed (${rc}): ${err}")
  endif()
  set(${output} "${text}" PARENT_SCOPE)
endfunction()

run_linkscope(bash __completion bash)
file(WRITE ${OUT}/bash-completion/completions/linkscope "${bash}")
run_linkscope(zsh __completion zsh)
file(WRITE ${OUT}/zsh/site-functions/_linkscope "${zsh}")

if(NOT HELP2MAN)
  message(STATUS "linkscope: help2man not found; no man page (scripts/install-deps.sh installs it)")
  return()
endif()
run_linkscope(subcommands __completion subcommands)
string(REPLACE "\n" ";" subcommands "${subcommands}")
set(include "[SUBCOMMANDS]\n")
foreach(sub ${subcommands})
  if(sub STREQUAL "")
    continue()
  endif()
  run_linkscope(help ${sub} --help)
  string(REPLACE "\\" "\\\\" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")  # a line starting with . or ' is no request
  string(APPEND include ".SS ${sub}\n.nf\n${help}.fi\n")
endforeach()
string(APPEND include "[SEE ALSO]\nThe documentation in /usr/share/doc/linkscope (README.md, multi-node.md, ...).\n")
file(WRITE ${OUT}/man/linkscope.h2m "${include}")
file(MAKE_DIRECTORY ${OUT}/man/man1)
execute_process(COMMAND ${HELP2MAN} --no-info --no-discard-stderr --version-string=${VERSION}
                        "--name=GPU interconnect diagnosis from evidence" --section=1
                        --include=${OUT}/man/linkscope.h2m --output=${OUT}/man/man1/linkscope.1 ${LINKSCOPE}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${rc}): ${err}")
endif()
