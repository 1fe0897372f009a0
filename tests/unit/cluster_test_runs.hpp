#pragma once
// A synthetic run of three hosts built from the real h200x2 facts (tests/fixtures/runs/h200x2-healthy.json) with
// an InfiniBand HCA added: node-c has an older driver and its cross-host pairs run at half speed. Shared by the
// unit tests of the cluster rules and renderers and the CLI test that validates its report.
#include <string>

#include "cluster/cross_host.hpp"
#include "cluster/host_comparison.hpp"
#include "core/run.hpp"
#include "diagnose/diagnose.hpp"
#include "support/run_command.hpp"

namespace linkscope::test {

using nlohmann::json;

inline cluster::HostReport fixture_host(const std::string& name, int rank) {
  cluster::HostReport host;
  host.name = host.hostname = name;
  host.identity_source = "hostname";
  host.ranks = {rank};
  host.leader = rank;
  host.nccl_version = "2.28.9";
  host.system = read_run_file(fixture("runs/h200x2-healthy.json")).system;
  host.system["nics"] = json::parse(R"([{"name": "mlx5_0", "kind": "infiniband", "pci_bdf": "0000:1a:00.0",
      "ports": [{"port": 1, "state": "ACTIVE", "rate_gbps": 400.0, "link_layer": "InfiniBand"}]}])");
  host.system["gpu_nics"] = json::parse(R"([{"cuda_ordinal": 0, "nvml_index": 0, "closest": "mlx5_0", "closest_relation": "SYS"},
      {"cuda_ordinal": 1, "nvml_index": 1, "closest": "mlx5_0", "closest_relation": "PIX"}])");
  return host;
}

inline model::CollectiveSeries sendrecv(double gbps) {
  model::CollectiveSeries series;
  series.op = coll::CollectiveOp::kSendRecv;
  series.nranks = 2;
  model::CollectivePoint point;
  point.requested_bytes = point.bytes = 256ULL << 20;
  point.time = model::TimeSummary{};
  point.algbw_gbps = point.busbw_gbps = gbps;
  series.points.push_back(point);
  return series;
}

// Three hosts; node-c has an older driver and its pairs run at half speed.
inline RunDocument cluster_run() {
  auto c = fixture_host("node-c", 2);
  c.system["driver"]["version"] = "575.57.08";
  const auto hosts = cluster::compare_hosts({fixture_host("node-a", 0), fixture_host("node-b", 1), c});
  cluster::CrossHostResult result;
  result.hosts = {"node-a", "node-b", "node-c"};
  result.schedule = "rounds";
  result.sizes_bytes = {256ULL << 20};
  const std::vector<std::pair<int, int>> pairs = {{0, 1}, {0, 2}, {1, 2}};
  for (const auto& [a, b] : pairs) {
    cluster::CrossHostPair pair;
    pair.a.host = a;
    pair.b.host = b;
    pair.a.nic = pair.b.nic = "mlx5_0:1";
    pair.a.transport = pair.b.transport = "NET/IB/GDRDMA";
    pair.series = sendrecv(b == 2 ? 23.5 : 47.0);
    cluster::summarize_pair(pair);
    result.pairs.push_back(pair);
  }
  RunDocument run = make_run("doctor", {"linkscope", "doctor"});
  run.config["host"] = "node-a";
  run.system = hosts.hosts[0].system;
  cluster::add_hosts_to_system(run.system, hosts);
  run.measurements["cross_host"] = cluster::cross_host_to_json(result, cluster::find_slow(result, &hosts));
  diagnose::diagnose(run, false);
  return run;
}

}  // namespace linkscope::test
