#include "core/write_faults.hpp"

#include <utility>

namespace linkscope {

namespace {

WriteFaults& installed() {
  static WriteFaults faults;
  return faults;
}

}  // namespace

void set_write_faults(WriteFaults faults) { installed() = std::move(faults); }

std::uint64_t next_file_byte_limit() {
  const auto& limit = installed().next_file_byte_limit;
  return limit ? limit() : UINT64_MAX;
}

void pause_write(std::string_view phase, std::size_t count, const std::function<bool()>& arrived) {
  if (const auto& pause = installed().pause) pause(phase, count, arrived);
}

}  // namespace linkscope
