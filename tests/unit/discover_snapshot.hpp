#pragma once
// Extracts the real h200x2 sysfs snapshot (tests/fixtures/h200x2/sysfs-snapshot.tgz) into a temporary
// directory; root() is the directory to pass as --sysfs-root.
#include <gtest/gtest.h>

#include <string>

#include "core/subprocess.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope::test {

class H200x2Snapshot {
 public:
  H200x2Snapshot() {
    const ChildResult tar =
        run_child({"tar", {"-xzf", fixture("h200x2/sysfs-snapshot.tgz"), "-C", dir_.path()}});
    extracted_ = tar.exit_code == 0;
    error_ = tar.err;
  }
  bool ok() const { return extracted_; }
  const std::string& error() const { return error_; }
  std::string root() const { return dir_.path() + "/sysfs"; }

 private:
  TempDir dir_;
  bool extracted_ = false;
  std::string error_;
};

}  // namespace linkscope::test
