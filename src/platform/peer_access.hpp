#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace linkscope::platform {

// Whether GPU `accessor` can map the memory of GPU `owner` (cudaDeviceCanAccessPeer), and why not.
struct PeerAccess {
  bool possible = false;
  std::string reason;  // empty when possible
};
PeerAccess query_peer_access(int accessor, int owner);

// Lets `accessor` load/store `owner`'s memory directly (idempotent). Throws DeviceError on failure.
void enable_peer_access(int accessor, int owner);

// Queries and enables access for every ordered pair of distinct `devices`, keyed (accessor, owner); an enable that
// fails becomes an impossible PeerAccess naming the failure.
std::map<std::pair<int, int>, PeerAccess> enable_peer_access_among(const std::vector<int>& devices);

}  // namespace linkscope::platform
