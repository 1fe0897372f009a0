#include "cli/model_version_option.hpp"

#include "core/error.hpp"
#include "platform/nccl_version.hpp"

namespace linkscope::cli {

topo::ModelledVersion offline_model_version(const std::string& option_text) {
  if (option_text.empty()) {
    return topo::model_version_for(topo::newest_modelled_version(), "default (the newest version modelled)");
  }
  std::string error;
  const auto version = topo::model_version_from_option(option_text, &error);
  if (!version) throw UsageError(error);
  return *version;
}

topo::ModelledVersion live_model_version(const discover::LiveDiscovery& live) {
  if (live.nccl && !live.nccl->nccl_version.empty()) {
    if (const auto version = topo::parse_nccl_version(live.nccl->nccl_version)) {
      return topo::model_version_for(*version, "the libnccl NCCL's topology child loaded");
    }
  }
  try {
    const platform::NcclLibraryInfo library = platform::nccl_library_info();
    if (const auto version = topo::parse_nccl_version(library.version)) {
      return topo::model_version_for(*version, "the loaded libnccl " + library.path);
    }
  } catch (const Error&) {
    // No NCCL here: the newest release modelled stands in for whatever the user will run.
  }
  return topo::model_version_for(topo::newest_modelled_version(), "default (no libnccl could be opened)");
}

}  // namespace linkscope::cli
