#pragma once
// measurements.telemetry as JSON for rule tests: a run's steps, the processes NVML listed and the samples, built the
// way the sampler writes them, so that each test can plant one thing seen during the run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "diagnose_test_runs.hpp"

namespace linkscope::test {

struct TelemetryJson {
  nlohmann::json doc;

  explicit TelemetryJson(int gpus) {
    doc = {{"interval_s", 0.1}, {"started_at", "2026-12-05T10:00:00Z"}, {"duration_s", 10.0}, {"passes", 100},
           {"doctor_pid", 1000}, {"own_pids", nlohmann::json::array()}, {"gpus", nlohmann::json::array()},
           {"steps", nlohmann::json::array()}, {"processes", nlohmann::json::array()},
           {"xid_events", nlohmann::json::array()}};
    for (int g = 0; g < gpus; ++g) {
      doc["gpus"].push_back({{"nvml_index", g}, {"cuda_ordinal", g}, {"pci_bdf", "0000:0" + std::to_string(g) + ":00.0"},
                             {"uuid", "GPU-" + std::to_string(g)}, {"samples", {{"t_s", nlohmann::json::array()}}}});
    }
  }

  // A step from start to end with every GPU's counters (the same before and after unless bent).
  TelemetryJson& step(const std::string& name, double start, double end, nlohmann::json counters = {{"pcie_replay", 0}}) {
    nlohmann::json gpus = nlohmann::json::array();
    for (std::size_t g = 0; g < doc["gpus"].size(); ++g) {
      gpus.push_back({{"nvml_index", g}, {"before", counters}, {"after", counters}});
    }
    doc["steps"].push_back({{"name", name}, {"start_s", start}, {"end_s", end}, {"pids", {1001}}, {"gpus", gpus}});
    return *this;
  }

  nlohmann::json& counters(int step, int gpu, const char* when) { return doc["steps"][step]["gpus"][gpu][when]; }

  TelemetryJson& process(std::int64_t pid, const std::string& name, int gpu, std::vector<int> steps,
                         const std::string& owner = "", bool visible = true, int outside = 0) {
    doc["processes"].push_back({{"pid", pid}, {"name", name}, {"nvml_index", gpu},
                                {"owner", owner.empty() ? nlohmann::json(nullptr) : nlohmann::json(owner)},
                                {"visible", visible}, {"first_seen_s", 1.0}, {"last_seen_s", 4.0}, {"samples", 30},
                                {"steps", steps}, {"samples_outside_steps", outside},
                                {"max_used_memory_bytes", 2LL << 30}});
    return *this;
  }

  // Samples of one GPU: (t_s, step or -1, utilization, memory used).
  struct Sample {
    double t;
    int step;
    int util;
    std::int64_t memory = 0;
  };
  TelemetryJson& samples(int gpu, const std::vector<Sample>& samples) {
    nlohmann::json t = nlohmann::json::array(), step = t, util = t, memory = t;
    for (const auto& s : samples) {
      t.push_back(s.t);
      step.push_back(s.step < 0 ? nlohmann::json(nullptr) : nlohmann::json(s.step));
      util.push_back(s.util);
      memory.push_back(s.memory);
    }
    doc["gpus"][gpu]["samples"] = {{"t_s", t}, {"step", step}, {"gpu_util_percent", util}, {"memory_used_bytes", memory}};
    return *this;
  }

  TelemetryJson& xid(int gpu, int code, double t, std::optional<int> step) {
    doc["xid_events"].push_back({{"t_s", t}, {"nvml_index", gpu}, {"xid", code},
                                 {"step", step ? nlohmann::json(*step) : nlohmann::json(nullptr)}});
    return *this;
  }
};

}  // namespace linkscope::test
