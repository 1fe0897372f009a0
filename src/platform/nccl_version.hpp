#pragma once
#include <string>

// Which NCCL linkscope was built against and which one it loads, without nccl.h: for code outside platform/ and
// measure/ (the CLI, the cluster job) that records or prints the versions.
namespace linkscope::platform {

struct NcclLibraryInfo {
  std::string path;      // the libnccl.so.2 that was opened
  int version_code = 0;  // ncclGetVersion(), e.g. 22803
  std::string version;   // "2.28.3"
};

// The library nccl_library() opens; DeviceError ("NCCL library not found: ...") when it cannot.
NcclLibraryInfo nccl_library_info();

// NCCL_VERSION_CODE of the headers linkscope was built with.
int nccl_headers_version_code();

// NCCL's version code as "2.28.9" (codes >= 10000 are major*10000 + minor*100 + patch).
std::string nccl_version_string(int code);

}  // namespace linkscope::platform
