#include "discover/process_ownership.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace linkscope::discover {

namespace {

constexpr int kMaxAncestors = 64;  // a parent chain longer than this is not followed further

}  // namespace

ProcessOwnership::ProcessOwnership(SysfsRoot proc, std::int64_t doctor_pid)
    : proc_(std::move(proc)), doctor_pid_(doctor_pid) {}

void ProcessOwnership::add_child(std::int64_t pid, const std::string& step) { children_[pid] = step; }

std::string ProcessOwnership::child_owner(std::int64_t pid) const {
  const auto it = children_.find(pid);
  if (it == children_.end()) return "";
  return it->second.empty() ? "started by the doctor" : "started by the doctor for " + it->second;
}

// /proc/<pid>/stat: "pid (comm) state ppid pgrp ...". The command name may hold spaces and parentheses, so the
// fields are counted from the last ')'.
bool ProcessOwnership::read_stat(std::int64_t pid, Stat& stat) const {
  const auto text = proc_.read_attribute(fmt::format("/proc/{}/stat", pid));
  if (!text) return false;
  const auto close = text->rfind(')');
  if (close == std::string::npos) return false;
  long long ppid = 0, pgrp = 0;
  if (std::sscanf(text->c_str() + close + 1, " %*c %lld %lld", &ppid, &pgrp) != 2) return false;
  stat.ppid = ppid;
  stat.pgrp = pgrp;
  return true;
}

ProcessOwner ProcessOwnership::classify(std::int64_t pid) const {
  ProcessOwner result;
  Stat stat;
  result.visible = read_stat(pid, stat);
  if (const auto comm = proc_.read_attribute(fmt::format("/proc/{}/comm", pid))) result.comm = *comm;
  if (pid == doctor_pid_) {
    result.owner = "the doctor";
    return result;
  }
  if (const std::string child = child_owner(pid); !child.empty()) {
    result.owner = child;
    return result;
  }
  if (!result.visible) return result;
  if (children_.count(stat.pgrp) != 0) {
    result.owner = fmt::format("in the process group of pid {} ({})", stat.pgrp, child_owner(stat.pgrp));
    return result;
  }
  std::int64_t parent = stat.ppid;
  for (int hop = 0; hop < kMaxAncestors && parent > 1; ++hop) {
    if (parent == doctor_pid_ || children_.count(parent) != 0) {
      result.owner = fmt::format("descendant of pid {}", parent);
      return result;
    }
    Stat up;
    if (!read_stat(parent, up)) break;
    parent = up.ppid;
  }
  return result;
}

}  // namespace linkscope::discover
