#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "discover/sysfs_root.hpp"

// Which GPU processes the doctor started, by pid and the process tree (never by name: a foreign job may be called
// linkscope, and the doctor's children may run under another name). A process is the doctor's when it is the doctor,
// a child the doctor registered (ChildSpec::on_start), in the process group of such a child (a child's children
// share its group), or a descendant of the doctor (its parent chain in /proc leads to it).
namespace linkscope::discover {

struct ProcessOwner {
  bool visible = false;  // /proc/<pid> exists in this PID namespace
  std::string owner;     // why it is the doctor's; empty when it is not (or not visible)
  std::string comm;      // /proc/<pid>/comm when visible
};

class ProcessOwnership {
 public:
  // `proc` reads /proc (the live root "/", or a test directory holding proc/<pid>/stat files).
  ProcessOwnership(SysfsRoot proc, std::int64_t doctor_pid);

  std::int64_t doctor_pid() const { return doctor_pid_; }
  // A child the doctor started; `step` names what it was started for (in the owner text).
  void add_child(std::int64_t pid, const std::string& step);
  ProcessOwner classify(std::int64_t pid) const;

 private:
  struct Stat {
    std::int64_t ppid = 0, pgrp = 0;
  };
  bool read_stat(std::int64_t pid, Stat& stat) const;
  std::string child_owner(std::int64_t pid) const;  // "" when not a registered child

  SysfsRoot proc_;
  std::int64_t doctor_pid_;
  std::map<std::int64_t, std::string> children_;  // pid -> the step it was started for
};

}  // namespace linkscope::discover
