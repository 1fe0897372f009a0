#include "cluster/nccl_net_log.hpp"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "runtime/nccl_log.hpp"

namespace linkscope::cluster {

namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// "mlx5_0:1/IB" (IB: name, port, link layer) or "eth0:10.0.0.1<0>" (Socket: name, address).
LoggedNetDevice device_from_token(int index, const std::string& plugin, const std::string& token) {
  LoggedNetDevice device;
  device.index = index;
  device.plugin = plugin;
  const auto colon = token.find(':');
  device.name = token.substr(0, colon);
  if (plugin == "IB" && colon != std::string::npos) {
    const std::string rest = token.substr(colon + 1);
    const auto digits = rest.find_first_not_of("0123456789");
    if (digits != 0) device.port = std::stoi(rest.substr(0, digits));
  }
  return device;
}

}  // namespace

std::vector<LoggedNetDevice> logged_net_devices(std::string_view log) {
  static const std::regex using_line{R"(NCCL INFO NET/(\w+) : Using (.*)$)"};
  static const std::regex token{R"(\[(\d+)\]([^\s\[;]+))"};
  static const std::regex gdr_line{R"(NCCL INFO NET/IB : GPU Direct RDMA (Enabled|Disabled) for HCA (\d+))"};
  std::vector<LoggedNetDevice> devices;
  std::vector<std::pair<int, bool>> gdr;
  for (const auto& line : lines_of(log)) {
    std::smatch match;
    if (std::regex_search(line, match, using_line)) {
      const std::string plugin = match[1];
      const std::string list = match[2];
      devices.clear();
      for (auto it = std::sregex_iterator(list.begin(), list.end(), token); it != std::sregex_iterator(); ++it) {
        devices.push_back(device_from_token(std::stoi((*it)[1]), plugin, (*it)[2]));
      }
    } else if (std::regex_search(line, match, gdr_line)) {
      gdr.emplace_back(std::stoi(match[2]), match[1] == "Enabled");
    }
  }
  for (const auto& [index, enabled] : gdr) {
    for (auto& device : devices) {
      if (device.index == index && device.plugin == "IB") device.gdr = enabled;
    }
  }
  return devices;
}

std::vector<NicUse> nics_used(std::string_view log, std::string_view device_list_log) {
  const auto devices = logged_net_devices(device_list_log.empty() ? log : device_list_log);
  const runtime::NcclRuntimeInfo info = runtime::parse_nccl_log(log);
  std::vector<NicUse> uses;
  for (const auto& connection : info.connections) {
    if (connection.transport.rfind("NET/", 0) != 0) continue;
    const auto digits = connection.detail.find_first_not_of("0123456789");
    std::string nic = "NET device ?";
    if (digits != 0 && !connection.detail.empty()) {
      const int index = std::stoi(connection.detail.substr(0, digits));
      nic = fmt::format("NET device {}", index);
      for (const auto& device : devices) {
        if (device.index != index) continue;
        nic = device.port ? fmt::format("{}:{}", device.name, *device.port) : device.name;
      }
    }
    const std::string transport = runtime::transport_label(connection);
    auto found = std::find_if(uses.begin(), uses.end(), [&](const NicUse& u) { return u.nic == nic && u.transport == transport; });
    if (found == uses.end()) {
      uses.push_back({nic, transport, 1});
    } else {
      ++found->connections;
    }
  }
  std::stable_sort(uses.begin(), uses.end(), [](const NicUse& a, const NicUse& b) { return a.connections > b.connections; });
  return uses;
}

}  // namespace linkscope::cluster
