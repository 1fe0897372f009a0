#pragma once
// The NCCL environment variables that change the topology model (spec §8), resolved the way NCCL
// parses them, from a linkscope::Environment (process environment plus --env overrides).
#include <map>
#include <optional>
#include <string>

#include "core/environment.hpp"

namespace linkscope::topo {

enum class NetDevsPolicy { kAuto, kAll, kMax };

struct NcclParams {
  // NCCL_P2P_DISABLE=1 (level LOC) or NCCL_P2P_LEVEL; nullopt = no override. `p2p_echo` is the INFO line
  // NCCL prints the first time it resolves the level ("NCCL_P2P_LEVEL set by environment to PIX").
  std::optional<int> p2p_level;
  std::string p2p_echo;
  std::optional<int> gdr_level;  // NCCL_NET_GDR_LEVEL
  std::string gdr_echo;
  int64_t nvb_disable = 0;            // NCCL_NVB_DISABLE: != 0 disables GPU relays (NVB)
  int64_t pxn_disable = 0;            // NCCL_PXN_DISABLE: exactly 1 disables PXN
  int64_t pxn_c2c = 1;                // NCCL_PXN_C2C: PXN peer limit P2C (!= 0) or PXB (0)
  int64_t ignore_disabled_p2p = 0;    // NCCL_IGNORE_DISABLED_P2P (offline: no NVML, so no effect)
  int64_t net_gdr_read = -2;          // NCCL_NET_GDR_READ
  int64_t net_gdr_c2c = 1;            // NCCL_NET_GDR_C2C
  NetDevsPolicy netdevs_policy = NetDevsPolicy::kAuto;
  int netdevs_policy_max = 0;         // n of MAX:n
  // The model-changing variables that were set, as given (for the model's "env" and notes).
  std::map<std::string, std::string> used;
  // Values NCCL would not accept (it falls back to the default), in words.
  std::map<std::string, std::string> ignored;
};

NcclParams resolve_nccl_params(const Environment& env);

// NCCL's level parsing (ncclGetLevel): exact names LOC..SYS, else a leading digit selects the old numbering
// 0..5 -> LOC, PIX, PXB, PHB, SYS, SYS. nullopt when NCCL ignores the value.
std::optional<int> parse_nccl_level(const std::string& value);

}  // namespace linkscope::topo
