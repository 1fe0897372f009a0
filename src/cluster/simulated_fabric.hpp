#pragma once
#include <optional>
#include <string>
#include <vector>

#include "plan/collective_spec.hpp"

// The simulated fabric of the tests (LINKSCOPE_TEST_FABRIC=FILE, read only by the test build of the binary,
// linkscope_with_test_seams): every host's speed and latency, and which hosts are slow or hung, so MPI jobs of many
// ranks on one CPU machine run the cross-host tests and `cluster --isolate` through the same protocol as a real job.
// The file format is in docs/multi-node.md ("The simulated fabric"). Pure code; the runner over it is
// cluster/simulated_fabric_runner.
namespace linkscope::cluster {

struct FabricHost {
  double send_gbps = 0, recv_gbps = 0;  // per direction, GB/s
  double latency_us = 0;
  bool slow = false;  // its bandwidth times the file's slow_factor
  bool hung = false;  // a collective it is in never completes
  // From its Nth collective on (counting from 1) it is slow, as a link that degrades during a soak; 0: never.
  int slow_from = 0;
};

// One host of a collective: its name and the world ranks on it (a host is found by either).
struct FabricMember {
  std::string host;
  std::vector<int> ranks;
};

// What one collective over some hosts does at one size.
struct FabricOutcome {
  bool hung = false;
  std::vector<std::string> hung_hosts;
  double time_us = 0;  // when not hung
};

class SimulatedFabric {
 public:
  // Parses the file's text; InputError naming `file` and the field for a bad one (unknown fields included).
  static SimulatedFabric parse(const std::string& text, const std::string& file);
  static SimulatedFabric load(const std::string& path);

  FabricHost host(const FabricMember& member) const;
  // Time of `op` at `bytes` over the members: the latency of the slowest member plus bus_factor x bytes at the
  // smallest per-direction bandwidth among them, so the busbw reached is that bandwidth (less the latency).
  // `counts`: how many collectives each member has taken part in, this one included (for slow_from; empty: 1 each).
  FabricOutcome collective(coll::CollectiveOp op, const std::vector<FabricMember>& members, std::uint64_t bytes,
                           const std::vector<long long>& counts = {}) const;

 private:
  struct Entry {
    std::optional<std::string> name;
    std::optional<int> rank;
    FabricHost host;
  };
  FabricHost default_host_;
  double slow_factor_ = 0.25;
  std::vector<Entry> entries_;
};

}  // namespace linkscope::cluster
