// Linked into linkscope_with_test_seams alone, the copy of linkscope the CLI tests run to fail or pause a write;
// the linkscope binary has no such variables (core/write_faults.hpp).
// - LINKSCOPE_TEST_WRITE_LIMIT=N: a write fails once N bytes of a file are written, as a full disk would (the CI's
//   full-filesystem test uses it where no small tmpfs can be mounted); LINKSCOPE_TEST_WRITE_LIMIT_FILE=K keeps that
//   limit to the K-th file this process writes (from 1), so a report directory can fail in the middle.
// - LINKSCOPE_TEST_WRITE_PAUSE=staged:K (or committed:K): the writer stops after staging (or renaming into place)
//   its K-th file, says so on stderr and waits until one of the signals arrives, so a test can send one at a known
//   point. The wait ends after kPauseLimit anyway, so a test that sends nothing still finishes; it is longer than
//   the tests' own waits (60 s), so a paused writer never resumes by itself while a slow test still acts on it.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/write_faults.hpp"

namespace linkscope {
namespace {

constexpr std::chrono::seconds kPauseLimit{180};

std::uint64_t env_number(const char* name, std::uint64_t unset) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return unset;
  return std::strtoull(text, nullptr, 10);
}

std::uint64_t limit_for_next_file() {
  static std::atomic<std::uint64_t> files_written{0};
  const std::uint64_t index = ++files_written;
  const std::uint64_t only = env_number("LINKSCOPE_TEST_WRITE_LIMIT_FILE", 0);
  if (only != 0 && only != index) return UINT64_MAX;
  return env_number("LINKSCOPE_TEST_WRITE_LIMIT", UINT64_MAX);
}

void pause_from_environment(std::string_view phase, std::size_t count, const std::function<bool()>& arrived) {
  const char* text = std::getenv("LINKSCOPE_TEST_WRITE_PAUSE");
  if (text == nullptr) return;
  const std::string value = text;
  const auto colon = value.find(':');
  if (colon == std::string::npos || value.substr(0, colon) != phase ||
      std::strtoull(value.c_str() + colon + 1, nullptr, 10) != count) {
    return;
  }
  std::fprintf(stderr, "linkscope: test: paused after %s file %zu\n", value.substr(0, colon).c_str(), count);
  std::fflush(stderr);
  const auto until = std::chrono::steady_clock::now() + kPauseLimit;
  while (!arrived() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Installed before main() runs.
const bool kInstalled = [] {
  set_write_faults({limit_for_next_file, pause_from_environment});
  return true;
}();

}  // namespace
}  // namespace linkscope
