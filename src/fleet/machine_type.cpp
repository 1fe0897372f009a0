#include "fleet/machine_type.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

namespace linkscope::fleet {

namespace {

std::string link_signature(const model::Gpu& gpu) {
  const auto& links = gpu.nvlink_list();
  if (!links.empty()) {
    double fastest = 0;
    for (const auto& link : links) fastest = std::max(fastest, link.speed_gbps.value_or(0.0));
    return fmt::format("NVLink {} @ {}", links.size(), fastest > 0 ? fmt::format("{:g} GB/s", fastest) : "?");
  }
  const auto text = [](const model::Known<int>& v) { return v ? std::to_string(*v) : std::string("?"); };
  return fmt::format("PCIe Gen{} x{}", text(gpu.pcie.max_gen), text(gpu.pcie.max_width));
}

// Equal items counted once each, in name order: {"B", "A", "B"} -> "1 x A, 2 x B".
std::string counted(const std::vector<std::string>& items) {
  std::map<std::string, int> counts;
  for (const auto& item : items) ++counts[item];
  std::string text;
  for (const auto& [item, n] : counts) text += fmt::format("{}{} x {}", text.empty() ? "" : ", ", n, item);
  return text;
}

}  // namespace

std::string machine_type(const model::Run& run) {
  std::vector<std::string> models, links;
  for (const auto& gpu : run.system.gpus) {
    models.push_back(gpu.name.empty() ? "?" : gpu.name);
    links.push_back(link_signature(gpu));
  }
  if (models.empty()) return fmt::format("no GPU | NCCL {}", run.environment.nccl_version.value_or("?"));
  return fmt::format("{} | {} | NCCL {}", counted(models), counted(links),
                     run.environment.nccl_version.value_or("?"));
}

}  // namespace linkscope::fleet
