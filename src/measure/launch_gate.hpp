#pragma once
#include <cuda_runtime.h>

#include "platform/cuda_resources.hpp"

namespace linkscope::measure {

// Keeps streams from starting their work until every operation of a measurement has been enqueued:
// hold() puts a kernel that spins on a host-mapped flag at the head of a stream, release() sets the flag.
// Host enqueue cost then stays out of the timed interval (nvbandwidth and nvbench do the same).
// The spin kernel gives up after `timeout_seconds` so a dead host process cannot wedge the GPU.
class LaunchGate {
 public:
  explicit LaunchGate(double timeout_seconds = 20.0);
  // Enqueues the spin kernel on `stream`, whose device is `device`.
  void hold(int device, cudaStream_t stream);
  // Opens the gate for every held stream.
  void release();
  // Closes the gate again for the next measurement (call after the held streams have drained).
  void reset();
  // True if a spin kernel hit its timeout (the measurement that used it is invalid).
  bool expired() const;

 private:
  platform::PinnedHostBuffer flags_;  // [0] = open flag, [1] = expired counter
  double timeout_seconds_;
};

}  // namespace linkscope::measure
