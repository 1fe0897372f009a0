// gpu-memory-held: another process held most of a GPU's memory while the GPU did no work (no utilization while no
// linkscope step ran). Its own finding, not noisy-measurement: the SMs and links were free, so the numbers stay
// valid when they did not move; what the holder took is memory, so the sizes that needed it were not measured, and
// the job that comes next gets only what is left.
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/rules.hpp"
#include "diagnose/step_points.hpp"

namespace linkscope::diagnose {

namespace {

// Points the doctor could not measure for lack of free memory on `gpu` (plan::memory_shortfall's words).
std::vector<std::string> sizes_without_memory(const Evidence& evidence, int gpu) {
  std::set<std::uint64_t> sizes;
  for (const auto* point : evidence.p2p) {
    if (point->status != model::PointStatus::kNa || point->reason.find("is free") == std::string::npos) continue;
    if (point->src == gpu || point->dst == gpu) sizes.insert(point->bytes);
  }
  std::vector<std::string> out;
  for (const auto bytes : sizes) out.push_back(format_bytes(bytes));
  return out;
}

}  // namespace

std::optional<Finding> rule_gpu_memory_held(const Context& context) {
  const auto holders = memory_holders(context.foreign, context.evidence.run);
  if (holders.empty()) return std::nullopt;
  Finding finding;
  finding.id = "gpu-memory-held";
  finding.severity = Severity::kWarning;
  bool moved = false;
  for (const auto& holder : holders) {
    const model::Gpu* gpu = context.evidence.gpu(holder.cuda_ordinal);
    finding.evidence.push_back(fmt::format(
        "GPU{} ({}): {} of {} held by {}{}", holder.cuda_ordinal,
        gpu != nullptr ? gpu->pci_bdf : "?", format_bytes(static_cast<std::uint64_t>(holder.held_bytes)),
        format_bytes(static_cast<std::uint64_t>(holder.total_bytes)), holder.who,
        context.foreign.watched() ? " with no utilization while no linkscope step ran" : ""));
    std::set<std::string> steps;
    if (context.foreign.watched()) {  // the steps it overlapped; discovery alone knows of none
      const model::Telemetry& t = *context.foreign.telemetry;
      for (const auto& process : t.processes) {
        if (process.own() || t.cuda_ordinal(process.nvml_index) != holder.cuda_ordinal) continue;
        for (const int index : process.steps) steps.insert(t.steps[static_cast<std::size_t>(index)].name);
      }
      for (const auto& load : context.foreign.idle_load) {
        if (load.cuda_ordinal != holder.cuda_ordinal) continue;
        for (const int index : load.steps_after) steps.insert(t.steps[static_cast<std::size_t>(index)].name);
      }
    }
    for (const auto& step : steps) {
      const std::string noise = step_noise_text(context.evidence, step);
      if (noise.rfind("its numbers moved", 0) == 0) moved = true;
      finding.evidence.push_back("  alongside " + step_label(context.evidence, step) + (noise.empty() ? "" : ": " + noise));
    }
    const auto limited = sizes_without_memory(context.evidence, holder.cuda_ordinal);
    if (!limited.empty()) {
      finding.evidence.push_back("  not measured for lack of free memory: " + join(limited, ", "));
    }
    add_gpu_once(finding.gpus, holder.cuda_ordinal);
  }
  const MemoryHolder& first = holders.front();
  finding.title = fmt::format("GPU{}'s memory is held by another process while the GPU is idle ({} of {})",
                              first.cuda_ordinal, format_bytes(static_cast<std::uint64_t>(first.held_bytes)),
                              format_bytes(static_cast<std::uint64_t>(first.total_bytes)));
  finding.explanation =
      !context.foreign.watched()
          ? "When the facts were read, the holder kept most of the GPU's memory without computing: the next job on "
            "this GPU gets only what is left (CUDA out-of-memory errors), and a doctor run now would measure the "
            "sizes that fit only. Run the live doctor to see whether it stays idle while measuring."
      : moved ? "The holder did no work while the doctor waited, but the numbers of the steps beside it moved: they "
              "may not describe the idle machine; noisy-measurement says more."
            : "The holder did no work: SMs, copy engines and links were free, and the steps beside it kept steady "
              "numbers, so they stand. What it takes is memory: sizes that needed more than was free were not "
              "measured, and the next job on this GPU gets only what is left (CUDA out-of-memory errors).";
  finding.cause = "a process that keeps its allocation without computing (a stopped or hung job, an idle notebook "
                  "kernel, a leaked context; in a VM or container the holder may be invisible)";
  finding.next_command = "nvidia-smi --query-compute-apps=pid,process_name,gpu_bus_id,used_memory --format=csv";
  finding.numbers["held_bytes"] = holders.front().held_bytes;
  return finding;
}

}  // namespace linkscope::diagnose
