# What `cmake --install` puts where, and the CPack packages (.deb, .tar.gz) made from it:
#   bin/linkscope, bin/<op>_perf -> linkscope          the portable binary and its nccl-tests names
#   lib/linkscope/liblinkscope_mpi_<family>.so          the MPI adapters, found beside the binary (../lib/linkscope)
#   share/bash-completion/completions/linkscope, share/zsh/site-functions/_linkscope, share/man/man1/linkscope.1
#   share/doc/linkscope/                                README.md and docs/*.md
# The adapters are private plugins, so they live in lib/linkscope whatever GNUInstallDirs would say.
set(LINKSCOPE_SHARE_DIR ${CMAKE_BINARY_DIR}/share)

if(LINKSCOPE_MPI_ADAPTER_TARGETS)
  install(TARGETS ${LINKSCOPE_MPI_ADAPTER_TARGETS} LIBRARY DESTINATION lib/linkscope)
endif()
install(FILES README.md DESTINATION share/doc/linkscope)
file(GLOB _ls_docs ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${_ls_docs} DESTINATION share/doc/linkscope)

if(TARGET linkscope)
  install(TARGETS linkscope RUNTIME DESTINATION bin)
  foreach(name ${LINKSCOPE_NCCL_TESTS_NAMES})
    install(FILES ${CMAKE_BINARY_DIR}/${name} DESTINATION bin)  # a symlink, installed as one
  endforeach()

  find_program(HELP2MAN help2man)
  set(_ls_shell_files ${LINKSCOPE_SHARE_DIR}/bash-completion/completions/linkscope
      ${LINKSCOPE_SHARE_DIR}/zsh/site-functions/_linkscope)
  if(HELP2MAN)
    list(APPEND _ls_shell_files ${LINKSCOPE_SHARE_DIR}/man/man1/linkscope.1)
  else()
    message(STATUS "linkscope: help2man not found; no man page (scripts/install-deps.sh installs it)")
  endif()
  add_custom_command(OUTPUT ${_ls_shell_files}
    COMMAND ${CMAKE_COMMAND} -DLINKSCOPE=$<TARGET_FILE:linkscope> -DOUT=${LINKSCOPE_SHARE_DIR}
            -DVERSION=${PROJECT_VERSION} -DHELP2MAN=${HELP2MAN} -P ${CMAKE_SOURCE_DIR}/cmake/LinkscopeShellFiles.cmake
    DEPENDS linkscope ${CMAKE_SOURCE_DIR}/cmake/LinkscopeShellFiles.cmake
    COMMENT "Shell completion and man page from linkscope's command-line definition" VERBATIM)
  add_custom_target(linkscope_shell_files ALL DEPENDS ${_ls_shell_files})
  install(FILES ${LINKSCOPE_SHARE_DIR}/bash-completion/completions/linkscope DESTINATION share/bash-completion/completions)
  install(FILES ${LINKSCOPE_SHARE_DIR}/zsh/site-functions/_linkscope DESTINATION share/zsh/vendor-completions)
  if(HELP2MAN)
    install(FILES ${LINKSCOPE_SHARE_DIR}/man/man1/linkscope.1 DESTINATION share/man/man1)
  endif()
endif()

# The glibc the portable binary needs: the newest GLIBC_ symbol version it references (objdump -T). Built on Debian
# 12, GCC 12's static libstdc++ and libgcc reference arc4random (2.36) and _dl_find_object (2.35); build on an older
# distribution for an older floor. tests/packaging/check_portable_binary.sh fails when the binary needs more.
set(LINKSCOPE_GLIBC_FLOOR 2.36 CACHE STRING "Newest glibc version the portable binary may need (its documented floor)")

set(CPACK_PACKAGE_NAME linkscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VENDOR linkscope)
set(CPACK_PACKAGE_CONTACT "linkscope developers")
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_PACKAGE_FILE_NAME linkscope-${PROJECT_VERSION}-linux-${CMAKE_SYSTEM_PROCESSOR})
set(CPACK_STRIP_FILES OFF)
# .tar.gz: linkscope-<version>-linux-<arch>/{bin,lib,share}, unpacked anywhere (the binary finds lib/ beside it).
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)
# .deb: /usr/bin/linkscope, /usr/lib/linkscope/...; glibc is its only dependency.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= ${LINKSCOPE_GLIBC_FLOOR})")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openmpi-bin | mpich, libnccl2")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "linkscope diagnoses GPU interconnects (NVLink, PCIe, NCCL) on one node or many (mpirun, srun).
 It opens NVML, NCCL and MPI at run time, so it starts on any node.")
include(CPack)
