#include "core/staged_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/file_io.hpp"

namespace linkscope {

namespace {

std::string errno_text() { return std::strerror(errno); }

std::uint64_t env_number(const char* name, std::uint64_t unset) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return unset;
  return std::strtoull(text, nullptr, 10);
}

// Test seams. LINKSCOPE_TEST_WRITE_LIMIT=N makes a write fail once N bytes of a file are written, as a full disk
// would (the CI's full-filesystem test uses it where no small tmpfs can be mounted); LINKSCOPE_TEST_WRITE_LIMIT_FILE=K
// keeps that limit to the K-th file this process writes (from 1), so a report directory can fail in the middle.
std::uint64_t write_limit_for_next_file() {
  static std::atomic<std::uint64_t> files_written{0};
  const std::uint64_t index = ++files_written;
  const std::uint64_t only = env_number("LINKSCOPE_TEST_WRITE_LIMIT_FILE", 0);
  if (only != 0 && only != index) return UINT64_MAX;
  return env_number("LINKSCOPE_TEST_WRITE_LIMIT", UINT64_MAX);
}

void write_all(int fd, std::string_view content, const std::string& path) {
  const std::uint64_t limit = write_limit_for_next_file();
  std::size_t done = 0;
  while (done < content.size()) {
    if (done >= limit) {
      errno = ENOSPC;
      throw InputError(path, 0, "cannot write: " + errno_text());
    }
    const std::size_t chunk = std::min<std::uint64_t>(content.size() - done, limit - done);
    const ssize_t n = ::write(fd, content.data() + done, chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(path, 0, "cannot write: " + errno_text());
    }
    done += static_cast<std::size_t>(n);
  }
}

// ".NAME.tmp-XXXXXX" in NAME's directory: hidden, so a listing of the directory shows only finished files.
std::string temp_pattern(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return directory + "." + name + std::string(kStagedFileMarker) + "XXXXXX";
}

}  // namespace

void check_write_target(const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty()) throw InputError("(empty path)", 0, "no output file named");
  for (const auto& input : inputs) {
    if (same_file(path, input)) throw InputError(path, 0, "refusing to write over an input of this command");
  }
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode)) {
    throw InputError(path, 0, "is a directory; a file name is expected");
  }
}

std::string stage_beside(const std::string& path, std::string_view content) {
  std::string temp = temp_pattern(path);
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) throw InputError(path, 0, "cannot create a file beside it: " + errno_text());
  bool open = true;
  try {
    write_all(fd, content, path);
    if (::fsync(fd) != 0) throw InputError(path, 0, "cannot flush to disk: " + errno_text());
    // mkstemp makes the file 0600; an output is as readable as any file the user creates.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    open = false;
    if (::close(fd) != 0) throw InputError(path, 0, "cannot write: " + errno_text());
  } catch (...) {
    if (open) ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  return temp;
}

}  // namespace linkscope
