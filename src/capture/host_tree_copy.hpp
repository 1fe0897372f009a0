#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "discover/sysfs_root.hpp"

// The part of a machine's /sys, /proc and /dev a capture keeps: every file discovery and the diagnosis rules read,
// copied byte for byte (PCI config space included) with its symbolic links as links, below a directory that
// `discover::SysfsRoot` then reads as it reads the live machine. What may be secret or harmful to read is never
// touched: no environment, no serial numbers, no `vpd`/`rom`/`resource*` files, no writes.
namespace linkscope::capture {

struct TreeCopyLimits {
  std::uint64_t max_files = 200000;
  std::uint64_t max_bytes = 96ull * 1024 * 1024;
  double max_seconds = 60;  // a sysfs attribute that blocks cannot hold the capture forever
};

struct TreeCopy {
  std::uint64_t files = 0, links = 0, directories = 0, bytes = 0;
  std::vector<std::string> unreadable;  // "/sys/...: Permission denied" (the first 200)
  std::uint64_t unreadable_count = 0;
  std::string truncated;                // non-empty: a limit stopped the copy early, and which
};

// One subtree of the selection: `path` and how deep below it the copy descends (0: the entry itself).
struct TreeSelection {
  std::string path;
  int depth = 0;
};

// The subtrees a capture holds, in copy order (the one list: docs/capture.md shows it).
const std::vector<TreeSelection>& capture_selection();

// True for names never read: write-only triggers, mapped BARs, option ROMs, VPD (reads can block for seconds),
// serial numbers and UUIDs of the board, and per-queue or per-GID directories that hold thousands of files.
bool skipped_in_capture(const std::string& name);

// Copies the selection from `source` (the live "/" or a snapshot) into `destination` (absolute paths of the
// described machine below it). Never throws for an unreadable file: it is listed and the copy goes on.
TreeCopy copy_host_tree(const discover::SysfsRoot& source, const std::string& destination,
                        const TreeCopyLimits& limits = {});

}  // namespace linkscope::capture
