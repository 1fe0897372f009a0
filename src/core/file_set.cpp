#include "core/file_set.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "core/directory_lock.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/replace_permission.hpp"
#include "core/staged_file.hpp"
#include "core/write_faults.hpp"

namespace linkscope {

namespace {

// A name a set may hold, and so the only kind of name a list may make the writer remove: a plain, visible file
// name in the directory (never a path, never a hidden file such as a temporary or the list itself).
bool plain_file_name(const std::string& name) {
  // No line breaks: the list holds one name per line.
  return !name.empty() && name.front() != '.' && name.front() != '#' && name.find_first_of("/\n\r") == std::string::npos &&
         name.find('\0') == std::string::npos;
}

std::string list_text(const std::vector<std::string>& names) {
  std::string text = "# The files linkscope wrote here last; the next report removes those it does not write again.\n";
  for (const auto& name : names) text += name + "\n";
  return text;
}

std::vector<std::string> parse_list(const std::string& text) {
  std::vector<std::string> names;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (plain_file_name(line)) names.push_back(line);  // also skips the comment line
  }
  return names;
}

}  // namespace

FileSetWriter::FileSetWriter(std::string directory, std::vector<std::string> inputs)
    : directory_(std::move(directory)), inputs_(std::move(inputs)) {
  create_output_directory(directory_);
}

FileSetWriter::~FileSetWriter() { remove_staged(); }

std::string FileSetWriter::path_of(const std::string& name) const {
  return (std::filesystem::path(directory_) / name).string();
}

void FileSetWriter::remove_staged() {
  for (const auto& staged : staged_) ::unlink(staged.temp.c_str());
  staged_.clear();
}

void FileSetWriter::stop_if_interrupted() {
  const int signal_number = signals_.caught();
  if (signal_number == 0) return;
  remove_staged();
  throw Error(ExitCode::kInterrupted,
              fmt::format("{}: interrupted ({}) before the new files replaced the earlier ones; the directory is as "
                          "it was",
                          directory_, WriteSignals::name(signal_number)));
}

void FileSetWriter::add(const std::string& name, std::string_view content) {
  if (!plain_file_name(name)) throw Error(ExitCode::kInternal, "file set: \"" + name + "\" is not a plain file name");
  stop_if_interrupted();
  const std::string target = path_of(name);
  std::string temp;
  try {
    check_write_target(target, inputs_);
    temp = stage_beside(target, content);
  } catch (...) {
    remove_staged();
    throw;
  }
  // A name added twice (two chart names that slug alike) keeps the last content, as writing it twice would.
  const auto again = std::find_if(staged_.begin(), staged_.end(), [&](const Staged& s) { return s.target == target; });
  if (again != staged_.end()) {
    ::unlink(again->temp.c_str());
    again->temp = std::move(temp);
  } else {
    staged_.push_back({target, std::move(temp)});
    names_.push_back(name);
  }
  pause_write("staged", staged_.size(), [this] { return signals_.caught() != 0; });
  stop_if_interrupted();
}

void FileSetWriter::remove_earlier_files(const std::vector<std::string>& earlier) {
  for (const auto& name : earlier) {
    if (std::find(names_.begin(), names_.end(), name) != names_.end()) continue;
    const std::string path = path_of(name);
    // A file this command reads is never removed, even when the earlier report wrote it (`report
    // out/host-a.json --output out/` over a cluster report).
    if (std::any_of(inputs_.begin(), inputs_.end(), [&](const std::string& input) { return same_file(path, input); })) {
      continue;
    }
    struct stat info {};
    // lstat: a symbolic link or anything but a regular file under a listed name is not what linkscope wrote.
    if (::lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) ::unlink(path.c_str());
  }
}

std::vector<std::string> FileSetWriter::commit() {
  stop_if_interrupted();
  // Another linkscope writing here swaps its set first; the earlier list is read only once this one may swap.
  const DirectoryLock lock(directory_, kDirectoryLockWait, [this] { return signals_.caught() != 0; });
  stop_if_interrupted();
  const std::string list_path = path_of(kFileSetList);
  std::string why;
  const auto earlier_text = read_small_file(list_path, kMaxFileSetListBytes, &why);
  if (!earlier_text && ::access(list_path.c_str(), F_OK) == 0) {
    std::fprintf(stderr, "linkscope: warning: %s: %s; no file of an earlier report is removed\n", list_path.c_str(),
                 why.c_str());
  }
  const std::vector<std::string> earlier = earlier_text ? parse_list(*earlier_text) : std::vector<std::string>{};
  try {
    check_write_target(list_path, inputs_);
    staged_.push_back({list_path, stage_beside(list_path, list_text(names_))});
  } catch (...) {
    remove_staged();
    throw;
  }
  stop_if_interrupted();
  // Every rename must be allowed before the first one: one refused half-way would leave a mix of two reports.
  for (const auto& staged : staged_) {
    if (const std::string refused = replace_refusal(staged.target); !refused.empty()) {
      const std::string target = staged.target;  // remove_staged() clears staged_
      remove_staged();
      throw InputError(target, 0, "cannot replace: " + refused + "; the directory is as it was");
    }
  }

  signals_.hold();
  const std::size_t files = staged_.size() - 1;  // the last one is the list
  // The first rename failing changes nothing yet: the set stops there and the directory stays as it was.
  if (files > 0 && ::rename(staged_.front().temp.c_str(), staged_.front().target.c_str()) != 0) {
    const std::string target = staged_.front().target;
    const std::string why_not = std::strerror(errno);
    remove_staged();
    signals_.release();
    throw InputError(target, 0, "cannot replace: " + why_not + "; the directory is as it was");
  }
  // A later rename that fails (staging's checks leave little that can: an I/O error) cannot be undone: the
  // others go ahead, so the set is as new as it can be, and the error names the file that kept its earlier text.
  std::string failed, why_failed;
  const auto note_failure = [&](const std::string& path, const std::string& what) {
    if (!failed.empty()) return;
    failed = path;
    why_failed = what + std::strerror(errno);
  };
  std::vector<std::string> written;
  if (files > 0) {
    written.push_back(staged_.front().target);
    pause_write("committed", written.size(), [this] { return signals_.pending(); });
  }
  for (std::size_t i = 1; i < files; ++i) {
    if (::rename(staged_[i].temp.c_str(), staged_[i].target.c_str()) == 0) {
      written.push_back(staged_[i].target);
      pause_write("committed", written.size(), [this] { return signals_.pending(); });
    } else {
      note_failure(staged_[i].target, "cannot replace: ");
      ::unlink(staged_[i].temp.c_str());
    }
  }
  remove_earlier_files(earlier);
  if (::rename(staged_.back().temp.c_str(), list_path.c_str()) != 0) {
    note_failure(list_path, "cannot replace: ");
    ::unlink(staged_.back().temp.c_str());
  }
  staged_.clear();
  const int dir_fd = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0 || ::fsync(dir_fd) != 0) note_failure(directory_, "cannot flush the directory to disk: ");
  if (dir_fd >= 0) ::close(dir_fd);
  signals_.release();  // a signal held during the renames is caught here

  if (!failed.empty()) throw InputError(failed, 0, why_failed + "; the other new files are in place");
  if (const int signal_number = signals_.caught(); signal_number != 0) {
    throw Error(ExitCode::kInterrupted,
                fmt::format("{}: interrupted ({}) while the new files replaced the earlier ones; the new set is "
                            "complete",
                            directory_, WriteSignals::name(signal_number)));
  }
  return written;
}

}  // namespace linkscope
