#include "cluster/host_comparison.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "core/text.hpp"

namespace linkscope::cluster {

namespace {

using nlohmann::json;


const json& field(const json& object, const char* key) {
  static const json null_value;
  if (!object.is_object()) return null_value;
  const auto found = object.find(key);
  return found == object.end() ? null_value : *found;
}

std::string unknown(const json& object, const char* key) {
  const json& reason = field(object, (std::string(key) + "_reason").c_str());
  return reason.is_string() ? "unknown (" + reason.get<std::string>() + ")" : std::string("unknown");
}

std::string version_text(const json& version) {
  if (!version.is_number_integer()) return "unknown";
  const int v = version.get<int>();
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

// Every GPU the host has, visible to CUDA or not, in NVML index order when known.
std::vector<const json*> all_gpus(const json& system) {
  std::vector<const json*> gpus;
  for (const auto& gpu : field(system, "gpus")) gpus.push_back(&gpu);
  for (const auto& hidden : field(field(system, "visibility"), "hidden")) {
    if (hidden.contains("gpu")) gpus.push_back(&hidden["gpu"]);
  }
  std::stable_sort(gpus.begin(), gpus.end(), [](const json* a, const json* b) {
    const json& ia = field(*a, "nvml_index");
    const json& ib = field(*b, "nvml_index");
    return ia.is_number() && ib.is_number() && ia.get<int>() < ib.get<int>();
  });
  return gpus;
}

std::string gpu_label(const json& gpu, std::size_t position) {
  const json& index = field(gpu, "nvml_index");
  return fmt::format("GPU{}", index.is_number() ? index.get<int>() : static_cast<int>(position));
}

// "18 per GPU" when every GPU has the same value, else "GPU0 18, GPU1 12".
std::string per_gpu(const std::vector<const json*>& gpus, const std::function<std::string(const json&)>& value_of) {
  if (gpus.empty()) return "no GPU";
  std::vector<std::string> values;
  for (const json* gpu : gpus) values.push_back(value_of(*gpu));
  if (std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == values.front(); })) {
    return values.front() + " per GPU";
  }
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < gpus.size(); ++i) parts.push_back(gpu_label(*gpus[i], i) + " " + values[i]);
  return join(parts, ", ");
}

std::string active_nvlinks(const json& gpu) {
  const json& links = field(gpu, "nvlinks");
  if (!links.is_array() || links.empty()) return "0 NVLinks";
  int active = 0;
  for (const auto& link : links) active += field(link, "active").is_boolean() && link["active"].get<bool>() ? 1 : 0;
  return fmt::format("{} NVLinks active", active);
}

std::string pcie_width(const json& gpu) {
  const json& pcie = field(gpu, "pcie");
  const json& current = field(pcie, "current_width");
  const json& maximum = field(pcie, "max_width");
  if (!current.is_number()) return "PCIe width unknown";
  std::string text = fmt::format("x{}", current.get<int>());
  if (maximum.is_number() && maximum.get<int>() != current.get<int>()) text += fmt::format(" (max x{})", maximum.get<int>());
  return text;
}

bool counted_interface(const json& nic) {
  return field(nic, "kind") != "infiniband" && !(field(nic, "virtual").is_boolean() && nic["virtual"].get<bool>());
}

std::string nic_count(const json& system) {
  int rdma = 0, interfaces = 0;
  for (const auto& nic : field(system, "nics")) {
    if (field(nic, "kind") == "infiniband") {
      ++rdma;
    } else if (counted_interface(nic)) {
      ++interfaces;
    }
  }
  return fmt::format("{} RDMA device(s), {} network interface(s)", rdma, interfaces);
}

std::string nic_links(const json& system) {
  std::vector<std::string> parts;
  for (const auto& nic : field(system, "nics")) {
    const std::string name = field(nic, "name").is_string() ? nic["name"].get<std::string>() : "?";
    if (field(nic, "kind") == "infiniband") {
      for (const auto& port : field(nic, "ports")) {
        std::string text = fmt::format("{}:{} {}", name, field(port, "port").is_number() ? port["port"].get<int>() : 0,
                                       field(port, "state").is_string() ? port["state"].get<std::string>() : "?");
        if (field(port, "rate_gbps").is_number()) text += fmt::format(" {:g} Gb/s", port["rate_gbps"].get<double>());
        parts.push_back(text);
      }
    } else if (counted_interface(nic)) {
      std::string text = name + " " + (field(nic, "operstate").is_string() ? nic["operstate"].get<std::string>() : "?");
      if (field(nic, "speed_mbps").is_number()) text += fmt::format(" {:g} Gb/s", nic["speed_mbps"].get<double>() / 1000);
      parts.push_back(text);
    }
  }
  return parts.empty() ? "none" : join(parts, ", ");
}

std::string gpu_models(const std::vector<const json*>& gpus) {
  std::vector<std::pair<std::string, int>> counts;
  for (const json* gpu : gpus) {
    const std::string name = field(*gpu, "name").is_string() ? (*gpu)["name"].get<std::string>() : "unknown GPU";
    auto found = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
    if (found == counts.end()) {
      counts.push_back({name, 1});
    } else {
      ++found->second;
    }
  }
  std::vector<std::string> parts;
  for (const auto& [name, count] : counts) parts.push_back(fmt::format("{} x {}", count, name));
  return parts.empty() ? "none" : join(parts, ", ");
}

std::string closest_nics(const json& system) {
  const json& relations = field(system, "gpu_nics");
  if (!relations.is_array()) return "unknown (not recorded)";
  std::vector<std::string> parts;
  for (const auto& gpu : relations) {
    const json& index = field(gpu, "nvml_index");
    const std::string label = index.is_number() ? fmt::format("GPU{}", index.get<int>()) : "GPU?";
    const json& closest = field(gpu, "closest");
    parts.push_back(closest.is_string() ? fmt::format("{} {} {}", label, closest.get<std::string>(),
                                                      field(gpu, "closest_relation").is_string()
                                                          ? gpu["closest_relation"].get<std::string>()
                                                          : "?")
                                        : label + " none");
  }
  return parts.empty() ? "no GPU" : join(parts, ", ");
}

}  // namespace

std::vector<HostTrait> host_traits(const HostReport& host) {
  const json& system = host.system;
  const std::string missing = host.error.empty() ? "unknown (no facts)" : "unknown (" + host.error + ")";
  const bool facts = system.is_object();
  const json& driver = field(system, "driver");
  const json& cuda = field(system, "cuda");
  const bool have_driver = field(driver, "available").is_boolean() && driver["available"].get<bool>();
  const auto gpus = all_gpus(system);

  std::vector<HostTrait> traits;
  const auto add = [&](const char* key, const char* label, std::string value) {
    traits.push_back({key, label, facts ? std::move(value) : missing});
  };
  std::string driver_text;
  if (!have_driver) {
    driver_text = "unavailable" + (field(driver, "reason").is_string() ? " (" + driver["reason"].get<std::string>() + ")" : "");
  } else {
    driver_text = field(driver, "version").is_string() ? driver["version"].get<std::string>() : unknown(driver, "version");
  }
  add("driver", "NVIDIA driver", driver_text);
  add("cuda_driver", "CUDA driver API", version_text(field(driver, "cuda_driver_version")));
  add("cuda_runtime", "CUDA runtime", version_text(field(cuda, "runtime_version")));
  traits.push_back({"nccl", "NCCL library",
                    host.nccl_version ? *host.nccl_version : "unknown (" + host.nccl_version_reason + ")"});
  const json& nvml_count = field(field(system, "visibility"), "nvml_gpu_count");
  add("gpu_count", "GPU count",
      have_driver && nvml_count.is_number() ? std::to_string(nvml_count.get<int>())
                                            : fmt::format("{} in sysfs (no driver)", field(system, "pci_display_devices").size()));
  add("cuda_gpu_count", "GPUs visible to CUDA",
      field(cuda, "device_count").is_number() ? std::to_string(cuda["device_count"].get<int>()) : "unknown");
  add("gpu_models", "GPU models", gpu_models(gpus));
  add("nvlinks", "NVLinks", per_gpu(gpus, active_nvlinks));
  add("pcie_width", "PCIe width", per_gpu(gpus, pcie_width));
  add("nic_count", "NIC count", nic_count(system));
  add("nic_links", "NIC link states", nic_links(system));
  const json& net = field(field(system, "synthesized_topology"), "net_transport");
  add("nccl_net", "NCCL network", net.is_string() ? (net.get<std::string>().empty() ? "none" : net.get<std::string>())
                                                  : "unknown (not modelled)");
  add("gpu_nics", "closest NIC per GPU", closest_nics(system));
  const json& cpu = field(system, "cpu");
  add("cpu", "CPU",
      field(cpu, "model_name").is_string()
          ? fmt::format("{} ({} logical CPUs)", cpu["model_name"].get<std::string>(),
                        field(cpu, "logical_cpus").is_number() ? cpu["logical_cpus"].get<int>() : 0)
          : "unknown");
  return traits;
}

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

void add_hosts_to_system(nlohmann::json& system, const HostsComparison& comparison, bool with_facts) {
  json hosts = json::array();
  for (std::size_t i = 0; i < comparison.hosts.size(); ++i) {
    const HostReport& host = comparison.hosts[i];
    json traits = json::object();
    for (const auto& trait : comparison.traits[i]) traits[trait.key] = trait.value;
    json entry = host_report_to_json(host);
    entry["group"] = comparison.group_of_host[i];
    entry["traits"] = traits;
    entry["differences"] = host_difference_lines(comparison, static_cast<int>(i));
    entry["error"] = host.error.empty() ? json(nullptr) : json(host.error);
    if (!with_facts) entry.erase("system");
    hosts.push_back(entry);
  }
  json groups = json::array();
  for (const auto& group : comparison.groups) {
    json names = json::array();
    for (int host : group.hosts) names.push_back(comparison.hosts[static_cast<std::size_t>(host)].name);
    groups.push_back({{"hosts", names}});
  }
  json differences = json::array();
  for (const auto& difference : comparison.differences) {
    json common = json::array();
    for (int host : difference.common_hosts) common.push_back(comparison.hosts[static_cast<std::size_t>(host)].name);
    json others = json::array();
    for (const auto& [host, value] : difference.others) {
      others.push_back({{"host", comparison.hosts[static_cast<std::size_t>(host)].name}, {"value", value}});
    }
    differences.push_back({{"trait", difference.key},
                           {"label", difference.label},
                           {"common_value", difference.common_value},
                           {"common_hosts", common},
                           {"others", others}});
  }
  system["hosts"] = hosts;
  system["host_groups"] = groups;
  system["host_differences"] = differences;
}

}  // namespace linkscope::cluster
