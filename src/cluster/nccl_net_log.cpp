#include "cluster/nccl_net_log.hpp"

#include <algorithm>
#include <regex>
#include <tuple>

#include <fmt/format.h>

#include "runtime/log_lines.hpp"
#include "runtime/nccl_log.hpp"

namespace linkscope::cluster {

namespace {

using runtime::parse_log_int;

// The leading digits of `text` as a number; nothing when there are none or they overflow an int.
std::optional<int> leading_int(std::string_view text, std::size_t* used = nullptr) {
  const auto end = std::min(text.find_first_not_of("0123456789"), text.size());
  if (used != nullptr) *used = end;
  return parse_log_int(text.substr(0, end));
}

// "mlx5_0:1/IB" (IB: name, port, link layer; NCCL 2.30.7 adds ":rail", "::plane" or ":rail:plane" after the port
// when the device has them: net_ib/init.cc) or "eth0:10.0.0.1<0>" (Socket: name, address).
LoggedNetDevice device_from_token(int index, const std::string& plugin, const std::string& token) {
  LoggedNetDevice device;
  device.index = index;
  device.plugin = plugin;
  const auto colon = token.find(':');
  device.name = token.substr(0, colon);
  if (plugin == "IB" && colon != std::string::npos) {
    std::string_view rest = std::string_view(token).substr(colon + 1);
    std::size_t used = 0;
    device.port = leading_int(rest, &used);
    rest.remove_prefix(used);
    const auto slash = rest.find('/');
    const std::string_view ids = rest.substr(0, slash);  // "", ":3", "::0", ":3:0"
    if (!ids.empty() && ids.front() == ':') {
      const std::string_view after = ids.substr(1);
      const auto second = after.find(':');
      if (second != 0) device.rail = leading_int(after.substr(0, second));
      if (second != std::string_view::npos) device.plane = leading_int(after.substr(second + 1));
    }
  }
  return device;
}

}  // namespace

std::vector<LoggedNetDevice> logged_net_devices(std::string_view log) {
  static const std::regex using_line{R"(NCCL INFO NET/(\w+) : Using (.*)$)"};
  static const std::regex token{R"(\[(\d+)\]([^\s\[;]+))"};
  // topo.cc (2.28.9 to 2.30.7): "NET/%s : GPU Direct RDMA %s for HCA %d '%s'", INFO in every version.
  static const std::regex gdr_line{R"(NCCL INFO NET/(\w+) : GPU Direct RDMA (Enabled|Disabled) for HCA (\d+))"};
  std::vector<LoggedNetDevice> devices;
  std::vector<std::tuple<std::string, int, bool>> gdr;
  runtime::for_each_log_line(log, [&](std::string_view view) {
    if (view.find("NCCL INFO NET/") == std::string_view::npos) return;
    const std::string line(view);
    std::smatch match;
    if (std::regex_search(line, match, using_line)) {
      const std::string plugin = match[1];
      const std::string list = match[2];
      devices.clear();
      for (auto it = std::sregex_iterator(list.begin(), list.end(), token); it != std::sregex_iterator(); ++it) {
        if (const auto index = parse_log_int((*it)[1].str())) devices.push_back(device_from_token(*index, plugin, (*it)[2]));
      }
    } else if (std::regex_search(line, match, gdr_line)) {
      if (const auto index = parse_log_int(match[3].str())) gdr.emplace_back(match[1], *index, match[2] == "Enabled");
    }
  });
  for (const auto& [plugin, index, enabled] : gdr) {
    for (auto& device : devices) {
      if (device.index == index && device.plugin == plugin) device.gdr = enabled;
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
    std::string nic = "NET device ?";
    if (const auto index = leading_int(connection.detail)) {
      nic = fmt::format("NET device {}", *index);
      for (const auto& device : devices) {
        if (device.index != *index) continue;
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
