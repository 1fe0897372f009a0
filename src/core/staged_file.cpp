#include "core/staged_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/write_faults.hpp"

namespace linkscope {

namespace {

std::string errno_text() { return std::strerror(errno); }

void write_all(int fd, std::string_view content, const std::string& path) {
  const std::uint64_t limit = next_file_byte_limit();  // a test's full disk (core/write_faults)
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

// ".NAME.tmp-XXXXXX" in NAME's directory: hidden, so a listing of the directory shows only finished files. A NAME
// near the longest a file name may be is cut so the temporary name fits too.
std::string temp_pattern(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t added = 1 + kStagedFileMarker.size() + 6;
  if (name.size() > NAME_MAX - added) name.resize(NAME_MAX - added);
  return directory + "." + name + std::string(kStagedFileMarker) + "XXXXXX";
}

// The permission bits a new file gets: those of the file it replaces, so a private (0600) output stays private;
// else what any file the user creates gets.
mode_t new_file_mode(const std::string& path) {
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) return existing.st_mode & 0777;
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

void check_write_target(const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty()) throw InputError("(empty path)", 0, "no output file named");
  for (const auto& input : inputs) {
    if (same_file(path, input)) throw InputError(path, 0, "refusing to write over an input of this command");
  }
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0) {
    if (S_ISDIR(existing.st_mode)) throw InputError(path, 0, "is a directory; a file name is expected");
  } else if (errno != ENOENT) {
    throw InputError(path, 0, "cannot write: " + errno_text());  // a name too long, a file where a directory is due
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
    // mkstemp makes the file 0600.
    if (::fchmod(fd, new_file_mode(path)) != 0) throw InputError(path, 0, "cannot set its permissions: " + errno_text());
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
