#include "measure/collective_devices.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/stamp.hpp"
#include "platform/cuda_check.hpp"

namespace linkscope::measure {

namespace {

std::string uuid_text(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  return fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                     b[15]);
}

}  // namespace

std::vector<model::DeviceRecord> local_device_records(const NcclCommunicators& comms) {
  std::vector<model::DeviceRecord> records;
  const std::string host = host_name();
  for (std::size_t i = 0; i < comms.local_count(); ++i) {
    cudaDeviceProp prop{};
    LINKSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, comms.local(i).device));
    model::DeviceRecord r;
    r.rank = comms.local(i).rank;
    r.host = host;
    r.pid = static_cast<int>(getpid());
    r.cuda_device = comms.local(i).device;
    r.pci_domain = prop.pciDomainID;
    r.pci_bus = prop.pciBusID;
    r.pci_device = prop.pciDeviceID;
    r.uuid = uuid_text(prop.uuid);
    r.name = prop.name;
    records.push_back(std::move(r));
  }
  return records;
}

std::vector<model::DeviceRecord> gather_device_records(const std::vector<model::DeviceRecord>& mine, ProcessGroup& group) {
  nlohmann::json records = nlohmann::json::array();
  for (const auto& r : mine) records.push_back(model::to_json(r));
  std::vector<model::DeviceRecord> all;
  for (const auto& text : group.gather(records.dump())) {
    const nlohmann::json theirs = nlohmann::json::parse(text);
    for (const auto& r : model::JsonReader::root(theirs, "a process's GPU records").elements()) {
      all.push_back(model::device_from_json(r));
    }
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  return all;
}

}  // namespace linkscope::measure
