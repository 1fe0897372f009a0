#include "topo/env_params.hpp"

#include <strings.h>

#include <fmt/format.h>

#include "topo/nccl_numbers.hpp"
#include "topo/nccl_param.hpp"
#include "topo/topo_types.hpp"

namespace linkscope::topo {

namespace {

// NCCL_PARAM (read_nccl_int_param), recording the variable and, where NCCL ignores or misreads it, why.
int64_t numeric_param(const Environment& env, const char* name, int64_t fallback, NcclParams& params) {
  const NcclIntParam param = read_nccl_int_param(env, name, fallback);
  if (!param.raw) return fallback;
  params.used[name] = *param.raw;
  if (param.out_of_range) {
    params.ignored[name] = fmt::format("{}={} is out of range; NCCL keeps the default {}", name, *param.raw, fallback);
  } else if (!param.raw->empty() && !param.is_number) {
    params.ignored[name] = fmt::format("{}={} is not a number; NCCL reads it as 0", name, *param.raw);
  }
  return param.value;
}

// NCCL stores the int64 parameter in an int where the code compares it (ncclPxnDisable); keep that wrap.
int64_t as_c_int(int64_t value) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(value))); }

}  // namespace

std::optional<int> parse_nccl_level(const std::string& value) {
  for (int level = kPathLoc; level <= kPathSys; ++level) {
    if (value == path_type_name(level)) return level;
  }
  if (!value.empty() && value[0] >= '0' && value[0] <= '9') {
    static constexpr int kOldToNew[] = {kPathLoc, kPathPix, kPathPxb, kPathPhb, kPathSys, kPathSys};
    const int64_t old_level = as_c_int(c_strtol(value).value);
    if (old_level < 0) return std::nullopt;  // NCCL would index out of its table here; treat as unset
    return kOldToNew[old_level > 5 ? 5 : old_level];
  }
  return std::nullopt;
}

NcclParams resolve_nccl_params(const Environment& env) {
  NcclParams params;

  // NCCL_P2P_DISABLE wins when it is exactly 1; any other value falls through to NCCL_P2P_LEVEL.
  if (const auto disable = env.get("NCCL_P2P_DISABLE")) {
    params.used["NCCL_P2P_DISABLE"] = *disable;
    const int64_t value = as_c_int(c_strtol(*disable).value);
    if (value == 1) {
      params.p2p_level = kPathLoc;
      params.p2p_echo = "NCCL_P2P_DISABLE set by environment to 1";
    } else {
      params.ignored["NCCL_P2P_DISABLE"] =
          fmt::format("NCCL_P2P_DISABLE={} is not 1, so NCCL does not disable P2P", *disable);
    }
  }
  if (const auto level = env.get("NCCL_P2P_LEVEL")) {
    params.used["NCCL_P2P_LEVEL"] = *level;
    if (!params.p2p_level) {
      params.p2p_level = parse_nccl_level(*level);
      if (params.p2p_level) {
        params.p2p_echo = fmt::format("NCCL_P2P_LEVEL set by environment to {}", path_type_name(*params.p2p_level));
      } else {
        params.ignored["NCCL_P2P_LEVEL"] = fmt::format("NCCL_P2P_LEVEL={} is not a level NCCL knows; ignored", *level);
      }
    }
  }
  if (const auto level = env.get("NCCL_NET_GDR_LEVEL")) {
    params.used["NCCL_NET_GDR_LEVEL"] = *level;
    params.gdr_level = parse_nccl_level(*level);
    if (params.gdr_level) {
      params.gdr_echo = fmt::format("NCCL_NET_GDR_LEVEL set by environment to {}", path_type_name(*params.gdr_level));
    } else {
      params.ignored["NCCL_NET_GDR_LEVEL"] =
          fmt::format("NCCL_NET_GDR_LEVEL={} is not a level NCCL knows; ignored", *level);
    }
  }

  params.nvb_disable = numeric_param(env, "NCCL_NVB_DISABLE", 0, params);
  params.pxn_disable = as_c_int(numeric_param(env, "NCCL_PXN_DISABLE", 0, params));
  params.pxn_c2c = numeric_param(env, "NCCL_PXN_C2C", 1, params);
  params.ignore_disabled_p2p = numeric_param(env, "NCCL_IGNORE_DISABLED_P2P", 0, params);
  params.net_gdr_read = numeric_param(env, "NCCL_NET_GDR_READ", -2, params);
  params.net_gdr_c2c = numeric_param(env, "NCCL_NET_GDR_C2C", 1, params);

  if (const auto policy = env.get("NCCL_NETDEVS_POLICY")) {
    params.used["NCCL_NETDEVS_POLICY"] = *policy;
    if (strcasecmp(policy->c_str(), "AUTO") == 0) {
      params.netdevs_policy = NetDevsPolicy::kAuto;
    } else if (strcasecmp(policy->c_str(), "ALL") == 0) {
      params.netdevs_policy = NetDevsPolicy::kAll;
    } else if (strncasecmp(policy->c_str(), "MAX:", 4) == 0 &&
               as_c_int(c_strtol(policy->substr(4), 10).value) > 0) {  // atoi
      params.netdevs_policy = NetDevsPolicy::kMax;
      params.netdevs_policy_max = static_cast<int>(as_c_int(c_strtol(policy->substr(4), 10).value));
    } else {
      params.ignored["NCCL_NETDEVS_POLICY"] =
          fmt::format("NCCL_NETDEVS_POLICY={} is not AUTO, ALL or MAX:n (n > 0); NCCL uses AUTO", *policy);
    }
  }
  return params;
}

}  // namespace linkscope::topo
