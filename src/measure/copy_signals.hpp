#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "platform/cuda_resources.hpp"

namespace linkscope::measure {

// Signals between the streams of one sample, possibly on different GPUs, through flags in host-mapped memory:
// a one-thread kernel writes a flag, a one-thread kernel on another stream spins until it holds the expected
// value. A cross-GPU cudaStreamWaitEvent is resolved by the waiting GPU's front end, which polls for the other
// GPU's event; a spinning kernel sees a flag one PCIe write and read after it was set (~1-2 us), so a shared
// window opened and closed this way adds less of the synchronisation itself to the time it measures.
//
// Each sample uses a new `epoch` (1, 2, ...), so flags never need resetting: a wait is for flag == epoch.
// A wait gives up after `timeout_seconds` (like the launch gate) and counts itself in expired().
class StreamSignals {
 public:
  StreamSignals(std::size_t slots, double timeout_seconds = 20.0);

  // Enqueues on `stream` (of `device`): set flag `slot` to `epoch`.
  void signal(int device, cudaStream_t stream, std::size_t slot, std::uint32_t epoch) const;
  // Enqueues on `stream`: wait until flags first .. first + count - 1 all hold `epoch`.
  void wait(int device, cudaStream_t stream, std::size_t first, std::size_t count, std::uint32_t epoch) const;

  // True when a wait timed out since the last reset_expired().
  bool expired() const;
  void reset_expired();

 private:
  platform::PinnedHostBuffer flags_;  // [0, slots): flags; [slots]: expired counter
  std::size_t slots_;
  double timeout_seconds_;
};

// Loads the signal and wait kernels on `device` (lazy module loading could otherwise stall a first launch inside a
// gated sample; see preload_sample_kernels).
void preload_signal_kernels(int device);

}  // namespace linkscope::measure
