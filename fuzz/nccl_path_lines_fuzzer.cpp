// libFuzzer target: NCCL's path lines as `topo` reads them from NCCL's own log (src/discover/path_compare.cpp): the
// first rank's block, and the comparison of that block with itself (which must find no difference) and with the
// block of the input's first half. Any exception, crash, sanitizer report or hang is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "discover/path_compare.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linkscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto lines = discover::nccl_log_path_lines(text);
  if (!discover::compare_path_lines(lines, lines, "2.28.9").identical()) __builtin_trap();
  (void)discover::compare_path_lines(lines, discover::nccl_log_path_lines(text.substr(0, size / 2)), "2.28.3");
  (void)discover::nccl_version_before(std::string(text.substr(0, 32)), 2, 28, 7);
  return 0;
}
