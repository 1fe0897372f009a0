#include "discover/sysfs_root.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "core/file_io.hpp"

namespace linkscope::discover {

namespace {

std::vector<std::string> split_components(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::string join_components(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) {
    out += '/';
    out += part;
  }
  return out.empty() ? "/" : out;
}

constexpr int kMaxSymlinks = 40;  // as the kernel's ELOOP limit

}  // namespace

std::string normalize_path(std::string_view path) {
  std::vector<std::string> kept;
  for (auto& part : split_components(path)) {
    if (part == ".") continue;
    if (part == "..") {
      if (!kept.empty()) kept.pop_back();
      continue;
    }
    kept.push_back(std::move(part));
  }
  return join_components(kept);
}

std::string_view path_basename(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view path_dirname(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

namespace {

// A relative root is taken from the current directory, as every other path on the command line.
std::string absolute_root(const std::string& root) {
  if (root.empty()) return "/";
  if (root.front() == '/') return normalize_path(root);
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return normalize_path("/" + root);
  return normalize_path(std::string(cwd) + "/" + root);
}

}  // namespace

SysfsRoot::SysfsRoot(std::string root) : root_(absolute_root(root)) {}

std::string SysfsRoot::host_path(std::string_view path) const {
  const std::string normalized = normalize_path(path);
  if (root_ == "/") return normalized;
  return normalized == "/" ? root_ : root_ + normalized;
}

std::optional<std::string> SysfsRoot::read_file(std::string_view path) const {
  // /proc/cpuinfo of a 512-CPU host is about 1 MiB; nothing discovery reads is larger.
  return read_small_file(host_path(path), kMaxSysfsFileBytes);
}

std::optional<std::string> SysfsRoot::read_attribute(std::string_view path) const {
  // A sysfs attribute is one value of at most a page; anything else (a snapshot holding /dev/zero, a FIFO or a
  // huge file there) is not an attribute and reads as missing.
  auto text = read_small_file(host_path(path), kMaxSysfsAttributeBytes);
  // sysfs attributes that cannot be read (e.g. a link speed with the link down) often open but fail on read.
  if (!text || text->empty()) return std::nullopt;
  if (text->back() == '\n') text->pop_back();
  return text;
}

std::vector<std::string> SysfsRoot::list(std::string_view directory) const {
  std::vector<std::string> names;
  DIR* dir = opendir(host_path(directory).c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool SysfsRoot::exists(std::string_view path) const {
  struct stat st {};
  return stat(host_path(path).c_str(), &st) == 0;
}

std::string SysfsRoot::resolve(std::string_view path) const {
  std::vector<std::string> pending = split_components(path);
  std::reverse(pending.begin(), pending.end());
  std::vector<std::string> done;
  int links_followed = 0;
  bool missing = false;  // past a component that does not exist: continue lexically
  while (!pending.empty()) {
    std::string component = std::move(pending.back());
    pending.pop_back();
    if (component == ".") continue;
    if (component == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(component);
    if (missing) continue;
    const std::string host = host_path(join_components(done));
    struct stat st {};
    if (lstat(host.c_str(), &st) != 0) {
      missing = true;
      continue;
    }
    if (!S_ISLNK(st.st_mode)) continue;
    if (++links_followed > kMaxSymlinks) {
      missing = true;
      continue;
    }
    char target[PATH_MAX];
    const ssize_t n = readlink(host.c_str(), target, sizeof target - 1);
    if (n <= 0) {
      missing = true;
      continue;
    }
    const std::string_view link(target, static_cast<std::size_t>(n));
    done.pop_back();
    if (!link.empty() && link.front() == '/') done.clear();
    auto parts = split_components(link);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) pending.push_back(std::move(*it));
  }
  return join_components(done);
}

}  // namespace linkscope::discover
