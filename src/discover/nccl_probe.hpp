#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/environment.hpp"

namespace linkscope::discover {

// What NCCL itself built on this machine, from the hidden `linkscope __nccl-topo-probe` child.
struct NcclProbeResult {
  std::string status = "skipped";  // "ok", "failed", "timeout", "skipped"
  std::string reason;              // why it is not "ok"
  std::string nccl_version;        // "2.28.3"
  int device_count = 0;
  double init_seconds = 0;         // ncclCommInitAll inside the child
  double wall_seconds = 0;         // the whole child
  std::string dump_xml;            // NCCL_TOPO_DUMP_FILE
  std::string log;                 // NCCL_DEBUG_FILE (INIT,GRAPH)
  std::vector<std::string> child_env;  // the variables the child was given
};

struct NcclProbeRequest {
  std::string program;  // the linkscope binary ("" = this executable)
  const Environment* env = nullptr;                            // the environment the user asked for
  std::vector<std::pair<std::string, std::string>> overrides;  // `--env K=V` given to the child too
  double timeout_seconds = 120;
};

// The environment the child runs with: NCCL_TOPO_DUMP_FILE and NCCL_DEBUG_FILE in `directory`,
// NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,GRAPH, NCCL_NVLS_ENABLE=0 unless the user set it, then the overrides.
std::vector<std::string> nccl_probe_environment(const std::string& directory, const Environment& env,
                                                const std::vector<std::pair<std::string, std::string>>& overrides);

// Runs the child to completion (blocking; call it from a thread to overlap it with other discovery) and
// collects NCCL's dump and log. Never throws for a failing child: the result says what happened.
NcclProbeResult run_nccl_probe(const NcclProbeRequest& request);

}  // namespace linkscope::discover
