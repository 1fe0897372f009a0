#include "capture/host_tree_copy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "discover/nvidia_services.hpp"

namespace linkscope::capture {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxUnreadableListed = 200;

// How a selected entry is kept: its bytes, or only its name (device nodes under /dev, whose contents mean nothing
// on another machine and whose reads may have effects).
enum class Keep { kContent, kNameOnly };

struct Selected {
  TreeSelection tree;
  Keep keep = Keep::kContent;
};

const std::vector<Selected>& selection_with_kinds() {
  static const std::vector<Selected> kSelection = {
      // The CPU, the kernel and what it was started with (iommu=pt, intel_iommu=...), its modules (nvidia_peermem).
      {{"/proc/cpuinfo", 0}},
      {{"/proc/cmdline", 0}},
      {{"/proc/version", 0}},
      {{"/proc/modules", 0}},
      {{"/proc/devices", 0}},
      {{"/proc/sys/kernel/osrelease", 0}},
      {{"/proc/driver/nvidia", 3}},
      // PCI: every device with its attributes and config space, the bridges and switches between them.
      {{"/sys/bus/pci/devices", 1}},
      {{"/sys/devices/pci*", 14}},
      {{"/sys/devices/system/node", 2}},
      // Networks and RDMA devices (their PCI functions are in the PCI tree above).
      {{"/sys/class/net", 1}},
      {{"/sys/devices/virtual/net", 2}},
      {{"/sys/class/infiniband", 1}},
      // IOMMU: units, groups and each group's domain type (DMA, DMA-FQ, identity).
      {{"/sys/class/iommu", 1}},
      {{"/sys/devices/virtual/iommu", 2}},
      {{"/sys/kernel/iommu_groups", 3}},
      // GPUDirect RDMA: loaded modules and the peer-memory clients registered with the kernel.
      {{"/sys/module", 2}},
      {{"/sys/kernel/mm/memory_peers", 3}},
      // Broadcom PEX switch peer links (NCCL reads them), the platform's maker (virtual machines say so).
      {{"/sys/kernel/pci_switch_link", 3}},
      {{"/sys/class/dmi/id", 1}},
      {{"/sys/hypervisor", 1}},
      // IMEX channels and the NVIDIA device nodes: names only.
      {{"/dev/nvidia-caps-imex-channels", 1}, Keep::kNameOnly},
      {{"/dev/nvidia-caps", 1}, Keep::kNameOnly},
  };
  return kSelection;
}

class Copier {
 public:
  Copier(const discover::SysfsRoot& source, std::string destination, const TreeCopyLimits& limits)
      : source_(source), destination_(std::move(destination)), limits_(limits), start_(Clock::now()) {}

  void copy(const Selected& selected) {
    const std::string& path = selected.tree.path;
    const std::string_view base = discover::path_basename(path);
    if (!base.empty() && base.back() == '*') {  // "pci*": every entry of the parent whose name starts so
      const std::string parent(discover::path_dirname(path));
      const std::string_view prefix = base.substr(0, base.size() - 1);
      for (const auto& name : source_.list(parent)) {
        if (name.compare(0, prefix.size(), prefix) == 0) {
          walk(parent + "/" + name, selected.tree.depth, selected.keep);
        }
      }
      return;
    }
    walk(path, selected.tree.depth, selected.keep);
  }

  TreeCopy result() { return std::move(result_); }

 private:
  bool over_limits() {
    if (!result_.truncated.empty()) return true;
    if (result_.files >= limits_.max_files) {
      result_.truncated = fmt::format("stopped at {} files (the limit)", limits_.max_files);
    } else if (result_.bytes >= limits_.max_bytes) {
      result_.truncated = fmt::format("stopped at {} bytes (the limit)", limits_.max_bytes);
    } else if (std::chrono::duration<double>(Clock::now() - start_).count() > limits_.max_seconds) {
      result_.truncated = fmt::format("stopped after {:.0f} s (the limit)", limits_.max_seconds);
    }
    return !result_.truncated.empty();
  }

  void unreadable(const std::string& path, const std::string& why) {
    ++result_.unreadable_count;
    if (result_.unreadable.size() < kMaxUnreadableListed) result_.unreadable.push_back(path + ": " + why);
  }

  std::string target(const std::string& path) const { return destination_ + path; }

  bool make_parent(const std::string& path) {
    std::error_code error;
    fs::create_directories(fs::path(target(path)).parent_path(), error);
    if (error) unreadable(path, "cannot create its folder in the capture: " + error.message());
    return !error;
  }

  void walk(const std::string& path, int depth, Keep keep) {
    if (over_limits()) return;
    const std::string host = source_.host_path(path);
    struct stat info {};
    if (::lstat(host.c_str(), &info) != 0) return;  // absent here: nothing to keep
    if (!make_parent(path)) return;
    if (S_ISLNK(info.st_mode)) {
      copy_link(path, host);
    } else if (S_ISDIR(info.st_mode)) {
      std::error_code error;
      fs::create_directory(target(path), error);
      ++result_.directories;
      if (depth <= 0) return;
      for (const auto& name : source_.list(path)) {
        if (skipped_in_capture(name)) continue;
        walk(path == "/" ? "/" + name : path + "/" + name, depth - 1, keep);
      }
    } else if (keep == Keep::kNameOnly) {
      const int fd = ::open(target(path).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd >= 0) ::close(fd);
      ++result_.files;
    } else if (S_ISREG(info.st_mode)) {
      copy_file(path, host);
    }
  }

  void copy_link(const std::string& path, const std::string& host) {
    std::error_code error;
    const fs::path link = fs::read_symlink(host, error);
    if (error) return unreadable(path, error.message());
    fs::create_symlink(link, target(path), error);
    if (error) return unreadable(path, "cannot keep the link: " + error.message());
    ++result_.links;
  }

  void copy_file(const std::string& path, const std::string& host) {
    // The same bounds discovery reads with: an attribute larger than that is refused there too.
    const std::uint64_t limit =
        path.rfind("/proc/", 0) == 0 ? discover::kMaxSysfsFileBytes : discover::kMaxSysfsAttributeBytes;
    const int fd = ::open(host.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return unreadable(path, std::strerror(errno));
    std::string content;
    char buffer[16384];
    bool failed = false;
    while (content.size() <= limit) {
      const ssize_t got = ::read(fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        failed = true;
        unreadable(path, std::strerror(errno));
        break;
      }
      if (got == 0) break;
      content.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(fd);
    if (failed) return;
    if (content.size() > limit) return unreadable(path, fmt::format("larger than {} bytes: not kept", limit));
    const int out = ::open(target(path).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) return unreadable(path, std::string("cannot write it into the capture: ") + std::strerror(errno));
    std::size_t written = 0;
    while (written < content.size()) {
      const ssize_t put = ::write(out, content.data() + written, content.size() - written);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) break;
      written += static_cast<std::size_t>(put);
    }
    ::close(out);
    if (written != content.size()) return unreadable(path, "cannot write it into the capture (disk full?)");
    ++result_.files;
    result_.bytes += content.size();
  }

  const discover::SysfsRoot& source_;
  std::string destination_;
  TreeCopyLimits limits_;
  Clock::time_point start_;
  TreeCopy result_;
};

}  // namespace

const std::vector<TreeSelection>& capture_selection() {
  static const std::vector<TreeSelection> kTrees = [] {
    std::vector<TreeSelection> trees;
    for (const auto& selected : selection_with_kinds()) trees.push_back(selected.tree);
    return trees;
  }();
  return kTrees;
}

bool skipped_in_capture(const std::string& name) {
  static const std::set<std::string, std::less<>> kSkipped = {
      // writes or maps, never reads: triggers, BARs, option ROM, VPD (a read can block for seconds)
      "remove", "rescan", "reset", "rom", "vpd", "new_id", "remove_id", "bind", "unbind", "compact", "reclaim",
      // identifiers of the machine and its owner
      "product_serial", "board_serial", "chassis_serial", "product_uuid", "board_asset_tag", "chassis_asset_tag",
      // thousands of files each, used by no rule
      "power", "msi_irqs", "queues", "statistics", "gids", "gid_attrs", "pkeys", "hw_counters", "counters", "queue",
      "mq", "trace", "integrity", "holders", "slaves", "sections", "notes", "drivers", "wakeup"};
  if (name.rfind("resource", 0) == 0) return true;  // resource0..5, resource0_wc, resource2_resize: BARs
  return kSkipped.count(name) > 0;
}

TreeCopy copy_host_tree(const discover::SysfsRoot& source, const std::string& destination,
                        const TreeCopyLimits& limits) {
  Copier copier(source, destination, limits);
  for (const auto& selected : selection_with_kinds()) copier.copy(selected);
  // The NVIDIA daemons running (Fabric Manager, IMEX): their /proc/PID/comm alone, nothing of other processes.
  for (const auto& path : discover::nvidia_service_comm_paths(source)) copier.copy({{path, 0}});
  return copier.result();
}

}  // namespace linkscope::capture
