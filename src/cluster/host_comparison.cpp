#include "cluster/host_comparison.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace linkscope::cluster {

HostsComparison compare_hosts(std::vector<HostReport> hosts) {
  HostsComparison out;
  out.hosts = std::move(hosts);
  for (const auto& host : out.hosts) out.traits.push_back(host_traits(host));
  const auto values = [&](std::size_t host) {
    std::vector<std::string> v;
    for (const auto& trait : out.traits[host]) v.push_back(trait.value);
    return v;
  };
  out.group_of_host.assign(out.hosts.size(), -1);
  for (std::size_t i = 0; i < out.hosts.size(); ++i) {
    if (out.group_of_host[i] >= 0) continue;
    HostGroup group;
    for (std::size_t j = i; j < out.hosts.size(); ++j) {
      if (out.group_of_host[j] < 0 && values(j) == values(i)) {
        group.hosts.push_back(static_cast<int>(j));
        out.group_of_host[j] = 0;  // placeholder; numbered after sorting
      }
    }
    out.groups.push_back(group);
  }
  std::stable_sort(out.groups.begin(), out.groups.end(),
                   [](const HostGroup& a, const HostGroup& b) { return a.hosts.size() > b.hosts.size(); });
  for (std::size_t g = 0; g < out.groups.size(); ++g) {
    for (int host : out.groups[g].hosts) out.group_of_host[static_cast<std::size_t>(host)] = static_cast<int>(g);
  }

  if (out.hosts.empty()) return out;
  for (std::size_t t = 0; t < out.traits.front().size(); ++t) {
    std::vector<std::pair<std::string, std::vector<int>>> seen;  // value -> hosts, in order of first host
    for (std::size_t h = 0; h < out.hosts.size(); ++h) {
      const std::string& value = out.traits[h][t].value;
      auto found = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == value; });
      if (found == seen.end()) {
        seen.push_back({value, {static_cast<int>(h)}});
      } else {
        found->second.push_back(static_cast<int>(h));
      }
    }
    if (seen.size() < 2) continue;
    std::stable_sort(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
    TraitDifference difference;
    difference.key = out.traits.front()[t].key;
    difference.label = out.traits.front()[t].label;
    difference.common_value = seen.front().first;
    difference.common_hosts = seen.front().second;
    for (std::size_t v = 1; v < seen.size(); ++v) {
      for (int host : seen[v].second) difference.others.push_back({host, seen[v].first});
    }
    std::sort(difference.others.begin(), difference.others.end());
    out.differences.push_back(difference);
  }
  return out;
}

std::vector<std::string> host_difference_lines(const HostsComparison& comparison, int index) {
  std::vector<std::string> lines;
  for (const auto& difference : comparison.differences) {
    for (const auto& [host, value] : difference.others) {
      if (host != index) continue;
      lines.push_back(fmt::format("{} {} ({} other host(s): {})", difference.label, value, difference.common_hosts.size(),
                                  difference.common_value));
    }
  }
  return lines;
}

void add_hosts_to_system(model::System& system, const HostsComparison& comparison, bool with_facts) {
  const auto name_of = [&](int host) { return comparison.hosts[static_cast<std::size_t>(host)].name; };
  system.hosts.clear();
  for (std::size_t i = 0; i < comparison.hosts.size(); ++i) {
    const HostReport& report = comparison.hosts[i];
    model::Host host;
    host.name = report.name;
    host.hostname = report.hostname;
    host.identity_source = report.identity_source;
    host.ranks = report.ranks;
    host.leader = report.leader;
    host.nccl_version = report.nccl_version;
    host.nccl_version_reason = report.nccl_version_reason;
    if (!report.error.empty()) host.error = report.error;
    host.group = comparison.group_of_host[i];
    for (const auto& trait : comparison.traits[i]) host.traits[trait.key] = trait.value;
    host.differences = host_difference_lines(comparison, static_cast<int>(i));
    if (with_facts) host.system = report.system;
    system.hosts.push_back(std::move(host));
  }
  system.host_groups.clear();
  for (const auto& group : comparison.groups) {
    std::vector<std::string> names;
    for (int host : group.hosts) names.push_back(name_of(host));
    system.host_groups.push_back(std::move(names));
  }
  system.host_differences.clear();
  for (const auto& difference : comparison.differences) {
    model::HostDifference out{difference.key, difference.label, difference.common_value, {}, {}};
    for (int host : difference.common_hosts) out.common_hosts.push_back(name_of(host));
    for (const auto& [host, value] : difference.others) out.others.push_back({name_of(host), value});
    system.host_differences.push_back(std::move(out));
  }
}

}  // namespace linkscope::cluster
