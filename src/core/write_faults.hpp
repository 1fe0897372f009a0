#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

// Faults a test puts into the file writers (core/staged_file, core/file_io, core/file_set): a full disk after N
// bytes, or a pause at a known point of a write so a test can send a signal there. The linkscope binary installs
// none, so nothing in its environment can make it fail a write or stall; the test copy of the binary
// (tests/support/write_fault_seams.cpp) and the unit tests install them.
namespace linkscope {

struct WriteFaults {
  // Bytes of the next file after which its write fails as a full disk would (ENOSPC); UINT64_MAX: no limit.
  std::function<std::uint64_t()> next_file_byte_limit;
  // Called after the writer staged (phase "staged") or renamed into place ("committed") its `count`-th file; may
  // wait until `arrived()` (a signal came) before returning.
  std::function<void(std::string_view phase, std::size_t count, const std::function<bool()>& arrived)> pause;
};

// Replaces the installed faults (an empty WriteFaults removes them). Not thread-safe: install before writing.
void set_write_faults(WriteFaults faults);

// UINT64_MAX when no fault limits the next file.
std::uint64_t next_file_byte_limit();
void pause_write(std::string_view phase, std::size_t count, const std::function<bool()>& arrived);

}  // namespace linkscope
