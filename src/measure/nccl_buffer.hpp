#pragma once
#include <cstddef>

namespace linkscope::measure {

// Device memory for collective buffers. Allocated with ncclMemAlloc when the runtime NCCL has it (as
// nccl-tests does since NCCL 2.19: cuMem memory NCCL can map for P2P and NVLS), else cudaMalloc, so both
// tools move data between the same kind of memory.
class NcclBuffer {
 public:
  NcclBuffer() = default;
  NcclBuffer(int device, std::size_t bytes);
  ~NcclBuffer();
  NcclBuffer(NcclBuffer&& other) noexcept;
  NcclBuffer& operator=(NcclBuffer&& other) noexcept;
  NcclBuffer(const NcclBuffer&) = delete;
  NcclBuffer& operator=(const NcclBuffer&) = delete;

  void* get() const { return pointer_; }
  char* bytes() const { return static_cast<char*>(pointer_); }
  std::size_t size() const { return size_; }
  bool from_nccl() const { return from_nccl_; }

 private:
  void release() noexcept;
  void* pointer_ = nullptr;
  std::size_t size_ = 0;
  int device_ = -1;
  bool from_nccl_ = false;
};

}  // namespace linkscope::measure
