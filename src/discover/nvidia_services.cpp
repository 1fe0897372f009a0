#include "discover/nvidia_services.hpp"

#include <algorithm>
#include <cctype>

namespace linkscope::discover {

namespace {

bool is_pid(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

bool is_service(const std::string& comm) {
  const auto& names = nvidia_service_names();
  return std::find(names.begin(), names.end(), comm) != names.end();
}

}  // namespace

const std::vector<std::string>& nvidia_service_names() {
  // comm is the executable's name cut to 15 characters: "nv-fabricmanager" reads "nv-fabricmanage".
  static const std::vector<std::string> kNames = {"nv-fabricmanage", "nvidia-imex", "nvidia-persiste", "nv-hostengine",
                                                  "nvidia-dcgm"};
  return kNames;
}

std::vector<std::string> nvidia_service_comm_paths(const SysfsRoot& root) {
  std::vector<std::string> paths;
  for (const auto& name : root.list("/proc")) {
    if (!is_pid(name)) continue;
    const std::string path = "/proc/" + name + "/comm";
    if (const auto comm = root.read_attribute(path); comm && is_service(*comm)) paths.push_back(path);
  }
  return paths;
}

std::vector<std::string> running_nvidia_services(const SysfsRoot& root) {
  std::vector<std::string> services;
  for (const auto& path : nvidia_service_comm_paths(root)) {
    if (const auto comm = root.read_attribute(path)) services.push_back(*comm);  // unless it just exited
  }
  std::sort(services.begin(), services.end());
  services.erase(std::unique(services.begin(), services.end()), services.end());
  return services;
}

}  // namespace linkscope::discover
