# Host-side libraries: all come from Debian packages (scripts/install-deps.sh installs them).
find_package(CLI11 REQUIRED CONFIG)
find_package(nlohmann_json 3.10 REQUIRED CONFIG)
find_package(fmt REQUIRED CONFIG)
find_package(pugixml REQUIRED CONFIG)
find_package(Threads REQUIRED)

# fmt is used header-only so the binary carries no libfmt.so dependency to the GPU machine.
add_library(linkscope_fmt INTERFACE)
target_link_libraries(linkscope_fmt INTERFACE fmt::fmt-header-only)

# pugixml is linked statically for the same reason.
if(TARGET pugixml::static)
  set(LINKSCOPE_PUGIXML pugixml::static)
else()
  set(LINKSCOPE_PUGIXML pugixml::pugixml)
endif()
