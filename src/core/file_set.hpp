#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/write_signals.hpp"

// A set of files written into one directory as a whole: the report directory (run.json, report.html, report.md,
// the SVG charts, a cluster's host runs). Each file is atomic by itself (core/staged_file); this makes the set so.
//
// 1. Staging: add() writes each new file under a hidden temporary name in the directory and flushes it to disk.
//    Nothing the directory held changes. Any failure, or SIGINT/SIGTERM/SIGHUP, removes every staged file and
//    leaves the directory as it was, the earlier run.json included.
// 2. Before any rename: each one must be allowed (core/replace_permission: another user's file in a sticky
//    directory is not), else the staged files go and the directory stays as it was.
// 3. Commit, under an exclusive lock on the directory (core/directory_lock: a second writer waits for the first's
//    swap, so the directory ends as the whole set of one of them) and with those signals blocked: each staged file
//    is renamed over its target in the order added (the report adds run.json first), the earlier set's files that
//    the new set lacks are removed, the list of the set's names (kFileSetList) is replaced, and the directory is
//    flushed to disk. A signal that arrives meanwhile is acted on once the new set is in place.
// Only files the list names are ever removed: a user's own files in the directory stay. What POSIX cannot give
// (a SIGKILL or power loss between two of the commit's renames) and why not a swapped sibling directory:
// docs/reports.md "Writing the report directory".
namespace linkscope {

// The hidden file naming the files the last set wrote, one per line: what a later set may remove.
inline constexpr const char* kFileSetList = ".linkscope-files";
// A report's list names tens of files; a larger one was not written by linkscope and is not trusted (README Limits).
inline constexpr std::uint64_t kMaxFileSetListBytes = 1 << 20;

class FileSetWriter {
 public:
  // Creates `directory` when missing. Targets that are one of `inputs` are refused (InputError, exit 2).
  FileSetWriter(std::string directory, std::vector<std::string> inputs);
  ~FileSetWriter();  // removes whatever was staged and not committed
  FileSetWriter(const FileSetWriter&) = delete;
  FileSetWriter& operator=(const FileSetWriter&) = delete;

  // Stages `content` as the file `name` (a plain file name) of the set; a name added again keeps the last.
  // Throws InputError naming the target when it cannot be written, and an interrupted Error (exit 130) after one
  // of the signals: both after removing everything staged.
  void add(const std::string& name, std::string_view content);

  // Swaps the staged set in; returns the paths of the set's files (not the list). Throws InputError when another
  // process keeps the directory locked for kDirectoryLockWait (nothing changed), when a rename or the flush fails
  // (the first rename failing, or one the sticky bit refuses, leaves the directory as it was; a later one, the others
  // in place), and an
  // interrupted Error once the set is in place when a signal came during the swap (before it: nothing changed).
  std::vector<std::string> commit();

 private:
  struct Staged {
    std::string target;
    std::string temp;
  };
  std::string path_of(const std::string& name) const;
  void stop_if_interrupted();
  void remove_staged();
  void remove_earlier_files(const std::vector<std::string>& kept);

  std::string directory_;
  std::vector<std::string> inputs_;
  std::vector<std::string> names_;
  std::vector<Staged> staged_;
  WriteSignals signals_;
};

}  // namespace linkscope
