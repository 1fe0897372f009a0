#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "plan/collective_layout.hpp"
#include "plan/collective_pattern.hpp"
#include "plan/collective_spec.hpp"
#include "platform/cuda_resources.hpp"

// GPU kernels that write verification inputs and count wrong output elements (plan/collective_pattern.hpp
// says which values). They run at memory bandwidth, so every size can be checked.
namespace linkscope::measure {

// Writes rank `value_rank`'s pattern for indices 0..count-1 to `data`.
void launch_pattern_fill(void* data, std::uint64_t count, coll::DataType type, const coll::PatternParams& pattern,
                         int value_rank, cudaStream_t stream);

// Adds the number of elements of `data` (check.count of them) that differ from what `check` expects to
// *wrong_device (a device counter). `tolerance` is relative and used only when pattern.exact is false.
void launch_pattern_verify(const void* data, const coll::OutputCheck& check, coll::DataType type,
                           const coll::PatternParams& pattern, double tolerance, unsigned long long* wrong_device,
                           cudaStream_t stream);

// A wrong-element counter on one GPU: reset and read back asynchronously on a stream.
class WrongCounter {
 public:
  explicit WrongCounter(int device);
  unsigned long long* device_counter() const { return device_.as<unsigned long long>(); }
  void reset(cudaStream_t stream) const;
  // Queues the copy to host memory; value() is valid once the stream reached this point.
  void fetch(cudaStream_t stream) const;
  unsigned long long value() const;

 private:
  platform::DeviceBuffer device_;
  platform::PinnedHostBuffer host_;
};

}  // namespace linkscope::measure
