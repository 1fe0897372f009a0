#include "core/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope {

namespace {

std::string errno_text() { return std::strerror(errno); }

// A test seam: LINKSCOPE_TEST_WRITE_LIMIT=N makes every write fail once N bytes of a file are written, as a full
// disk would (the CI's full-filesystem test uses it where no small tmpfs can be mounted).
std::uint64_t write_limit() {
  const char* text = std::getenv("LINKSCOPE_TEST_WRITE_LIMIT");
  if (text == nullptr || *text == '\0') return UINT64_MAX;
  return std::strtoull(text, nullptr, 10);
}

// Errors name `path`, the file the user asked for, not the temporary file beside it.
void write_all(int fd, std::string_view content, const std::string& path) {
  const std::uint64_t limit = write_limit();
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

}  // namespace

std::string read_input_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  if (path.empty()) throw InputError("(empty path)", 0, fmt::format("no {} file named", what));
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the regular-file check below refuses it anyway.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    throw InputError(path, 0, fmt::format("cannot open the {} file ({})", what,
                                          errno == ENOENT ? "no such file" : errno_text()));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    ::close(fd);
    throw InputError(path, 0, "cannot read: " + errno_text());
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    throw InputError(path, 0, fmt::format("not a regular file ({}); a {} file is expected",
                                          S_ISDIR(info.st_mode) ? "a directory" : "a device, FIFO or socket", what));
  }
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    ::close(fd);
    throw InputError(path, 0, fmt::format("{} bytes is too large for a {} file (limit {} MiB)", info.st_size, what,
                                          max_bytes >> 20));
  }
  std::string text;
  text.resize(static_cast<std::size_t>(info.st_size));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw InputError(path, 0, "cannot read: " + errno_text());
    }
    if (n == 0) break;  // the file shrank while reading
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  ::close(fd);
  return text;
}

void check_output_path(const std::string& path, std::string_view option) {
  if (path.empty()) throw UsageError(fmt::format("{} \"\": no file named", option));
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw UsageError(fmt::format("{} {}: is a directory; a file name is expected", option, path));
  }
  const auto slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (::stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    throw UsageError(fmt::format("{} {}: the directory {} does not exist", option, path, directory));
  }
  if (::access(directory.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("{} {}: cannot write in {} ({})", option, path, directory, errno_text()));
  }
}

void write_stdout(std::string_view text) {
  // Through stdio, so the text stays in order with what was printed before it.
  errno = 0;
  const std::size_t written = std::fwrite(text.data(), 1, text.size(), stdout);
  if (written != text.size() || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    throw InputError("standard output", 0, "cannot write: " + (errno != 0 ? errno_text() : std::string("write failed")));
  }
}

std::optional<std::string> read_small_file(const std::string& path, std::uint64_t max_bytes, std::string* why) {
  auto refuse = [&](const std::string& reason) -> std::optional<std::string> {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return refuse(errno_text());
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return refuse("not a regular file");
  }
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string reason = errno_text();
      ::close(fd);
      return refuse(reason);
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      return refuse(fmt::format("larger than {} bytes", max_bytes));
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void write_file_atomically(const std::string& path, std::string_view content, const std::vector<std::string>& inputs) {
  if (path.empty()) throw InputError("(empty path)", 0, "no output file named");
  for (const auto& input : inputs) {
    if (same_file(path, input)) throw InputError(path, 0, "refusing to write over an input of this command");
  }
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode)) {
    throw InputError(path, 0, "is a directory; a file name is expected");
  }
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) throw InputError(path, 0, "cannot create a file beside it: " + errno_text());
  try {
    write_all(fd, content, path);
    if (::fsync(fd) != 0) throw InputError(path, 0, "cannot flush to disk: " + errno_text());
    // mkstemp makes the file 0600; an output is as readable as any file the user creates.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    if (::close(fd) != 0) {
      ::unlink(temp.c_str());
      throw InputError(path, 0, "cannot write: " + errno_text());
    }
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(temp.c_str());
    throw InputError(path, 0, "cannot replace: " + why);
  }
}

}  // namespace linkscope
