#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::discover {

// The most read of one sysfs attribute and of a whole file such as /proc/cpuinfo: a larger one (a sparse file,
// /dev/zero bound over an attribute) is refused as unreadable, never read whole.
inline constexpr std::uint64_t kMaxSysfsAttributeBytes = 64 * 1024;
inline constexpr std::uint64_t kMaxSysfsFileBytes = 8 * 1024 * 1024;

// Reads /sys and /proc below a root directory: "/" for the live machine, or an extracted snapshot
// (`--sysfs-root DIR`, tests). Paths given to and returned by this class are absolute paths of the
// machine being described ("/sys/bus/pci/devices/0000:00:06.0"); the root is prepended only to touch files.
class SysfsRoot {
 public:
  explicit SysfsRoot(std::string root = "/");

  const std::string& root() const { return root_; }
  bool is_live() const { return root_ == "/"; }
  // The file system path of `path` below the root.
  std::string host_path(std::string_view path) const;

  // A sysfs attribute as the kernel wrote it, without its final newline; nullopt when missing or unreadable.
  std::optional<std::string> read_attribute(std::string_view path) const;
  // A whole file (e.g. /proc/cpuinfo); nullopt when missing or unreadable.
  std::optional<std::string> read_file(std::string_view path) const;
  // Names in a directory, sorted; empty when it is missing.
  std::vector<std::string> list(std::string_view directory) const;
  bool exists(std::string_view path) const;

  // The canonical path with every symbolic link followed inside the root (absolute link targets are taken
  // relative to the root; ".." never leaves it). Components that do not exist are kept lexically, so a
  // snapshot whose link points at a directory it did not capture still names that directory.
  std::string resolve(std::string_view path) const;

 private:
  std::string root_;
};

// "a/b/../c" -> "a/c" (lexical, no file system access); keeps a leading "/".
std::string normalize_path(std::string_view path);
// Last component of a path ("/sys/devices/x/0000:00:06.0" -> "0000:00:06.0").
std::string_view path_basename(std::string_view path);
// Everything before the last component ("/a/b" -> "/a"; "/a" -> "/").
std::string_view path_dirname(std::string_view path);

}  // namespace linkscope::discover
