#pragma once
#include <memory>
#include <string>
#include <vector>

#include "discover/fact.hpp"

namespace linkscope::discover {

// What the CUDA runtime says about one device (one CUDA ordinal, after CUDA_VISIBLE_DEVICES).
struct CudaDeviceRecord {
  int ordinal = 0;
  std::string name;
  std::string uuid;        // "GPU-..." (or "MIG-..." for a MIG instance)
  std::string pci_bus_id;  // canonical "0000:00:06.0"
  int sm = 0;              // major*10 + minor
  unsigned long long memory_bytes = 0;
  long long l2_cache_bytes = 0;  // cudaDeviceProp::l2CacheSize (0: the runtime did not say)
  Fact<bool> gpu_direct_rdma;  // cudaDevAttrGPUDirectRDMASupported, what NCCL writes as <gpu gdr>
  Fact<bool> dma_buf;          // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: NCCL's GPUDirect RDMA without a peer module
  Fact<bool> multicast;        // CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: NVLS needs it (read only; none is created)
};

// One ordered pair of CUDA ordinals.
struct CudaPeerRecord {
  int a = 0;
  int b = 0;
  Fact<bool> can_access_peer;     // cudaDeviceCanAccessPeer
  Fact<int> performance_rank;     // cudaDevP2PAttrPerformanceRank (0 = best)
  Fact<bool> access_supported;    // cudaDevP2PAttrAccessSupported
  Fact<bool> native_atomics;      // cudaDevP2PAttrNativeAtomicSupported
};

struct CudaSnapshot {
  bool available = false;
  std::string reason;           // why no device can be used (no driver, no GPU, ...)
  Fact<int> runtime_version;    // 13000
  Fact<int> driver_version;     // cudaDriverGetVersion
  std::vector<CudaDeviceRecord> devices;
  std::vector<CudaPeerRecord> peers;
  std::vector<std::string> errors;  // a device the runtime lists but cannot describe
};

// Source of CUDA facts: the CUDA runtime (src/platform/cuda_facts.cpp), recorded facts in tests.
class CudaSource {
 public:
  virtual ~CudaSource() = default;
  // Never throws for a missing driver or GPU: the snapshot says unavailable, with the reason.
  virtual CudaSnapshot read() = 0;
};

}  // namespace linkscope::discover
