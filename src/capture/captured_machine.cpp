#include "capture/captured_machine.hpp"

#include "capture/recorded_sources.hpp"
#include "discover/live_model_check.hpp"
#include "discover/live_system.hpp"

namespace linkscope::capture {

topo::ModelledVersion capture_model_version(const Capture& capture) {
  if (capture.nccl && !capture.nccl->nccl_version.empty()) {
    if (const auto version = topo::parse_nccl_version(capture.nccl->nccl_version)) {
      return topo::model_version_for(*version, "the libnccl NCCL's topology child loaded on the captured machine");
    }
  }
  if (const auto version = topo::parse_nccl_version(capture.manifest.nccl_version)) {
    return topo::model_version_for(*version, "the libnccl of the captured machine " + capture.manifest.nccl_library);
  }
  return topo::model_version_for(topo::newest_modelled_version(), "default (the captured machine had no libnccl)");
}

DiscoveredMachine discover_captured_machine(const LoadedCapture& loaded, const EnvOverrides& env_overrides) {
  const Capture& capture = loaded.capture();
  Environment env = Environment::from_map(capture.manifest.environment);
  for (const auto& [name, value] : env_overrides) env.set(name, value);
  RecordedNvmlSource nvml(capture.nvml);
  RecordedCudaSource cuda(capture.cuda);
  discover::LiveDiscoveryOptions options;
  options.sysfs_root = loaded.root();
  options.ask_nccl = false;
  options.env_overrides = env_overrides;
  options.recorded_nccl = capture.nccl;
  discover::LiveDiscovery live = discover::discover_live(nvml, cuda, env, options);
  // The facts name the capture, not the private folder it was unpacked into.
  live.facts.host.sysfs_root = "capture:" + loaded.source();
  return {std::move(env), std::move(live), capture_model_version(capture)};
}

model::Run captured_run(const LoadedCapture& loaded, const EnvOverrides& env_overrides,
                        const std::vector<std::string>& argv) {
  const DiscoveredMachine machine = discover_captured_machine(loaded, env_overrides);
  const discover::LiveModelCheck check = discover::check_live_model(machine.live, machine.env, machine.version);
  model::Run run = discover::topo_live_run(machine.live, check, machine.env, argv);
  const CaptureManifest& manifest = loaded.capture().manifest;
  run.system.capture = loaded.source();
  if (!manifest.hostname.empty()) run.config.host = manifest.hostname;  // the machine described, not the reader
  if (!manifest.nccl_library.empty()) run.environment.nccl_library = manifest.nccl_library;
  if (!manifest.nccl_version.empty()) run.environment.nccl_version = manifest.nccl_version;
  if (!manifest.nccl_unavailable.empty()) run.environment.nccl_unavailable = manifest.nccl_unavailable;
  return run;
}

}  // namespace linkscope::capture
