#include "cli/topo_live.hpp"

#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/run.hpp"
#include "discover/live_discovery.hpp"
#include "discover/live_json.hpp"
#include "discover/nvml_source.hpp"
#include "platform/cuda_facts.hpp"
#include "report/topo_live_text.hpp"

namespace linkscope::cli {

namespace {

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error(ExitCode::kUsage, fmt::format("cannot write {}", path));
}

// The reason the live view cannot be trusted as a whole, or "" when the driver and CUDA work.
std::string unavailable_reason(const discover::SystemFacts& facts) {
  if (!facts.driver.available) return "NVIDIA driver unavailable: " + facts.driver.reason;
  if (!facts.cuda.available && !facts.cuda_visible_devices) return "CUDA runtime unavailable: " + facts.cuda.reason;
  return "";
}

}  // namespace

int run_topo_live(const TopoLiveOptions& options, const TopologyModelFunction& model, const std::vector<std::string>& argv) {
  Environment env = Environment::from_process();
  discover::LiveDiscoveryOptions discovery;
  discovery.sysfs_root = options.sysfs_root;
  discovery.ask_nccl = options.ask_nccl;
  discovery.nccl_timeout_seconds = options.nccl_timeout_seconds;
  for (const auto& assignment : options.env_assignments) {
    const auto [name, value] = parse_env_assignment(assignment);
    env.set(name, value);
    discovery.env_overrides.emplace_back(name, value);
  }
  const char* nvml_library = std::getenv("LINKSCOPE_NVML_LIBRARY");
  auto nvml = discover::make_nvml_library_source(nvml_library != nullptr ? nvml_library : "");
  auto cuda = platform::make_cuda_runtime_source();
  const discover::LiveDiscovery live = discover::discover_live(*nvml, *cuda, env, discovery);
  const std::string unavailable = unavailable_reason(live.facts);

  if (!options.dump_xml.empty()) {
    if (live.synthesized.xml.empty()) {
      throw DeviceError(fmt::format("no topology XML to write to {}: {}", options.dump_xml,
                                    unavailable.empty() ? live.synthesized.notes.back() : unavailable));
    }
    write_text_file(options.dump_xml, live.synthesized.xml);
  }

  ModelSummary ours;
  report::TopoLiveModelView view;
  discover::NcclComparisons comparisons;
  if (live.synthesized.xml.empty()) {
    view.model_reason = live.synthesized.notes.empty() ? "no topology XML" : live.synthesized.notes.back();
  } else {
    try {
      ours = model(live.synthesized.xml, "synthesized topology", env);
      view.model_path_lines = ours.path_lines;
      view.model_relation_matrix = ours.relation_matrix;
    } catch (const Error& e) {
      view.model_reason = fmt::format("linkscope's model refuses the synthesized XML: {}", e.what());
    }
  }
  for (const auto& note : live.synthesized.notes) {
    if (note != view.model_reason) view.synthesis_notes.push_back(note);
  }
  if (live.nccl) {
    view.nccl = &*live.nccl;
    if (live.nccl->status == "ok" && view.model_reason.empty()) {
      const auto printed = discover::nccl_log_path_lines(live.nccl->log);
      if (!printed.empty()) {
        comparisons.versus_nccl_log = discover::compare_path_lines(ours.path_lines, printed, live.nccl->nccl_version);
      }
      try {
        const ModelSummary theirs = model(live.nccl->dump_xml, "NCCL's topology dump", env);
        comparisons.versus_nccl_dump = discover::compare_path_lines(ours.path_lines, theirs.path_lines, "");
      } catch (const Error& e) {
        view.synthesis_notes.push_back(fmt::format("NCCL's dump cannot be modelled: {}", e.what()));
      }
    }
  }
  view.versus_nccl_log = comparisons.versus_nccl_log;
  view.versus_nccl_dump = comparisons.versus_nccl_dump;

  if (options.format == "json") {
    RunDocument run = make_run("topo", argv);
    run.environment["variables"] = env.relevant();
    run.system = discover::live_discovery_to_json(live, comparisons);
    if (!ours.json.is_null()) run.model = ours.json;
    for (const auto& error : live.facts.errors) record_error(run, "discover", error);
    if (!view.model_reason.empty()) record_error(run, "model", view.model_reason);
    if (live.nccl && live.nccl->status != "ok" && live.nccl->status != "skipped") {
      record_error(run, "nccl topology", live.nccl->reason);
    }
    fmt::print("{}\n", run_to_json(run).dump(2));
  } else if (options.format == "nccl-log") {
    if (!view.model_reason.empty()) throw DeviceError(unavailable.empty() ? view.model_reason : unavailable);
    fmt::print("{}", ours.nccl_log);
  } else if (!live.facts.driver.available) {
    fmt::print("{}", report::render_sysfs_only_text(live.facts));
  } else {
    fmt::print("{}", report::render_topo_live_text(live.facts, view));
  }
  std::fflush(stdout);
  if (!unavailable.empty()) throw DeviceError(unavailable);
  return 0;
}

}  // namespace linkscope::cli
