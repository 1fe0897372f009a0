#include "core/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/staged_file.hpp"
#include "core/write_faults.hpp"
#include "core/write_signals.hpp"

namespace linkscope {

namespace {

std::string errno_text() { return std::strerror(errno); }

// Why `directory` cannot hold files, or "" when it can: the first part of it that exists but is no directory
// names itself ("/dev/null/x" is refused as "/dev/null is not a directory").
std::string directory_problem(const std::string& directory) {
  struct stat info {};
  if (::stat(directory.c_str(), &info) == 0) return S_ISDIR(info.st_mode) ? "" : directory + " is not a directory";
  const std::string why = errno_text();
  for (auto part = std::filesystem::path(directory).parent_path(); !part.empty() && part != part.parent_path();
       part = part.parent_path()) {
    if (::stat(part.c_str(), &info) == 0) {
      if (!S_ISDIR(info.st_mode)) return part.string() + " is not a directory";
      break;
    }
  }
  return why;
}

}  // namespace

void create_output_directory(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  const std::string problem = directory_problem(path);
  if (problem.empty()) return;
  // A part that is no directory says more than create_directories' "File exists"; else its own reason.
  const bool names_a_part = problem.find(" is not a directory") != std::string::npos;
  throw InputError(path, 0, "cannot create the directory: " + (names_a_part || !error ? problem : error.message()));
}

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
  const bool exists = ::stat(path.c_str(), &info) == 0;
  if (exists && S_ISDIR(info.st_mode)) {
    throw UsageError(fmt::format("{} {}: is a directory; a file name is expected", option, path));
  }
  if (!exists && errno == ENAMETOOLONG) throw UsageError(fmt::format("{} {}: {}", option, path, errno_text()));
  const auto slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (const std::string problem = directory_problem(directory); !problem.empty()) {
    throw UsageError(fmt::format("{} {}: cannot write in {} ({})", option, path, directory, problem));
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
  WriteSignals signals;
  check_write_target(path, inputs);
  const std::string temp = stage_beside(path, content);
  pause_write("staged", 1, [&signals] { return signals.caught() != 0; });
  if (signals.caught() != 0) {
    ::unlink(temp.c_str());
    throw Error(ExitCode::kInterrupted, fmt::format("{}: interrupted ({}) before it was replaced; it is as it was",
                                                    path, WriteSignals::name(signals.caught())));
  }
  signals.hold();
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(temp.c_str());
    throw InputError(path, 0, "cannot replace: " + why);
  }
  signals.release();  // a signal held during the rename is caught here
  if (signals.caught() != 0) {
    throw Error(ExitCode::kInterrupted, fmt::format("{}: interrupted ({}) while it was replaced; the new file is "
                                                    "complete", path, WriteSignals::name(signals.caught())));
  }
}

}  // namespace linkscope
