#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/environment.hpp"
#include "discover/cuda_source.hpp"
#include "discover/nccl_probe.hpp"
#include "discover/nvml_source.hpp"
#include "discover/system_facts.hpp"
#include "discover/xml_synthesis.hpp"

namespace linkscope::discover {

struct LiveDiscoveryOptions {
  std::string sysfs_root = "/";
  bool ask_nccl = true;            // false: --no-nccl
  std::string nccl_program;        // the binary with `__nccl-topo-probe` ("" = this executable)
  double nccl_timeout_seconds = 120;
  std::vector<std::pair<std::string, std::string>> env_overrides;  // `--env K=V`, also given to NCCL's child
  // What NCCL's child said on the captured machine (--capture): used as it is, no child runs.
  std::optional<NcclProbeResult> recorded_nccl;
};

// Wall time of each stage, for the <= 2 s budget of `linkscope topo` (the NCCL child overlaps the rest).
struct DiscoveryTimes {
  double sysfs_seconds = 0;
  double nvml_seconds = 0;
  double cuda_seconds = 0;
  double synthesis_seconds = 0;
  double nccl_wait_seconds = 0;  // time spent waiting for NCCL's child after everything else was done
  double total_seconds = 0;
};

struct LiveDiscovery {
  SystemFacts facts;
  SynthesizedTopology synthesized;
  std::optional<NcclProbeResult> nccl;  // empty when not asked
  DiscoveryTimes times;
};

// Starts NCCL's child first (when asked), reads sysfs, NVML and CUDA while it runs, joins the facts,
// synthesizes the topology XML, then waits for NCCL. Never throws for missing drivers: the result says
// what is unavailable and why.
LiveDiscovery discover_live(NvmlSource& nvml, CudaSource& cuda, const Environment& env, const LiveDiscoveryOptions& options);

}  // namespace linkscope::discover
