#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "plan/p2p_plan.hpp"

namespace linkscope::measure {

// A copy done by the SMs of one GPU: a kernel on `device` that loads 16-byte vectors from `src` and stores
// them to `dst`; either side may be another GPU's memory (peer access enabled) or this GPU's own.
//
// Design for NVLink (one peer read costs ~0.8 us, so ~400 KB must be in flight GPU-wide to fill 478 GB/s):
// a persistent grid of ctas_per_sm CTAs per SM walks the buffer in tiles of threads x unroll vectors, each thread
// issuing `unroll` independent loads before any of its stores (no thread waits on one load at a time), the last
// partial tile uses the same unrolled, predicated body (no serial tail loop), and bytes % 16 are copied by one
// thread. The `bulk` variant (sm_90) moves whole chunks with cp.async.bulk through shared memory instead, so
// the copy engine of the SM (TMA) issues large requests; GPUs below sm_90 run the read default instead.
//
// One launch can repeat the copy `repeats` times (a sample's N copies in one launch, as nvbandwidth's SM copies):
// every CTA walks its share of the buffer again as soon as it finished the previous pass, so there is no launch
// gap and no grid-wide drain between copies. Each pass moves the same bytes to the same place, so the destination
// ends exactly as after one copy and the poison/verify of a sample stays exact.
class SmCopyKernel {
 public:
  // Resolves the launch shape for `device` (occupancy, SM count). Throws UsageError when the shape cannot run
  // there (e.g. too many threads for the registers the unroll needs, or shared memory for bulk).
  SmCopyKernel(int device, const plan::SmKernelShape& shape);

  // Enqueues one launch that copies `bytes` `repeats` times on `stream` (a stream of `device`; makes `device`
  // current while launching).
  void launch(const void* src, void* dst, std::uint64_t bytes, cudaStream_t stream, std::uint32_t repeats = 1) const;

  // Whether a sample's copies of `bytes` run inside one launch (plan::repeat_in_kernel with this shape's repeat
  // mode, the kernel that actually runs and this GPU's SM count).
  bool repeats_in_kernel(std::uint64_t bytes) const;

  int device() const { return device_; }
  const plan::SmKernelShape& shape() const { return shape_; }
  // The requested shape's label, plus what changed on this GPU ("bulk 16Kx4 c2 (ran as vec: needs sm_90)").
  const std::string& label() const { return label_; }

 private:
  int device_;
  plan::SmKernelShape shape_;
  bool use_bulk_ = false;
  bool loads_allocate_in_l1_ = false;
  int sm_count_ = 0;
  int threads_ = 0;
  int max_ctas_ = 0;          // SMs x resident CTAs per SM
  std::size_t shared_bytes_ = 0;
  void (*vec_kernel_)(const uint4*, uint4*, std::uint64_t, const unsigned char*, unsigned char*, unsigned,
                      std::uint32_t) = nullptr;
  std::string label_;
};

}  // namespace linkscope::measure
