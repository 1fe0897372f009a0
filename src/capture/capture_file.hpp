#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "capture/host_tree_copy.hpp"
#include "core/temp_directory.hpp"
#include "discover/cuda_source.hpp"
#include "discover/nccl_probe.hpp"
#include "discover/nvml_source.hpp"
#include "model/json_read.hpp"

// A capture: one machine's facts as files, diagnosable anywhere (`linkscope capture -o machine.tgz`, then
// `doctor --capture` / `topo --capture`), as hwloc loads the XML of another machine. A gzip'd tar of one folder:
//   linkscope-capture/manifest.json  what, when, where, by which linkscope; NCCL_*/CUDA_* variables; limits hit
//   linkscope-capture/root/...       the selected /sys, /proc and /dev entries (host_tree_copy.hpp)
//   linkscope-capture/nvml.json      NVML's snapshot, cuda.json CUDA's, nccl.json NCCL's topology child
// docs/capture.md describes the format; format_version changes only when an older reader would misread it.
namespace linkscope::capture {

inline constexpr const char* kCaptureFormat = "linkscope-capture";
inline constexpr int kCaptureFormatVersion = 1;
inline constexpr const char* kCaptureFolder = "linkscope-capture";
// Captures larger than this (compressed) are refused before extraction: a real one is a few MiB.
inline constexpr std::uint64_t kMaxCaptureBytes = 256ull * 1024 * 1024;

struct CaptureManifest {
  int format_version = kCaptureFormatVersion;
  std::string linkscope_version;
  std::string created_utc;  // "2026-12-06T08:00:00Z"
  std::string hostname;
  std::string kernel;       // uname -r
  bool privileged = false;  // taken as root: PCI extended config space (ACS, ATS) readable
  std::map<std::string, std::string> environment;  // NCCL_* and CUDA_* only
  std::string nccl_library, nccl_version, nccl_unavailable;  // the libnccl linkscope would load there
  TreeCopy tree;
};

// Everything a capture holds, as the live discovery's inputs.
struct Capture {
  CaptureManifest manifest;
  discover::NvmlSnapshot nvml;
  discover::CudaSnapshot cuda;
  std::optional<discover::NcclProbeResult> nccl;  // absent when the capture was taken with --no-nccl
};

// Writes `capture` with the tree already copied below `folder` + "/root" into `output` (atomically: the archive
// appears whole or not at all). Throws InputError for an unwritable output, Error when `tar` fails.
void write_capture(const std::string& output, const std::string& folder, const Capture& capture);

// A capture extracted into a private temporary folder (removed with this object); `root()` is what
// discover::SysfsRoot reads.
class LoadedCapture {
 public:
  LoadedCapture(std::unique_ptr<TempDirectory> directory, Capture capture);
  const Capture& capture() const { return capture_; }
  std::string root() const;
  const std::string& source() const { return source_; }

 private:
  friend LoadedCapture load_capture(const std::string& path, const Environment& env);
  std::unique_ptr<TempDirectory> directory_;
  Capture capture_;
  std::string source_;
};

// Extracts and reads `path`. Throws InputError (exit 2) naming the file and the problem: not a capture, a newer
// format, a damaged archive or JSON, a missing part.
LoadedCapture load_capture(const std::string& path, const Environment& env);

nlohmann::json manifest_json(const CaptureManifest& manifest);
CaptureManifest manifest_from(const model::JsonReader& reader);

}  // namespace linkscope::capture
