#include "discover/live_discovery.hpp"

#include <chrono>
#include <future>

#include "core/error.hpp"

namespace linkscope::discover {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

LiveDiscovery discover_live(NvmlSource& nvml_source, CudaSource& cuda_source, const Environment& env,
                            const LiveDiscoveryOptions& options) {
  LiveDiscovery result;
  const auto start = Clock::now();
  std::future<NcclProbeResult> nccl;
  const bool live_root = SysfsRoot(options.sysfs_root).is_live();
  if (options.recorded_nccl) {
    result.nccl = options.recorded_nccl;
  } else if (options.ask_nccl && live_root) {
    NcclProbeRequest request;
    request.program = options.nccl_program;
    request.env = &env;
    request.overrides = options.env_overrides;
    request.timeout_seconds = options.nccl_timeout_seconds;
    nccl = std::async(std::launch::async, [request] {
      try {
        return run_nccl_probe(request);
      } catch (const Error& e) {  // no pipes or fork: recorded, not fatal
        NcclProbeResult failed;
        failed.status = "failed";
        failed.reason = e.what();
        return failed;
      }
    });
  } else if (options.ask_nccl) {
    NcclProbeResult skipped;
    skipped.reason = "--sysfs-root describes another machine than the one NCCL would run on";
    result.nccl = skipped;
  }

  auto stage = Clock::now();
  HostFacts host = read_host_facts(SysfsRoot(options.sysfs_root));
  result.times.sysfs_seconds = seconds_since(stage);
  stage = Clock::now();
  NvmlSnapshot nvml = nvml_source.read();
  result.times.nvml_seconds = seconds_since(stage);
  stage = Clock::now();
  CudaSnapshot cuda = cuda_source.read();
  result.times.cuda_seconds = seconds_since(stage);
  stage = Clock::now();
  result.facts = assemble_system_facts(std::move(host), std::move(nvml), std::move(cuda), env);
  result.synthesized = synthesize_topology_xml(result.facts, env);
  result.times.synthesis_seconds = seconds_since(stage);
  if (nccl.valid()) {
    stage = Clock::now();
    result.nccl = nccl.get();
    result.times.nccl_wait_seconds = seconds_since(stage);
  }
  result.times.total_seconds = seconds_since(start);
  return result;
}

}  // namespace linkscope::discover
