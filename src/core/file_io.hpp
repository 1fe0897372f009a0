#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The one way linkscope reads an input file and writes an output file.
// - Reading: only a regular file, at most `max_bytes` (a FIFO, a device such as /dev/zero, a directory or a huge file
//   is an InputError naming the file, never a hang or a memory blow-up).
// - Writing: atomically (a hidden temporary file beside the target, flushed to disk, then renamed over it:
//   core/staged_file), so a full disk, a signal or a crash leaves the previous file whole; never over a file the
//   command read (`inputs`). Several files that belong together (a report directory): core/file_set.
namespace linkscope {

std::string read_input_file(const std::string& path, std::uint64_t max_bytes, std::string_view what);

// Reads at most `max_bytes` of a regular file without blocking (a FIFO, a device or a directory is refused; a file
// that is larger, such as a 1 GB sparse file where a one-line attribute was expected, too). For the machine's own
// files (/sys, /proc), whose size the kernel reports as 0 or 4096: nullopt with `why` when refused or unreadable.
std::optional<std::string> read_small_file(const std::string& path, std::uint64_t max_bytes, std::string* why = nullptr);

// Throws InputError naming `path` when the write fails or `path` is one of `inputs` (the same file, by inode).
// SIGINT, SIGTERM or SIGHUP while it writes (core/write_signals) remove the temporary file and throw an interrupted
// Error (exit 130): before the rename, `path` is as it was; during it, the new file is complete.
void write_file_atomically(const std::string& path, std::string_view content,
                           const std::vector<std::string>& inputs = {});

// Creates the output directory `path` and its parents when missing. Throws InputError naming `path` and why not
// (a file where a directory is due, a name too long, no permission) when it is not a directory afterwards.
void create_output_directory(const std::string& path);

// Before any measuring: an output file can be created where `path` says (its directory exists and is writable,
// and it is not a directory). Throws UsageError naming the path.
void check_output_path(const std::string& path, std::string_view option);

// Writes `text` to standard output and flushes it; a failed write (stdout on a full disk, /dev/full, a closed pipe)
// is an InputError naming standard output (exit 2), never a silent success.
void write_stdout(std::string_view text);

// True when both paths name the same existing file.
bool same_file(const std::string& a, const std::string& b);

}  // namespace linkscope
