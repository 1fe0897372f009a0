// noisy-measurement: numbers that do not describe the idle machine. Other work on a GPU during the run: with the
// doctor's telemetry, the processes that were not the doctor's (by pid, foreign_activity.hpp) and load while no step
// ran, each with the steps and sizes it overlapped and whether their numbers moved; without telemetry, the process
// list discovery took. Also large-size points whose coefficient of variation is high. Slow numbers that involve a
// busy GPU are quoted here (and not reported again as bandwidth-below-expected).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/counter_changes.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"
#include "diagnose/rules.hpp"
#include "diagnose/step_points.hpp"

namespace linkscope::diagnose {

namespace {

std::string seconds(double t) { return fmt::format("{:.1f} s", t); }

// "  during coll all_reduce (8 B - 64 MiB): its numbers did not move (CV at most 0.8% at >= 64 MiB)"
void add_step_lines(const Evidence& evidence, const model::Telemetry& t, const std::vector<int>& steps,
                    const std::string& lead, Finding& finding, std::set<std::string>& named_steps,
                    bool& every_step_still) {
  for (const int index : steps) {
    const std::string& name = t.steps[static_cast<std::size_t>(index)].name;
    const std::string noise = step_noise_text(evidence, name);
    if (noise.rfind("its numbers moved", 0) == 0) every_step_still = false;
    finding.evidence.push_back("  " + lead + step_label(evidence, name) + (noise.empty() ? "" : ": " + noise));
    named_steps.insert(name);
  }
}

// The telemetry's evidence; returns true when every step it names kept still numbers.
bool add_telemetry_evidence(const Context& context, Finding& finding, std::set<std::string>& named_steps,
                            std::vector<std::int64_t>& pids) {
  const Evidence& evidence = context.evidence;
  const model::Telemetry& t = *context.foreign.telemetry;
  bool still = true;
  for (const auto& f : context.foreign.foreign) {
    const model::TelemetryProcess& p = *f.process;
    finding.evidence.push_back(fmt::format("{}: {} is not the doctor's ({}); NVML listed it from {} to {}",
                                           telemetry_gpu_label(evidence, t, p.nvml_index), process_text(p), f.why,
                                           seconds(p.first_seen_s), seconds(p.last_seen_s)));
    add_step_lines(evidence, t, p.steps, "during ", finding, named_steps, still);
    if (p.steps.empty()) finding.evidence.push_back("  only while no linkscope step ran");
    pids.push_back(p.pid);
  }
  for (const auto& load : context.foreign.idle_load) {
    const bool explained = std::any_of(context.foreign.foreign.begin(), context.foreign.foreign.end(),
                                       [&](const ForeignProcess& f) { return f.process->nvml_index == load.nvml_index; });
    std::string what;
    if (load.max_util_percent && *load.max_util_percent > 0) what = fmt::format("{}% utilization", *load.max_util_percent);
    if (load.max_memory_bytes) {
      what += (what.empty() ? "" : " and ") + format_bytes(static_cast<std::uint64_t>(*load.max_memory_bytes)) +
              " of memory in use";
    }
    finding.evidence.push_back(fmt::format(
        "{}: {} from {} to {} while no linkscope step ran{}", telemetry_gpu_label(evidence, t, load.nvml_index), what,
        seconds(load.from_s), seconds(load.to_s),
        explained ? "" : " (NVML lists no process that explains it: a VM, or another PID namespace)"));
    add_step_lines(evidence, t, load.steps_after, "then, unless it stopped, alongside ", finding, named_steps, still);
  }
  for (const auto& u : context.foreign.unattributed) {
    const model::TelemetryProcess& p = *u.process;
    const std::string step = p.steps.empty() ? "" : " during " + t.steps[static_cast<std::size_t>(p.steps.front())].name;
    finding.evidence.push_back(fmt::format("{}: {}{} could not be attributed: {}",
                                           telemetry_gpu_label(evidence, t, p.nvml_index), process_text(p), step, u.why));
  }
  return still;
}

void add_discovery_evidence(const Context& context, Finding& finding) {
  for (const int gpu : context.busy_gpus) {
    const model::Gpu* facts = context.evidence.gpu(gpu);
    finding.evidence.push_back(fmt::format("GPU{} ({}) runs other processes: {}", gpu,
                                           facts != nullptr ? facts->pci_bdf : "?", context.processes_text(gpu)));
  }
}

// Copies and collectives below their expected share that involve a busy GPU.
void add_slow_numbers(const Context& context, Finding& finding) {
  const Evidence& evidence = context.evidence;
  for (const auto& judgement : plateau_copies(evidence)) {
    const auto& p = *judgement.point;
    if ((context.is_busy(p.src) || context.is_busy(p.dst)) && judgement.share < judgement.expected_share) {
      finding.evidence.push_back("while it ran: " + copy_line(judgement));
    }
  }
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kCollectivePlateauMinBytes));
  for (const auto& point : largest_collective_points(evidence, min_bytes)) {
    finding.evidence.push_back("while it ran: " + collective_line(evidence, point));
  }
}

}  // namespace

std::optional<Finding> rule_noisy_measurement(const Context& context) {
  const Evidence& evidence = context.evidence;
  Finding finding;
  finding.id = "noisy-measurement";

  std::set<std::string> named_steps;
  std::vector<std::int64_t> pids;
  bool numbers_still = true;
  if (context.foreign.watched()) {
    numbers_still = add_telemetry_evidence(context, finding, named_steps, pids);
  } else {
    add_discovery_evidence(context, finding);
  }
  finding.gpus = context.busy_gpus;
  if (!context.busy_gpus.empty()) add_slow_numbers(context, finding);
  const bool only_unattributed = context.busy_gpus.empty() && !finding.evidence.empty();

  // High variation at sizes where bandwidth, not latency, is measured.
  const double cv_limit = threshold(Threshold::kNoiseCvWarn);
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kBandwidthCompareMinBytes));
  std::vector<std::pair<double, std::string>> noisy;
  for (const auto* p : evidence.p2p) {
    if (copy_ok(*p) && p->bytes >= min_bytes && p->cv > cv_limit) {
      noisy.push_back({p->cv, fmt::format("{} {} GPU{}->GPU{} at {}: CV {}", p->method, p->direction, p->src, p->dst,
                                          format_bytes(p->bytes), format_percent(p->cv))});
    }
  }
  for (const auto& ref : evidence.collectives) {
    const auto cv = ref.cv();
    if (ref.ok() && ref.point->bytes >= min_bytes && cv && *cv > cv_limit) {
      noisy.push_back({*cv, fmt::format("{} at {}: CV {}", ref.op(), format_bytes(ref.point->bytes), format_percent(*cv))});
    }
  }
  std::sort(noisy.begin(), noisy.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  if (!noisy.empty()) {
    finding.evidence.push_back(fmt::format("{} point(s) at >= {} vary by more than {} (coefficient of variation):",
                                           noisy.size(), format_bytes(min_bytes), format_percent(cv_limit)));
    for (std::size_t i = 0; i < noisy.size() && i < 3; ++i) finding.evidence.push_back("  " + noisy[i].second);
  }
  if (finding.evidence.empty()) return std::nullopt;
  // Memory held by an idle process, with steady numbers beside it, is gpu-memory-held's finding, not noise.
  if (noisy.empty() && numbers_still && !context.busy_gpus.empty() && context.foreign.unattributed.empty()) {
    std::set<int> held;
    for (const auto& holder : memory_holders(context.foreign, evidence.run)) held.insert(holder.cuda_ordinal);
    if (std::all_of(context.busy_gpus.begin(), context.busy_gpus.end(), [&](int gpu) { return held.count(gpu) > 0; })) {
      return std::nullopt;
    }
  }

  // Variation alone is a warning when it is widespread or large; one or two points slightly above the limit on
  // an otherwise quiet run (seen on an idle 2 x H200: one 64 MiB all_reduce at CV 5.2%) are only noted, as is a
  // process that could not be attributed.
  const bool widespread = noisy.size() >= 3 || (!noisy.empty() && noisy.front().first > 2 * cv_limit);
  finding.severity = !context.busy_gpus.empty() || widespread ? Severity::kWarning : Severity::kInfo;
  if (!context.busy_gpus.empty()) {
    const int first = context.busy_gpus.front();
    const std::string during = named_steps.empty() ? "the run" : join({named_steps.begin(), named_steps.end()}, ", ");
    finding.title = fmt::format("GPU{} was busy with other work during {}", first, during);
    finding.cause = fmt::format("other work on GPU{}: {}", first, context.processes_text(first));
    finding.explanation =
        "Copies and collectives share SMs, copy engines and memory bandwidth with that work: numbers involving "
        "the busy GPU (typically one direction of its pairs, and every collective) are lower and do not describe "
        "the machine.";
    finding.explanation += !named_steps.empty() && numbers_still
                               ? " The steps it overlapped kept steady numbers, which shows the load was steady, "
                                 "not that it was harmless. Rerun when the GPUs are idle."
                               : " Rerun when the GPUs are idle.";
  } else if (only_unattributed && noisy.empty()) {
    finding.title = "a GPU process could not be attributed to the doctor or to another job";
    finding.cause = "NVML reports pids of another PID namespace (a container), so ownership could not be checked";
    finding.explanation = "Run the doctor in the host's PID namespace (docker --pid=host) to tell its own children "
                          "from other jobs.";
  } else {
    finding.title = "measurements at large sizes vary more than an idle machine's";
    finding.cause = "interference (other jobs, clock or power changes) or too few samples";
    finding.explanation = "A high coefficient of variation means single numbers are not reliable; differences "
                          "smaller than the variation are not real.";
  }
  if (!pids.empty()) finding.numbers["foreign_pids"] = pids;
  if (!named_steps.empty()) finding.numbers["steps"] = std::vector<std::string>(named_steps.begin(), named_steps.end());
  finding.next_command =
      "nvidia-smi --query-compute-apps=pid,process_name,gpu_bus_id,used_memory --format=csv; linkscope doctor";
  return finding;
}

}  // namespace linkscope::diagnose
