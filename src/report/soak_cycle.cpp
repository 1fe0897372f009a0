#include "report/soak_cycle.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "report/prometheus_exposition.hpp"
#include "report/prometheus_report.hpp"

namespace linkscope::report {

namespace {

// The cycle's bandwidths where bandwidth is measured (sizes from bandwidth_compare_min_bytes up), by series name.
// One host's run drops the `host` label (the same every cycle); a cluster's keeps it, since it tells pairs apart.
std::map<std::string, double> cycle_metrics(const model::Run& run) {
  const auto min_bytes = diagnose::threshold(diagnose::Threshold::kBandwidthCompareMinBytes);
  const bool several_hosts = !run.system.hosts.empty();
  std::map<std::string, double> metrics;
  for (const auto& family : report::prometheus_families(run)) {
    const std::string suffix = "_bytes_per_second";
    if (family.name.size() < suffix.size() ||
        family.name.compare(family.name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    for (const auto& [values, value] : family.samples) {
      std::string key = family.name + "{";
      bool small = false;
      for (std::size_t i = 0; i < family.labels.size() && i < values.size(); ++i) {
        if ((family.labels[i] == "host" && !several_hosts) || family.labels[i] == "nccl_version") continue;
        if (family.labels[i] == "size" && std::strtod(values[i].c_str(), nullptr) < min_bytes) small = true;
        key += fmt::format("{}{}=\"{}\"", key.back() == '{' ? "" : ",", family.labels[i],
                           report::escape_label_value(values[i]));
      }
      if (!small) metrics[key + "}"] = value;
    }
  }
  return metrics;
}

// The link facts of one host that must not change while it runs: each GPU's PCIe width and active NVLinks, each
// RDMA port's state and rate; and its links' error counters, which must not grow. `prefix` names the host in a
// cluster's run.
void add_links(const model::System& system, const std::string& prefix, model::SoakCycle& cycle) {
  auto& states = cycle.states;
  for (const auto& gpu : system.gpus) {
    const std::string label = prefix + gpu.label();
    for (const auto& link : gpu.nvlink_list()) {
      const std::pair<const char*, const model::Known<std::int64_t>*> counters[] = {
          {"replay", &link.errors.replay}, {"recovery", &link.errors.recovery}, {"CRC flit", &link.errors.crc_flit}};
      for (const auto& [words, value] : counters) {
        if (*value) cycle.counters[fmt::format("{} NVLink {} {} errors", label, link.link, words)] = **value;
      }
    }
    if (gpu.pcie.sysfs_current_width) {
      states[label + " PCIe width"] = std::to_string(*gpu.pcie.sysfs_current_width);
    } else if (gpu.pcie.current_width) {
      states[label + " PCIe width"] = std::to_string(*gpu.pcie.current_width);
    }
    if (gpu.nvlinks.has_value()) states[label + " active NVLinks"] = std::to_string(gpu.active_nvlinks());
  }
  for (const auto& nic : system.nics) {
    for (const auto& port : nic.ports) {
      const std::string label = fmt::format("{}{}:{}", prefix, nic.name, port.port);
      if (!port.state.empty()) states[label + " state"] = port.state;
      if (port.rate_gbps) states[label + " rate"] = fmt::format("{:g} Gb/s", *port.rate_gbps);
    }
  }
}

void add_cycle_links(const model::System& system, model::SoakCycle& cycle) {
  if (system.hosts.empty()) {
    add_links(system, "", cycle);
    return;
  }
  for (const auto& host : system.hosts) {
    if (host.system) add_links(*host.system, host.name + " ", cycle);
  }
}

}  // namespace

model::SoakCycle summarize_soak_cycle(const model::Run& run, int index, double start_s, double seconds) {
  model::SoakCycle cycle;
  cycle.index = index;
  cycle.start_s = start_s;
  cycle.seconds = seconds;
  cycle.metrics = cycle_metrics(run);
  add_cycle_links(run.system, cycle);
  for (const auto& finding : run.findings) {
    if (finding.severity >= model::Severity::kWarning) cycle.findings.push_back(finding.id);
  }
  return cycle;
}

std::string soak_duration_reached(const model::Soak& soak, double elapsed_s) {
  if (soak.cycles.empty() || elapsed_s + soak.cycles.back().seconds <= soak.requested_s) return "";
  return fmt::format("duration reached: {} cycles in {:.0f} s (the next would end after {:.0f} s)", soak.cycles.size(),
                     elapsed_s, soak.requested_s);
}

}  // namespace linkscope::report
