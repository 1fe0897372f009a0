#include "platform/cuda_facts.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <fmt/format.h>

#include "discover/pci_tree.hpp"

namespace linkscope::platform {

namespace {

using discover::CudaDeviceRecord;
using discover::CudaPeerRecord;
using discover::CudaSnapshot;
using discover::Fact;

std::string describe(const char* call, cudaError_t status) {
  cudaGetLastError();  // clear the sticky state so the next query does not inherit it
  return fmt::format("{}: {} ({})", call, cudaGetErrorString(status), cudaGetErrorName(status));
}

std::string format_uuid(const cudaUUID_t& uuid, bool mig) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  return fmt::format("{}-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     mig ? "MIG" : "GPU", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                     b[13], b[14], b[15]);
}

// Runs `call(raw)` (a CUDA query writing an int) and converts the result; the call happens before `raw` is read.
template <typename T, typename Call>
Fact<T> query(const char* name, Call call) {
  int raw = 0;
  const cudaError_t status = call(raw);
  return status == cudaSuccess ? Fact<T>::known(static_cast<T>(raw)) : Fact<T>::unknown(describe(name, status));
}

// Device attributes the runtime's enum lacks (dma-buf, multicast), asked of the driver through its entry point so
// linkscope needs no link against libcuda. Unknown, with the reason, on a driver without the entry points.
class DriverAttributes {
 public:
  DriverAttributes() {
    get_device_ = reinterpret_cast<GetDeviceFn>(entry_point("cuDeviceGet"));
    get_attribute_ = reinterpret_cast<GetAttributeFn>(entry_point("cuDeviceGetAttribute"));
  }

  Fact<bool> flag(int ordinal, CUdevice_attribute attribute, const char* name) const {
    if (get_device_ == nullptr || get_attribute_ == nullptr) {
      return Fact<bool>::unknown(fmt::format("{}: the CUDA driver's entry points cannot be found", name));
    }
    CUdevice device = 0;
    if (const CUresult status = get_device_(&device, ordinal); status != CUDA_SUCCESS) {
      return Fact<bool>::unknown(fmt::format("{}: cuDeviceGet failed ({})", name, static_cast<int>(status)));
    }
    int value = 0;
    if (const CUresult status = get_attribute_(&value, attribute, device); status != CUDA_SUCCESS) {
      return Fact<bool>::unknown(fmt::format("{}: cuDeviceGetAttribute failed ({})", name, static_cast<int>(status)));
    }
    return Fact<bool>::known(value != 0);
  }

 private:
  using GetDeviceFn = CUresult (*)(CUdevice*, int);
  using GetAttributeFn = CUresult (*)(int*, CUdevice_attribute, CUdevice);

  static void* entry_point(const char* symbol) {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    const cudaError_t status = cudaGetDriverEntryPointByVersion(symbol, &function, 12000, cudaEnableDefault, &found);
#else
    const cudaError_t status = cudaGetDriverEntryPoint(symbol, &function, cudaEnableDefault, &found);
#endif
    if (status != cudaSuccess || found != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return function;
  }

  GetDeviceFn get_device_ = nullptr;
  GetAttributeFn get_attribute_ = nullptr;
};

class CudaRuntimeSource final : public discover::CudaSource {
 public:
  CudaSnapshot read() override {
    CudaSnapshot snapshot;
    snapshot.runtime_version = query<int>("cudaRuntimeGetVersion", [](int& v) { return cudaRuntimeGetVersion(&v); });
    snapshot.driver_version = query<int>("cudaDriverGetVersion", [](int& v) { return cudaDriverGetVersion(&v); });
    if (snapshot.driver_version.value_or(-1) == 0) {  // success with 0 means no driver at all
      snapshot.driver_version = Fact<int>::unknown("no CUDA driver is installed (cudaDriverGetVersion reports 0)");
    }
    int count = 0;
    if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
      snapshot.reason = describe("cudaGetDeviceCount", status);
      return snapshot;
    }
    if (count == 0) {
      snapshot.reason = "the CUDA runtime sees no device (CUDA_VISIBLE_DEVICES may hide them all)";
      return snapshot;
    }
    snapshot.available = true;
    const DriverAttributes driver;
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      cudaDeviceProp prop{};
      if (const cudaError_t status = cudaGetDeviceProperties(&prop, ordinal); status != cudaSuccess) {
        snapshot.errors.push_back(fmt::format("CUDA device {}: {}", ordinal, describe("cudaGetDeviceProperties", status)));
        continue;
      }
      CudaDeviceRecord device;
      device.ordinal = ordinal;
      device.name = prop.name;
      const std::string bus = fmt::format("{:04x}:{:02x}:{:02x}.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
      device.pci_bus_id = discover::canonical_bdf(bus).value_or(bus);
      // A MIG instance's name carries "MIG" ("NVIDIA A100-SXM4-40GB MIG 1g.5gb"); its UUID is a "MIG-" one.
      device.uuid = format_uuid(prop.uuid, device.name.find("MIG") != std::string::npos);
      device.sm = prop.major * 10 + prop.minor;
      device.memory_bytes = prop.totalGlobalMem;
      device.l2_cache_bytes = prop.l2CacheSize;
      device.gpu_direct_rdma = query<bool>("cudaDeviceGetAttribute(GPUDirectRDMASupported)", [&](int& v) {
        return cudaDeviceGetAttribute(&v, cudaDevAttrGPUDirectRDMASupported, ordinal);
      });
      // NCCL's own checks: dma-buf registration (GPUDirect RDMA without nvidia-peermem) and NVLS multicast.
      device.dma_buf = driver.flag(ordinal, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED");
      device.multicast = driver.flag(ordinal, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED,
                                     "CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED");
      snapshot.devices.push_back(std::move(device));
    }
    for (const auto& a : snapshot.devices) {
      for (const auto& b : snapshot.devices) {
        if (a.ordinal == b.ordinal) continue;
        CudaPeerRecord peer;
        peer.a = a.ordinal;
        peer.b = b.ordinal;
        const auto p2p_attribute = [&](cudaDeviceP2PAttr which) {
          return [&, which](int& v) { return cudaDeviceGetP2PAttribute(&v, which, a.ordinal, b.ordinal); };
        };
        peer.can_access_peer = query<bool>("cudaDeviceCanAccessPeer", [&](int& v) {
          return cudaDeviceCanAccessPeer(&v, a.ordinal, b.ordinal);
        });
        peer.performance_rank =
            query<int>("cudaDeviceGetP2PAttribute(PerformanceRank)", p2p_attribute(cudaDevP2PAttrPerformanceRank));
        peer.access_supported =
            query<bool>("cudaDeviceGetP2PAttribute(AccessSupported)", p2p_attribute(cudaDevP2PAttrAccessSupported));
        peer.native_atomics = query<bool>("cudaDeviceGetP2PAttribute(NativeAtomicSupported)",
                                          p2p_attribute(cudaDevP2PAttrNativeAtomicSupported));
        snapshot.peers.push_back(std::move(peer));
      }
    }
    return snapshot;
  }
};

}  // namespace

std::unique_ptr<discover::CudaSource> make_cuda_runtime_source() { return std::make_unique<CudaRuntimeSource>(); }

}  // namespace linkscope::platform
