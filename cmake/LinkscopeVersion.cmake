# The version string records the git commit so every Run document says which build made it.
find_package(Git QUIET)
set(LINKSCOPE_GIT_DESCRIBE "unknown")
if(GIT_FOUND AND EXISTS ${CMAKE_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --tags
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE LINKSCOPE_GIT_DESCRIBE OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(NOT LINKSCOPE_GIT_DESCRIBE)
    set(LINKSCOPE_GIT_DESCRIBE "unknown")
  endif()
endif()
configure_file(${CMAKE_SOURCE_DIR}/src/core/version.hpp.in ${CMAKE_BINARY_DIR}/generated/linkscope/version.hpp @ONLY)
