#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/diagnosis.hpp"
#include "model/fleet.hpp"
#include "model/json_read.hpp"
#include "model/measurements.hpp"
#include "model/runtime.hpp"
#include "model/system.hpp"
#include "model/topology_view.hpp"

// One run of linkscope as one typed model: engines fill it, diagnosis and renderers read it, and JSON exists only at
// the edges (run.json, a child step's stdout, MPI messages). Reading a saved run builds the same objects a live run
// builds. docs/run-schema.md describes the document.
namespace linkscope::model {

// Version of the Run document. Major bumps break readers; minor bumps add fields.
// 1.1: patterns_config carries devices and notes; per-section fields a reader does not know are kept.
// 1.2: system.smi_matrix and pci_display_devices[].local_cpulist (the live topo text); config.coll's sampling;
//      measurements.telemetry (what the doctor watched during its steps).
inline constexpr int kRunSchemaMajor = 1;
// 1.3: model.graphs, model.tuning and model.prediction (NCCL's channel search and tuner); runtime.runs[].info.tuning
//      (what NCCL chose per call, from its TUNING log lines).
// 1.4: model nccl_version_modelled/_from/_note (the NCCL release modelled); runtime.runs[] rank_devices, gpu_direct,
// nvls, mnnvl and hints (NCCL 2.29/2.30 log lines, NCCL's HINTs).
// 1.5: system.capture and nvidia_services; gpus[] fabric, dma_buf and multicast (captures, NVLS).
// 1.6: fleet (the run judged against a fleet baseline, `--baseline`); measurements.soak (doctor --soak) and
//      measurements.cross_host.isolation (cluster --isolate).
inline constexpr int kRunSchemaMinor = 7;

struct Tool {
  std::string name = "linkscope";
  std::string version, git;
};

// A step the doctor did not run because this machine cannot have it (one GPU: no pair; NCCL missing), with why.
// Not an error: the step was not attempted.
struct SkippedStep {
  std::string step, reason;
};

struct Config {
  std::string subcommand;
  std::vector<std::string> argv;  // the exact command line
  std::string started_at;         // UTC ISO 8601
  std::string host;
  std::optional<std::string> profile;       // doctor: quick, default, full
  std::optional<double> measured_seconds;   // doctor: wall time of the measuring steps
  // doctor: why the run ended before its last step ("interrupted (SIGINT) during coll all_gather, 4 of 9 steps
  // done"); absent when it ran to the end.
  std::optional<std::string> stopped;
  std::vector<SkippedStep> skipped;         // doctor: steps not run on this machine, with the reason
  nlohmann::json extra;                     // per-subcommand settings ("coll": {...}) as the command wrote them
};

struct RunEnvironment {
  std::map<std::string, std::string> variables;  // NCCL_*, CUDA_*, NVIDIA_*, LINKSCOPE_*, launcher variables only
  std::optional<std::string> nccl_library, nccl_version, nccl_headers, launch;
  std::optional<std::string> nccl_unavailable;  // why libnccl.so.2 could not be opened, where that was tried
  nlohmann::json extra;
};

// One item (a pair, a size, a step) that failed while the rest of the run went on.
struct RunError {
  std::string where, message;
};

struct Run {
  Tool tool;
  Config config;
  RunEnvironment environment;
  System system;
  TopologyView topology;  // the document's `model` section
  Runtime runtime;
  Measurements measurements;
  std::vector<Hypothesis> hypotheses;
  std::vector<Finding> findings;
  std::vector<RunError> errors;
  std::optional<FleetComparison> fleet;  // judged against a fleet baseline (`--baseline`)
  nlohmann::json extra;  // top-level fields of a newer document

  void record_error(const std::string& where, const std::string& message);
  // True when the run carries a diagnosis (hypotheses or findings).
  bool has_diagnosis() const { return !hypotheses.empty() || !findings.empty(); }
};

// A new Run stamped with the tool version, command line, host name and UTC start time.
Run make_run(const std::string& subcommand, const std::vector<std::string>& argv);

nlohmann::json to_json(const Run& run);
// Checks the document (an object with a schema_version of a known major) and reads every section; errors are
// InputErrors naming `source` and the field.
Run run_from_json(const nlohmann::json& document, const std::string& source);

}  // namespace linkscope::model
