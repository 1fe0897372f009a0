#include "discover/nvml_monitor.hpp"

#include <array>

#include <fmt/format.h>

#include "discover/nvml_api.hpp"
#include "discover/nvml_library.hpp"
#include "discover/pci_tree.hpp"

namespace linkscope::discover {

namespace {

using model::GpuCounter;
using model::GpuFlag;
using model::LinkCounter;
using Reasons = std::map<std::string, std::string>;

// What a GPU said it cannot do is not asked again: NVML answers NOT_SUPPORTED the same way every time.
bool permanent(nvml::Return rc) {
  return rc == nvml::kErrorNotSupported || rc == nvml::kErrorFunctionNotFound || rc == nvml::kErrorNoPermission;
}

struct Device {
  unsigned index = 0;
  nvml::Device handle = nullptr;
  unsigned link_count = 0;
  std::set<std::string> skip_sample;    // read() only
  std::set<std::string> skip_counters;  // read_counters() only
};

// Asks one quantity, unless the GPU said before that it does not support it; records why it could not be read.
template <typename Raw, typename Fn, typename... Args>
std::optional<Raw> query(const NvmlApi& api, std::set<std::string>& skip, Reasons& unavailable, const std::string& quantity,
                         const char* call, Fn fn, Args... args) {
  if (skip.count(quantity) != 0) return std::nullopt;
  if (fn == nullptr) {
    skip.insert(quantity);
    unavailable.emplace(quantity, missing_symbol(call));
    return std::nullopt;
  }
  Raw raw{};
  const nvml::Return rc = fn(args..., &raw);
  if (rc == nvml::kSuccess) return raw;
  if (permanent(rc)) skip.insert(quantity);
  unavailable.emplace(quantity, api.describe(call, rc));
  return std::nullopt;
}

std::optional<int> as_int(const std::optional<unsigned>& value) {
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

std::optional<std::int64_t> as_int64(const std::optional<unsigned long long>& value) {
  return value ? std::optional<std::int64_t>(static_cast<std::int64_t>(*value)) : std::nullopt;
}

// Allocated memory: nvmlDeviceGetMemoryInfo_v2 tells the driver's reserve apart; the v1 call counts it as used.
std::optional<std::int64_t> memory_used(const NvmlApi& api, Device& device, Reasons& unavailable) {
  const std::string quantity = "memory_used_bytes";
  if (api.DeviceGetMemoryInfoV2 != nullptr && device.skip_sample.count("memory_v2") == 0) {
    nvml::MemoryV2 memory{};
    memory.version = nvml::kMemoryV2Version;
    const nvml::Return rc = api.DeviceGetMemoryInfoV2(device.handle, &memory);
    if (rc == nvml::kSuccess) return static_cast<std::int64_t>(memory.used);
    if (permanent(rc)) device.skip_sample.insert("memory_v2");
  }
  const auto v1 = query<nvml::Memory>(api, device.skip_sample, unavailable, quantity, "nvmlDeviceGetMemoryInfo",
                                      api.DeviceGetMemoryInfo, device.handle);
  return v1 ? std::optional<std::int64_t>(static_cast<std::int64_t>(v1->used)) : std::nullopt;
}

// nvmlDeviceGetRetiredPages with a zero-sized buffer answers the count (SUCCESS or INSUFFICIENT_SIZE).
std::optional<std::int64_t> retired_pages(const NvmlApi& api, Device& device, Reasons& unavailable, GpuCounter counter,
                                          int cause) {
  const std::string quantity(model::counter_key(counter));
  if (device.skip_counters.count(quantity) != 0) return std::nullopt;
  if (api.DeviceGetRetiredPages == nullptr) {
    device.skip_counters.insert(quantity);
    unavailable.emplace(quantity, missing_symbol("nvmlDeviceGetRetiredPages"));
    return std::nullopt;
  }
  unsigned count = 0;
  const nvml::Return rc = api.DeviceGetRetiredPages(device.handle, cause, &count, nullptr);
  if (rc == nvml::kSuccess || rc == nvml::kErrorInsufficientSize) return count;
  if (permanent(rc)) device.skip_counters.insert(quantity);
  unavailable.emplace(quantity, api.describe("nvmlDeviceGetRetiredPages", rc) +
                                    (rc == nvml::kErrorNotSupported ? " (Ampere and later remap rows instead)" : ""));
  return std::nullopt;
}

void read_remapped_rows(const NvmlApi& api, Device& device, model::GpuCounters& counters, Reasons& unavailable) {
  const std::string quantity(model::counter_key(GpuCounter::kRemappedRowsCorrectable));
  if (device.skip_counters.count(quantity) != 0) return;
  const auto remember = [&](const std::string& why) {
    for (const auto key : {model::counter_key(GpuCounter::kRemappedRowsCorrectable),
                           model::counter_key(GpuCounter::kRemappedRowsUncorrectable),
                           model::flag_key(GpuFlag::kRemappedRowsPending), model::flag_key(GpuFlag::kRemappedRowsFailure)}) {
      unavailable.emplace(std::string(key), why);
    }
  };
  if (api.DeviceGetRemappedRows == nullptr) {
    device.skip_counters.insert(quantity);
    remember(missing_symbol("nvmlDeviceGetRemappedRows"));
    return;
  }
  unsigned correctable = 0, uncorrectable = 0, pending = 0, failure = 0;
  const nvml::Return rc = api.DeviceGetRemappedRows(device.handle, &correctable, &uncorrectable, &pending, &failure);
  if (rc != nvml::kSuccess) {
    if (permanent(rc)) device.skip_counters.insert(quantity);
    remember(api.describe("nvmlDeviceGetRemappedRows", rc) +
             (rc == nvml::kErrorNotSupported ? " (before Ampere, or with MIG enabled)" : ""));
    return;
  }
  counters[GpuCounter::kRemappedRowsCorrectable] = correctable;
  counters[GpuCounter::kRemappedRowsUncorrectable] = uncorrectable;
  counters[GpuFlag::kRemappedRowsPending] = pending != 0;
  counters[GpuFlag::kRemappedRowsFailure] = failure != 0;
}

constexpr std::array<std::pair<LinkCounter, unsigned>, model::kLinkCounterCount> kLinkFields = {{
    {LinkCounter::kReplay, nvml::kFieldNvlinkReplayErrors},
    {LinkCounter::kRecovery, nvml::kFieldNvlinkRecoveryErrors},
    {LinkCounter::kCrcFlit, nvml::kFieldNvlinkCrcErrors},
}};
constexpr std::array<int, model::kLinkCounterCount> kLinkCounterIds = {nvml::kNvlinkErrorReplay, nvml::kNvlinkErrorRecovery,
                                                                      nvml::kNvlinkErrorCrcFlit};

// Every link's three DL error counters in one field query; drivers without field support answer per link and
// counter. Links that report none of them (not present, not trained) are left out.
void read_nvlink_counters(const NvmlApi& api, Device& device, model::GpuCounters& counters, Reasons& unavailable) {
  if (device.link_count == 0) return;
  std::vector<nvml::FieldValue> values;
  for (unsigned link = 0; link < device.link_count; ++link) {
    for (const auto& [counter, field] : kLinkFields) {
      nvml::FieldValue value{};
      value.fieldId = field;
      value.scopeId = link;
      values.push_back(value);
    }
  }
  std::string call_error;
  const bool batched = read_fields(api, device.handle, values, call_error);
  std::array<std::string, model::kLinkCounterCount> first_error;
  for (unsigned link = 0; link < device.link_count; ++link) {
    model::LinkCounters entry;
    entry.link = static_cast<int>(link);
    bool any = false;
    for (std::size_t c = 0; c < kLinkFields.size(); ++c) {
      std::optional<unsigned long long> count;
      if (batched) {
        const nvml::FieldValue& value = values[link * kLinkFields.size() + c];
        count = field_integer(value);
        if (!count && first_error[c].empty()) first_error[c] = api.describe("nvmlDeviceGetFieldValues", value.nvmlReturn);
      } else {
        const auto fact = ask<unsigned long long>(api, "nvmlDeviceGetNvLinkErrorCounter", api.DeviceGetNvLinkErrorCounter,
                                                  device.handle, link, kLinkCounterIds[c]);
        count = fact.value;
        if (!count && first_error[c].empty()) first_error[c] = call_error + "; " + fact.reason;
      }
      if (count) {
        entry.counts[c] = static_cast<std::int64_t>(*count);
        any = true;
      }
    }
    if (any) counters.nvlinks.push_back(entry);
  }
  if (counters.nvlinks.empty()) {
    for (std::size_t c = 0; c < kLinkFields.size(); ++c) {
      unavailable.emplace(model::link_counter_quantity(kLinkFields[c].first), first_error[c]);
    }
  }
}

unsigned nvlink_count(const NvmlApi& api, nvml::Device handle) {
  std::string error;
  const auto count = field_per_link(api, handle, nvml::kFieldNvlinkLinkCount, 1, error);
  if (!error.empty()) return nvml::kMaxNvlinks;  // links that do not exist report nothing and are left out
  const auto links = field_integer(count[0]);
  return links ? std::min<unsigned>(static_cast<unsigned>(*links), nvml::kMaxNvlinks) : nvml::kMaxNvlinks;
}

}  // namespace

struct NvmlMonitor::State {
  NvmlApi api;
  std::vector<Device> devices;
  std::vector<Gpu> gpus;
  std::vector<std::string> errors;
  nvml::EventSet events = nullptr;

  ~State() {
    if (events != nullptr && api.EventSetFree != nullptr) api.EventSetFree(events);
    api.Shutdown();  // the library stays loaded: unloading NVML is not supported by all drivers
  }
  Device* device(unsigned index) {
    for (auto& d : devices) {
      if (d.index == index) return &d;
    }
    return nullptr;
  }
};

NvmlMonitor::NvmlMonitor(std::unique_ptr<State> state) : state_(std::move(state)) {}
NvmlMonitor::~NvmlMonitor() = default;

std::unique_ptr<NvmlMonitor> NvmlMonitor::open(const std::string& library_path, const std::vector<unsigned>& nvml_indices,
                                               std::string& reason) {
  NvmlApi api;
  api.path = library_path.empty() ? "libnvidia-ml.so.1" : library_path;
  if (!open_nvml_api(api, reason)) return nullptr;
  if (const nvml::Return rc = api.Init(); rc != nvml::kSuccess) {
    reason = fmt::format("NVML did not start ({})", api.describe("nvmlInit_v2", rc));
    return nullptr;
  }
  auto state = std::make_unique<State>();
  state->api = api;
  std::vector<unsigned> wanted = nvml_indices;
  if (wanted.empty()) {
    unsigned count = 0;
    if (const nvml::Return rc = api.DeviceGetCount(&count); rc != nvml::kSuccess) {
      reason = api.describe("nvmlDeviceGetCount_v2", rc);
      return nullptr;  // ~State shuts NVML down
    }
    for (unsigned i = 0; i < count; ++i) wanted.push_back(i);
  }
  for (const unsigned index : wanted) {
    Device device;
    device.index = index;
    if (const nvml::Return rc = api.DeviceGetHandleByIndex(index, &device.handle); rc != nvml::kSuccess) {
      state->errors.push_back(fmt::format("NVML GPU {}: {}", index, api.describe("nvmlDeviceGetHandleByIndex_v2", rc)));
      continue;
    }
    device.link_count = nvlink_count(api, device.handle);
    Gpu gpu;
    gpu.nvml_index = index;
    nvml::PciInfo pci{};
    if (api.DeviceGetPciInfo(device.handle, &pci) == nvml::kSuccess) gpu.pci_bdf = canonical_bdf(pci.busId).value_or(pci.busId);
    std::array<char, nvml::kUuidBufferSize> uuid{};
    if (api.DeviceGetUUID(device.handle, uuid.data(), static_cast<unsigned>(uuid.size())) == nvml::kSuccess) {
      gpu.uuid = uuid.data();
    }
    state->devices.push_back(std::move(device));
    state->gpus.push_back(std::move(gpu));
  }
  if (state->devices.empty()) {
    reason = state->errors.empty() ? "NVML lists no GPU" : state->errors.front();
    return nullptr;
  }
  return std::unique_ptr<NvmlMonitor>(new NvmlMonitor(std::move(state)));
}

const std::vector<NvmlMonitor::Gpu>& NvmlMonitor::gpus() const { return state_->gpus; }
const std::vector<std::string>& NvmlMonitor::errors() const { return state_->errors; }

GpuReading NvmlMonitor::read(unsigned nvml_index) {
  GpuReading reading;
  Device* device = state_->device(nvml_index);
  if (device == nullptr) return reading;
  const NvmlApi& api = state_->api;
  auto& skip = device->skip_sample;
  auto& why = reading.unavailable;
  model::TelemetrySample& s = reading.sample;
  if (const auto u = query<nvml::Utilization>(api, skip, why, "gpu_util_percent", "nvmlDeviceGetUtilizationRates",
                                              api.DeviceGetUtilizationRates, device->handle)) {
    s.gpu_util_percent = static_cast<int>(u->gpu);
    s.memory_util_percent = static_cast<int>(u->memory);
  }
  s.sm_clock_mhz = as_int(query<unsigned>(api, skip, why, "sm_clock_mhz", "nvmlDeviceGetClockInfo", api.DeviceGetClockInfo,
                                          device->handle, nvml::kClockSm));
  s.memory_clock_mhz = as_int(query<unsigned>(api, skip, why, "memory_clock_mhz", "nvmlDeviceGetClockInfo",
                                              api.DeviceGetClockInfo, device->handle, nvml::kClockMem));
  if (const auto mask = query<unsigned long long>(api, skip, why, "throttle_reasons", api.clock_event_reasons_symbol,
                                                  api.DeviceGetClockEventReasons, device->handle)) {
    s.throttle_reasons = clock_event_reason_names(*mask);
  }
  if (const auto milliwatts = query<unsigned>(api, skip, why, "power_w", "nvmlDeviceGetPowerUsage",
                                              api.DeviceGetPowerUsage, device->handle)) {
    s.power_w = *milliwatts / 1000.0;
  }
  s.temperature_c = as_int(query<unsigned>(api, skip, why, "temperature_c", "nvmlDeviceGetTemperature",
                                           api.DeviceGetTemperature, device->handle, nvml::kTemperatureGpu));
  s.memory_used_bytes = memory_used(api, *device, why);
  auto processes = list_processes(api, device->handle);
  if (processes.has()) {
    reading.processes = std::move(*processes.value);
  } else {
    why.emplace("processes", processes.reason);
  }
  return reading;
}

CounterReading NvmlMonitor::read_counters(unsigned nvml_index) {
  CounterReading reading;
  Device* device = state_->device(nvml_index);
  if (device == nullptr) return reading;
  const NvmlApi& api = state_->api;
  auto& skip = device->skip_counters;
  auto& why = reading.unavailable;
  auto& c = reading.counters;
  const auto key = [](GpuCounter counter) { return std::string(model::counter_key(counter)); };
  if (const auto replay = query<unsigned>(api, skip, why, key(GpuCounter::kPcieReplay), "nvmlDeviceGetPcieReplayCounter",
                                          api.DeviceGetPcieReplayCounter, device->handle)) {
    c[GpuCounter::kPcieReplay] = *replay;
  }
  c[GpuCounter::kEccVolatileCorrected] =
      as_int64(query<unsigned long long>(api, skip, why, key(GpuCounter::kEccVolatileCorrected), "nvmlDeviceGetTotalEccErrors",
                                         api.DeviceGetTotalEccErrors, device->handle, nvml::kMemoryErrorCorrected,
                                         nvml::kVolatileEcc));
  c[GpuCounter::kEccVolatileUncorrected] =
      as_int64(query<unsigned long long>(api, skip, why, key(GpuCounter::kEccVolatileUncorrected),
                                         "nvmlDeviceGetTotalEccErrors", api.DeviceGetTotalEccErrors, device->handle,
                                         nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc));
  c[GpuCounter::kRetiredPagesSingleBit] =
      retired_pages(api, *device, why, GpuCounter::kRetiredPagesSingleBit, nvml::kRetiredForSingleBitErrors);
  c[GpuCounter::kRetiredPagesDoubleBit] =
      retired_pages(api, *device, why, GpuCounter::kRetiredPagesDoubleBit, nvml::kRetiredForDoubleBitError);
  if (const auto pending = query<int>(api, skip, why, std::string(model::flag_key(GpuFlag::kRetiredPagesPending)),
                                      "nvmlDeviceGetRetiredPagesPendingStatus", api.DeviceGetRetiredPagesPendingStatus,
                                      device->handle)) {
    c[GpuFlag::kRetiredPagesPending] = *pending == nvml::kFeatureEnabled;
  }
  read_remapped_rows(api, *device, c, why);
  read_nvlink_counters(api, *device, c, why);
  return reading;
}

std::string NvmlMonitor::process_name(unsigned pid) const { return discover::process_name(state_->api, pid); }

std::string NvmlMonitor::watch_xid(std::map<unsigned, std::string>& per_gpu) {
  const NvmlApi& api = state_->api;
  if (api.EventSetCreate == nullptr || api.DeviceRegisterEvents == nullptr || api.EventSetWait == nullptr) {
    return missing_symbol(api.EventSetCreate == nullptr ? "nvmlEventSetCreate"
                          : api.DeviceRegisterEvents == nullptr ? "nvmlDeviceRegisterEvents"
                                                                : "nvmlEventSetWait_v2");
  }
  nvml::EventSet set = nullptr;
  if (const nvml::Return rc = api.EventSetCreate(&set); rc != nvml::kSuccess) return api.describe("nvmlEventSetCreate", rc);
  int registered = 0;
  for (const auto& device : state_->devices) {
    unsigned long long supported = 0;
    if (api.DeviceGetSupportedEventTypes != nullptr &&
        api.DeviceGetSupportedEventTypes(device.handle, &supported) == nvml::kSuccess &&
        (supported & nvml::kEventTypeXidCriticalError) == 0) {
      per_gpu[device.index] = "this GPU does not report Xid events (nvmlDeviceGetSupportedEventTypes)";
      continue;
    }
    if (const nvml::Return rc = api.DeviceRegisterEvents(device.handle, nvml::kEventTypeXidCriticalError, set);
        rc != nvml::kSuccess) {
      per_gpu[device.index] = api.describe("nvmlDeviceRegisterEvents", rc);
      continue;
    }
    ++registered;
  }
  if (registered == 0) {
    if (api.EventSetFree != nullptr) api.EventSetFree(set);
    return per_gpu.empty() ? "no GPU to watch" : "no GPU could be registered: " + per_gpu.begin()->second;
  }
  state_->events = set;
  return "";
}

bool NvmlMonitor::watching_xid() const { return state_->events != nullptr; }

std::optional<XidArrival> NvmlMonitor::wait_xid(unsigned timeout_ms) {
  if (state_->events == nullptr) return std::nullopt;
  nvml::EventData data{};
  if (state_->api.EventSetWait(state_->events, &data, timeout_ms) != nvml::kSuccess) return std::nullopt;
  if ((data.eventType & nvml::kEventTypeXidCriticalError) == 0) return std::nullopt;
  for (const auto& device : state_->devices) {
    if (device.handle == data.device) return XidArrival{device.index, static_cast<int>(data.eventData)};
  }
  return std::nullopt;
}

}  // namespace linkscope::discover
