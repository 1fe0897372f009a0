#pragma once
// Which NCCL an offline model (topo --xml, doctor --xml) follows: --nccl-version when given, else the newest release
// linkscope models. Live commands model the libnccl they load instead (discover/live_model_check).
#include <string>

#include "discover/live_discovery.hpp"
#include "topo/nccl_versions.hpp"

namespace linkscope::cli {

inline constexpr const char* kNcclVersionOptionHelp =
    "with --xml: model this NCCL release (e.g. 2.29.7; default: the newest modelled); a release outside the "
    "versions modelled follows the nearest one, and the model says so";

// Throws UsageError for text that is not a version.
topo::ModelledVersion offline_model_version(const std::string& option_text);

// Live: the libnccl NCCL's topology child loaded, else the one this process opens (LINKSCOPE_NCCL_LIBRARY or the
// system's), else the newest modelled.
topo::ModelledVersion live_model_version(const discover::LiveDiscovery& live);

}  // namespace linkscope::cli
