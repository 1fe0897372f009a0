#pragma once
// Hosts of a synthetic cluster built from the real h200x2 facts (tests/fixtures/runs/h200x2-healthy.json), typed as
// each host's leader sends them, and the series they measure. Shared by the cluster unit tests and
// cluster_test_runs.hpp.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/host_report.hpp"
#include "model/collectives.hpp"
#include "model/system.hpp"
#include "support/run_command.hpp"

namespace linkscope::test {

// The h200x2 machine's facts: the fixture's `system` section alone.
inline model::System h200x2_system() {
  const std::string path = fixture("runs/h200x2-healthy.json");
  const nlohmann::json document = nlohmann::json::parse(read_text(path));
  return model::system_from_json(model::JsonReader::root(document.at("system"), path));
}

// An InfiniBand HCA with one port.
inline model::Nic infiniband_hca(const std::string& name, double rate_gbit, const std::string& state = "ACTIVE") {
  model::Nic nic;
  nic.name = name;
  nic.kind = "infiniband";
  nic.pci_bdf = "0000:1a:00.0";
  nic.ports.push_back({1, state, rate_gbit, "InfiniBand"});
  return nic;
}

inline cluster::HostReport host_with(const std::string& name, int rank, model::System system) {
  cluster::HostReport host;
  host.name = host.hostname = name;
  host.identity_source = "hostname";
  host.ranks = {rank};
  host.leader = rank;
  host.nccl_version = "2.28.9";
  host.system = std::make_shared<const model::System>(std::move(system));
  return host;
}

// A writable copy of a report's facts (reports share them read-only), put back into the report.
inline model::System& edit_facts(cluster::HostReport& host) {
  auto copy = std::make_shared<model::System>(host.system ? *host.system : model::System{});
  host.system = copy;
  return *copy;
}

// The h200x2 facts with only an InfiniBand HCA as NIC, GPU1 PIX and GPU0 SYS to it.
inline cluster::HostReport fixture_host(const std::string& name, int rank) {
  model::System system = h200x2_system();
  system.nics = {infiniband_hca("mlx5_0", 400)};
  model::GpuNics gpu0, gpu1;
  gpu0.cuda_ordinal = gpu0.nvml_index = 0;
  gpu0.closest = "mlx5_0";
  gpu0.closest_relation = "SYS";
  gpu1.cuda_ordinal = gpu1.nvml_index = 1;
  gpu1.closest = "mlx5_0";
  gpu1.closest_relation = "PIX";
  system.gpu_nics = {gpu0, gpu1};
  return host_with(name, rank, std::move(system));
}

// A series of one size, 256 MiB, measured ok at `gbps` (algbw = busbw).
inline model::CollectiveSeries measured_series(coll::CollectiveOp op, int nranks, double gbps) {
  model::CollectiveSeries series;
  series.op = op;
  series.nranks = nranks;
  model::CollectivePoint point;
  point.requested_bytes = point.bytes = 256ULL << 20;
  point.time = model::TimeSummary{};
  point.algbw_gbps = point.busbw_gbps = gbps;
  series.points.push_back(point);
  return series;
}

}  // namespace linkscope::test
