#pragma once
#include <string>

namespace linkscope::platform {

// Whether GPU `accessor` can map the memory of GPU `owner` (cudaDeviceCanAccessPeer), and why not.
struct PeerAccess {
  bool possible = false;
  std::string reason;  // empty when possible
};
PeerAccess query_peer_access(int accessor, int owner);

// Lets `accessor` load/store `owner`'s memory directly (idempotent). Throws DeviceError on failure.
void enable_peer_access(int accessor, int owner);

}  // namespace linkscope::platform
