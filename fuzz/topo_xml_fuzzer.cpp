// libFuzzer target: the topology XML reader and the whole NCCL model build (paths, rewrites, decisions) and its
// three renderings. Any linkscope::Error is an accepted refusal; anything else (crash, sanitizer report, other
// exception, hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "model/topology_view.hpp"
#include "topo/topology_model.hpp"
#include "topo/nccl_versions.hpp"

// libFuzzer's default (entropic) scheduler spends ~90% of the time bookkeeping this target's many coverage
// features (measured: 37 vs 300 inputs/s on the fixtures), so default to the classic scheduler. libFuzzer
// documents that LLVMFuzzerInitialize may change argv; an explicit -entropic=... from the user wins.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  static std::vector<char*> arguments(*argv, *argv + *argc);
  for (char* argument : arguments) {
    if (std::string_view(argument).rfind("-entropic", 0) == 0) return 0;
  }
  static char classic_scheduler[] = "-entropic=0";
  arguments.push_back(classic_scheduler);
  arguments.push_back(nullptr);
  *argc = static_cast<int>(arguments.size()) - 1;
  *argv = arguments.data();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The input length picks an NCCL environment, so the rewrites under each model-changing variable are fuzzed.
  static const std::map<std::string, std::string> kEnvironments[] = {
      {},
      {{"NCCL_P2P_DISABLE", "1"}},
      {{"NCCL_NVB_DISABLE", "1"}},
      {{"NCCL_PXN_DISABLE", "1"}},
      {{"NCCL_NET_GDR_LEVEL", "PIX"}},
      {{"NCCL_P2P_LEVEL", "SYS"}, {"NCCL_PXN_C2C", "0"}},
      {{"NCCL_NETDEVS_POLICY", "ALL"}},
      {{"NCCL_NET_GDR_READ", "0"}, {"NCCL_NET_GDR_C2C", "0"}, {"NCCL_NETDEVS_POLICY", "MAX:2"}}};
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto env = linkscope::Environment::from_map(kEnvironments[size % std::size(kEnvironments)]);
  // The first byte picks the NCCL release, so each release's rules (DEV nodes, GDR levels, ...) are fuzzed.
  const auto& releases = linkscope::topo::reference_releases();
  const auto version = linkscope::topo::model_version_for(releases[(size > 0 ? data[0] : 0) % releases.size()]);
  try {
    const auto model = linkscope::topo::load_topology_string(text, "fuzz.xml", env, version);
    const std::size_t bytes = linkscope::topo::render_nccl_log(model).size() +
                              linkscope::topo::render_topology_text(model).size() +
                              linkscope::model::to_json(linkscope::topo::topology_view(model)).dump().size();
    if (bytes == 0) __builtin_trap();  // every rendering prints at least its header
  } catch (const linkscope::Error&) {
  }
  return 0;
}
