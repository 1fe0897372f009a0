#include "fake_nvml_script.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

namespace fake_nvml {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct Entry {
  double at_s = 0;
  std::optional<unsigned> gpu;
  json set;  // the entry without at_s and gpu
};

struct Script {
  std::vector<Entry> timeline;  // sorted by at_s
  std::vector<std::string> unsupported;
};

// A broken script is a broken test: say so on stderr and abort, rather than run on an idle machine.
[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "fake NVML: %s\n", what.c_str());
  std::abort();
}

Script load() {
  Script script;
  const char* path = std::getenv("FAKE_NVML_SCRIPT");
  if (path == nullptr || *path == '\0') return script;
  std::ifstream in(path);
  if (!in) die(std::string("cannot read FAKE_NVML_SCRIPT ") + path);
  json document;
  try {
    document = json::parse(in);
  } catch (const std::exception& e) {
    die(std::string(path) + ": " + e.what());
  }
  for (const auto& item : document.value("timeline", json::array())) {
    Entry entry;
    entry.at_s = item.value("at_s", 0.0);
    if (item.contains("gpu")) entry.gpu = item["gpu"].get<unsigned>();
    entry.set = item;
    entry.set.erase("at_s");
    entry.set.erase("gpu");
    script.timeline.push_back(std::move(entry));
  }
  std::stable_sort(script.timeline.begin(), script.timeline.end(),
                   [](const Entry& a, const Entry& b) { return a.at_s < b.at_s; });
  script.unsupported = document.value("unsupported", std::vector<std::string>{});
  return script;
}

std::mutex g_mutex;
Clock::time_point g_origin = Clock::now();
std::size_t g_xids_taken = 0;  // how many xid entries were delivered since restart_clock()
std::shared_ptr<const Script> g_script;  // read again at every nvmlInit_v2: one process may run several scripts

std::shared_ptr<const Script> script() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_script) g_script = std::make_shared<const Script>(load());
  return g_script;
}

// The pid written in `path` (a test writes it when the process starts and removes it when it ends).
std::optional<unsigned> pid_from_file(const std::string& path) {
  std::ifstream in(path);
  unsigned pid = 0;
  if (in >> pid) return pid;
  return std::nullopt;
}

double now_s() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  return std::chrono::duration<double>(Clock::now() - g_origin).count();
}

template <typename T>
void take(const json& set, const char* key, T& field) {
  if (set.contains(key)) field = set[key].get<T>();
}

void take_links(const json& set, const char* key, std::array<unsigned long long, 18>& links) {
  if (!set.contains(key)) return;
  for (const auto& [link, value] : set[key].items()) {
    const unsigned number = static_cast<unsigned>(std::stoul(link));
    if (number < links.size()) links[number] = value.get<unsigned long long>();
  }
}

void apply(const json& set, GpuState& s) {
  take(set, "utilization_gpu", s.utilization_gpu);
  take(set, "fabric_state", s.fabric_state);
  take(set, "fabric_status", s.fabric_status);
  take(set, "utilization_memory", s.utilization_memory);
  take(set, "sm_clock_mhz", s.sm_clock_mhz);
  take(set, "mem_clock_mhz", s.mem_clock_mhz);
  take(set, "clocks_event_reasons", s.clocks_event_reasons);
  take(set, "power_mw", s.power_mw);
  take(set, "temperature_c", s.temperature_c);
  take(set, "memory_used_bytes", s.memory_used_bytes);
  take(set, "pcie_replay", s.pcie_replay);
  take(set, "ecc_volatile_corrected", s.ecc_volatile_corrected);
  take(set, "ecc_volatile_uncorrected", s.ecc_volatile_uncorrected);
  take(set, "retired_pages_single_bit", s.retired_pages_single_bit);
  take(set, "retired_pages_double_bit", s.retired_pages_double_bit);
  take(set, "retired_pages_pending", s.retired_pages_pending);
  take(set, "remapped_rows_correctable", s.remapped_rows_correctable);
  take(set, "remapped_rows_uncorrectable", s.remapped_rows_uncorrectable);
  take(set, "remapped_rows_pending", s.remapped_rows_pending);
  take(set, "remapped_rows_failure", s.remapped_rows_failure);
  take_links(set, "nvlink_replay", s.nvlink_replay);
  take_links(set, "nvlink_recovery", s.nvlink_recovery);
  take_links(set, "nvlink_crc_flit", s.nvlink_crc_flit);
  if (set.contains("processes")) {
    s.processes.clear();
    for (const auto& p : set["processes"]) {
      // "pid", or "pid_file": a process listed only while that file names it.
      const auto pid = p.contains("pid_file") ? pid_from_file(p["pid_file"].get<std::string>())
                                              : std::optional<unsigned>(p.at("pid").get<unsigned>());
      if (pid) s.processes.push_back({*pid, p.value("used_memory_bytes", 0ULL), p.value("name", "")});
    }
  }
}

}  // namespace

void restart_clock() {
  auto fresh = std::make_shared<const Script>(load());
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_script = std::move(fresh);
  g_origin = Clock::now();
  g_xids_taken = 0;
}

GpuState state(unsigned gpu) {
  GpuState s;
  if (gpu == 0) s.processes = {{4242, 1ULL << 30, "python3"}};  // the recorded machine's one other process
  const double now = now_s();
  const auto current = script();
  for (const auto& entry : current->timeline) {
    if (entry.at_s > now) break;
    if (!entry.gpu || *entry.gpu == gpu) apply(entry.set, s);
  }
  return s;
}

bool unsupported(const char* call) {
  const auto current = script();
  const auto& list = current->unsupported;
  return std::find(list.begin(), list.end(), call) != list.end();
}

std::optional<Xid> take_xid(double& wait_s) {
  const double now = now_s();
  const auto current = script();
  const std::lock_guard<std::mutex> lock(g_mutex);
  std::size_t seen = 0;
  wait_s = 1e9;
  for (const auto& entry : current->timeline) {
    if (!entry.set.contains("xid")) continue;
    if (seen++ < g_xids_taken) continue;
    if (entry.at_s > now) {
      wait_s = entry.at_s - now;
      return std::nullopt;
    }
    ++g_xids_taken;
    return Xid{entry.gpu.value_or(0), entry.set["xid"].get<int>()};
  }
  return std::nullopt;
}

}  // namespace fake_nvml
