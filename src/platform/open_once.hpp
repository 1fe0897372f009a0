#pragma once
#include <mutex>
#include <string>

#include "core/error.hpp"

namespace linkscope::platform {

// A library opened at run time, once per process: `open()` runs on the first call only. Success is cached; a
// failure is re-thrown on every call as DeviceError with the same message. One instance per library, e.g.
// `static OpenOnce<NcclLibrary> nccl; return nccl.get(open_nccl);`.
template <typename Library>
class OpenOnce {
 public:
  template <typename Open>
  const Library& get(Open open) {
    std::call_once(once_, [&] {
      try {
        library_ = open();
      } catch (const Error& e) {
        failure_ = e.what();
      }
    });
    if (!failure_.empty()) throw DeviceError(failure_);
    return library_;
  }

 private:
  std::once_flag once_;
  Library library_{};
  std::string failure_;
};

}  // namespace linkscope::platform
