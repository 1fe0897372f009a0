#pragma once
// A synthetic run of three hosts built from the real h200x2 facts (cluster_test_hosts.hpp): node-c has an older
// driver and its cross-host pairs run at half speed. Shared by the unit tests of the cluster rules and renderers and
// the CLI test that validates its report.
#include <string>

#include "cluster/cross_host.hpp"
#include "cluster/host_comparison.hpp"
#include "diagnose/diagnose.hpp"
#include "model/run.hpp"
#include "unit/cluster_test_hosts.hpp"

namespace linkscope::test {

// Three hosts; node-c has an older driver and its pairs run at half speed.
inline model::Run cluster_run() {
  auto c = fixture_host("node-c", 2);
  edit_facts(c).driver.version = std::string("575.57.08");
  const auto hosts = cluster::compare_hosts({fixture_host("node-a", 0), fixture_host("node-b", 1), c});
  model::CrossHost result;
  result.hosts = {"node-a", "node-b", "node-c"};
  result.schedule = "rounds";
  result.sizes_bytes = {256ULL << 20};
  const std::vector<std::pair<int, int>> pairs = {{0, 1}, {0, 2}, {1, 2}};
  for (const auto& [a, b] : pairs) {
    model::CrossHostPair pair;
    pair.a.host = a;
    pair.b.host = b;
    pair.a.nic = pair.b.nic = "mlx5_0:1";
    pair.a.transport = pair.b.transport = "NET/IB/GDRDMA";
    pair.series = measured_series(coll::CollectiveOp::kSendRecv, 2, b == 2 ? 23.5 : 47.0);
    cluster::summarize_pair(pair);
    result.pairs.push_back(pair);
  }
  result.slow = cluster::find_slow(result, &hosts);
  model::Run run = model::make_run("doctor", {"linkscope", "doctor"});
  run.config.host = "node-a";
  run.system = *hosts.hosts[0].system;
  cluster::add_hosts_to_system(run.system, hosts);
  run.measurements.cross_host = result;
  diagnose::diagnose_into(run);
  return run;
}

}  // namespace linkscope::test
