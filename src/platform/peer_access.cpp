#include "platform/peer_access.hpp"

#include <cuda_runtime.h>

#include <fmt/format.h>

#include "core/error.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_resources.hpp"

namespace linkscope::platform {

PeerAccess query_peer_access(int accessor, int owner) {
  if (accessor == owner) return {true, {}};
  int can = 0;
  const cudaError_t status = cudaDeviceCanAccessPeer(&can, accessor, owner);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return {false, fmt::format("no peer access: cudaDeviceCanAccessPeer({}, {}) failed: {}", accessor, owner,
                               cudaGetErrorString(status))};
  }
  if (can == 0) {
    return {false, fmt::format("no peer access: GPU {} cannot map GPU {}'s memory (cudaDeviceCanAccessPeer = 0)",
                               accessor, owner)};
  }
  return {true, {}};
}

void enable_peer_access(int accessor, int owner) {
  if (accessor == owner) return;
  ScopedDevice scope(accessor);
  const cudaError_t status = cudaDeviceEnablePeerAccess(owner, 0);
  if (status == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();
    return;
  }
  LINKSCOPE_CUDA_CHECK(status);
}

std::map<std::pair<int, int>, PeerAccess> enable_peer_access_among(const std::vector<int>& devices) {
  std::map<std::pair<int, int>, PeerAccess> access;
  for (int a : devices) {
    for (int b : devices) {
      if (a == b) continue;
      auto pair = query_peer_access(a, b);
      if (pair.possible) {
        try {
          enable_peer_access(a, b);
        } catch (const Error& e) {
          pair = {false, fmt::format("no peer access: enabling GPU {} -> GPU {} failed: {}", a, b, e.what())};
        }
      }
      access[{a, b}] = pair;
    }
  }
  return access;
}

}  // namespace linkscope::platform
