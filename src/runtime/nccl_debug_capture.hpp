#pragma once
#include <map>
#include <string>

#include "core/environment.hpp"

namespace linkscope::runtime {

// What NCCL is asked to log. Every call's TUNING line costs the host about 1 us per collective (measured on 1 x H200,
// bench/NOTES.md run 7: all_reduce_perf at 8 B 7.1-8.2 us with it, 5.7-6.9 without), so a run whose `time` is a
// host timer around the calls, as nccl-tests', logs only what NCCL prints while it initialises.
enum class CaptureDetail {
  kInitAndCalls,  // INIT,GRAPH,ENV,TUNING: transports, graphs and the algorithm/protocol/channels of every call
  kInitOnly,      // INIT,GRAPH,ENV: transports and graphs; no per-call line inside the timed loop
};

// Records what NCCL chose by running it with NCCL_DEBUG=INFO, the subsystems of a CaptureDetail and NCCL_DEBUG_FILE
// pointing into a private directory. NCCL reads these once, at its first call, so apply() must run before anything
// touches NCCL in this process (or the variables go to a child's environment). A user who set NCCL_DEBUG or
// NCCL_DEBUG_FILE keeps their settings and the run is not recorded.
class NcclDebugCapture {
 public:
  // Decides from `env`; creates the directory under $TMPDIR (or /tmp) only when capturing.
  explicit NcclDebugCapture(const Environment& env, CaptureDetail detail = CaptureDetail::kInitAndCalls);
  ~NcclDebugCapture();
  NcclDebugCapture(const NcclDebugCapture&) = delete;
  NcclDebugCapture& operator=(const NcclDebugCapture&) = delete;

  bool active() const { return active_; }
  // Why nothing is recorded (empty when active).
  const std::string& reason() const { return reason_; }
  // The variables to set (empty when not active).
  std::map<std::string, std::string> variables() const;
  // Sets variables() in this process (setenv).
  void apply() const;
  // Every log file NCCL wrote so far, concatenated (several processes or communicators may write).
  std::string collect() const;
  // Removes the directory now (the destructor does it too); for paths that end the process without
  // unwinding (MPI_Abort, a watchdog).
  void remove_files() noexcept;
  // Under MPI, one rank's MPI_Abort makes mpirun end the others with SIGTERM, often before they reach their own
  // remove_files(): from now until this object goes, a SIGTERM first removes the directory (with only
  // async-signal-safe calls), then ends the process as SIGTERM does. One capture at a time.
  void remove_on_sigterm();

 private:
  bool active_ = false;
  CaptureDetail detail_;
  std::string reason_;
  std::string directory_;
  bool sigterm_installed_ = false;
};

}  // namespace linkscope::runtime
