#pragma once
// Small synthetic Run documents for rule and hypothesis tests: a healthy two- or more-GPU NVSwitch machine built
// from the 2 x H200 facts (18 x 26.562 GB/s NVLink, PCIe Gen5 x16), to be bent by each test into one fault.
#include <string>

#include <nlohmann/json.hpp>

#include "diagnose/diagnose.hpp"
#include "model/run.hpp"

namespace linkscope::test {

// A run document as JSON sections, so that each test can bend one fact the way a broken machine would; it is read
// into the typed model (the real reader) wherever a diagnosis takes a model::Run.
struct RunJson {
  nlohmann::json tool = nlohmann::json::object();
  nlohmann::json config = nlohmann::json::object();
  nlohmann::json environment = nlohmann::json::object();
  nlohmann::json system = nlohmann::json::object();
  nlohmann::json model = nlohmann::json::object();
  nlohmann::json runtime = nlohmann::json::object();
  nlohmann::json measurements = nlohmann::json::object();
  nlohmann::json hypotheses = nlohmann::json::array();
  nlohmann::json findings = nlohmann::json::array();
  nlohmann::json errors = nlohmann::json::array();

  nlohmann::json document() const {
    return {{"schema_version", "1.0"}, {"tool", tool},           {"config", config},
            {"environment", environment}, {"system", system},     {"model", model},
            {"runtime", runtime},        {"measurements", measurements}, {"hypotheses", hypotheses},
            {"findings", findings},      {"errors", errors}};
  }
  model::Run typed() const { return model::run_from_json(document(), "test run"); }
  operator model::Run() const { return typed(); }  // NOLINT: tests hand a bent document to the diagnosis
};

// The hypotheses of a run (made when it has none), judged.
inline std::vector<model::Hypothesis> judge_hypotheses(const model::Run& run) {
  return diagnose::diagnose(run).hypotheses;
}

inline nlohmann::json gpu_json(int ordinal, int links = 18) {
  nlohmann::json nvlinks = nlohmann::json::array();
  for (int l = 0; l < 18; ++l) {
    nvlinks.push_back({{"link", l}, {"active", l < links}, {"version", 4}, {"speed_gbps", 26.562},
                       {"remote_type", "nvswitch"}, {"errors", {{"replay", 0}, {"recovery", 0}, {"crc_flit", 0}}}});
  }
  return {{"cuda_ordinal", ordinal},
          {"nvml_index", ordinal},
          {"uuid", "GPU-" + std::to_string(ordinal)},
          {"pci_bdf", "0000:0" + std::to_string(ordinal) + ":00.0"},
          {"name", "NVIDIA H200"},
          {"sm", 90},
          {"numa_node", 0},
          {"pcie", {{"current_gen", 5}, {"max_gen", 5}, {"current_width", 16}, {"max_width", 16}}},
          {"mig_mode", "disabled"},
          {"throttle_reasons", {"gpu_idle"}},
          {"ecc", {{"enabled", true}, {"volatile_uncorrected", 0}, {"volatile_corrected", 0},
                   {"aggregate_uncorrected", 0}, {"aggregate_corrected", 0}}},
          {"nvlinks", nvlinks},
          {"processes", nlohmann::json::array()}};
}

// n GPUs on an NVSwitch, every pair NV18 with peer access.
inline RunJson nvswitch_run(int n = 2) {
  RunJson run;
  run.config = {{"subcommand", "doctor"}, {"host", "test"}};
  run.environment = {{"variables", nlohmann::json::object()}};
  nlohmann::json gpus = nlohmann::json::array(), pairs = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    gpus.push_back(gpu_json(i));
    for (int j = i + 1; j < n; ++j) {
      pairs.push_back({{"a", i}, {"b", j}, {"relation", "NV18"}, {"nvlink_count", 18},
                       {"nvml_p2p", {{"read", "OK"}, {"write", "OK"}}}, {"cuda_peer_access", true}});
    }
  }
  run.system = {{"gpus", gpus}, {"pairs", pairs}, {"numa_nodes", {{{"id", 0}, {"cpus", "0-31"}}}},
                {"visibility", {{"nvml_gpu_count", n}, {"cuda_device_count", n}, {"hidden", nlohmann::json::array()}}}};
  return run;
}

inline nlohmann::json copy_point(int src, int dst, const std::string& method, std::uint64_t bytes, double gbps,
                                 nlohmann::json cv = nullptr) {
  return {{"src", src}, {"dst", dst}, {"method", method}, {"direction", "uni"}, {"bytes", bytes},
          {"bandwidth_gbps", {{"median", gbps}}}, {"cv", cv}, {"status", "ok"}, {"reason", nullptr}};
}

inline void add_copies(RunJson& run, const nlohmann::json& points) {
  run.measurements["p2p"] = {{"points", points}, {"latency", nlohmann::json::array()}};
}

inline nlohmann::json collective(const std::string& op, std::uint64_t bytes, double busbw, int nranks = 2,
                                 nlohmann::json env = nlohmann::json::object()) {
  return {{"op", op}, {"nranks", nranks}, {"graph", false}, {"env", env},
          {"points", {{{"bytes", bytes}, {"in_place", false}, {"time_us", {{"median", 1000.0}}},
                       {"algbw_gbps", busbw}, {"busbw_gbps", busbw}, {"wrong", 0}, {"status", "ok"}}}}};
}

inline constexpr std::uint64_t kMiB = 1024ull * 1024ull;

}  // namespace linkscope::test
