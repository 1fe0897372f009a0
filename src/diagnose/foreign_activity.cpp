#include "diagnose/foreign_activity.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/evidence.hpp"
#include "diagnose/expectations.hpp"

namespace linkscope::diagnose {

namespace {

std::optional<ForeignProcess> judge_process(const model::Telemetry& t, const model::TelemetryProcess& p, bool& unattributed) {
  unattributed = false;
  if (p.own()) return std::nullopt;
  ForeignProcess out{&p, t.cuda_ordinal(p.nvml_index), ""};
  if (p.visible) {
    out.why = fmt::format("pid {} is in the doctor's PID namespace and is neither the doctor nor started by it", p.pid);
    return out;
  }
  const std::string namespace_note =
      fmt::format("pid {} is not in the doctor's PID namespace (NVML reports another namespace's pids, e.g. of a "
                  "container), so its owner could not be checked",
                  p.pid);
  if (p.samples_outside_steps > 0) {
    out.why = namespace_note + "; it was listed while no linkscope step ran";
    return out;
  }
  if (p.steps.size() >= 2) {
    out.why = namespace_note + fmt::format("; it was listed during {} steps, which no child of one step can be",
                                           p.steps.size());
    return out;
  }
  unattributed = true;
  out.why = namespace_note + "; it was listed during one step only, as that step's own child would be";
  return out;
}

// The end of the doctor's last work before `t_s`: the end of the step that ended last before it, else the start of
// sampling (discovery ran just before).
double own_activity_end(const model::Telemetry& t, double t_s) {
  double end = 0;
  for (const auto& step : t.steps) {
    if (step.end_s && *step.end_s <= t_s) end = std::max(end, *step.end_s);
  }
  return end;
}

// Number of steps begun before `t_s`: which quiet window a sample is in.
int window_of(const model::Telemetry& t, double t_s) {
  return static_cast<int>(std::count_if(t.steps.begin(), t.steps.end(),
                                        [&](const model::TelemetryStep& s) { return s.start_s <= t_s; }));
}

bool own_process_on(const model::Telemetry& t, int nvml_index, double from_s, double to_s) {
  return std::any_of(t.processes.begin(), t.processes.end(), [&](const model::TelemetryProcess& p) {
    return p.own() && p.nvml_index == nvml_index && p.first_seen_s <= to_s && p.last_seen_s >= from_s;
  });
}

void find_idle_load(const model::Telemetry& t, const model::TelemetryGpu& gpu, std::vector<IdleLoad>& out) {
  const double settle = threshold(Threshold::kUtilizationSettleSeconds);
  const auto util_min = static_cast<int>(threshold(Threshold::kForeignUtilizationMin));
  const auto memory_min = static_cast<std::int64_t>(threshold(Threshold::kForeignMemoryMinBytes));
  std::map<int, IdleLoad> loaded;  // by quiet window
  std::set<int> idle_windows;      // windows with a judged sample that showed nothing
  for (const auto& s : gpu.samples) {
    if (s.step || t.step_at(s.t_s)) continue;
    if (s.t_s < own_activity_end(t, s.t_s) + settle) continue;
    const double to = s.t_s + s.span_s;
    const bool busy = s.gpu_util_percent.value_or(0) >= util_min;
    const bool holds_memory = s.memory_used_bytes.value_or(0) >= memory_min && !own_process_on(t, gpu.nvml_index, s.t_s, to);
    const int window = window_of(t, s.t_s);
    if (!busy && !holds_memory) {
      idle_windows.insert(window);
      continue;
    }
    auto [it, fresh] = loaded.try_emplace(window);
    IdleLoad& load = it->second;
    if (fresh) {
      load.nvml_index = gpu.nvml_index;
      load.cuda_ordinal = gpu.cuda_ordinal;
      load.from_s = s.t_s;
    }
    load.to_s = to;
    ++load.samples;
    if (s.gpu_util_percent) load.max_util_percent = std::max(load.max_util_percent.value_or(0), *s.gpu_util_percent);
    if (holds_memory) load.max_memory_bytes = std::max(load.max_memory_bytes.value_or(0), *s.memory_used_bytes);
  }
  for (auto& [window, load] : loaded) {
    // The steps after the window, until a later window in which the GPU was seen idle.
    for (int step = window; step < static_cast<int>(t.steps.size()); ++step) {
      if (step > window && idle_windows.count(step) != 0) break;
      load.steps_after.push_back(step);
    }
    out.push_back(std::move(load));
  }
}

}  // namespace

std::string process_text(const model::TelemetryProcess& p) {
  std::string text = fmt::format("pid {}", p.pid);
  if (!p.name.empty()) text += " " + p.name;
  if (p.max_used_memory_bytes) text += " (" + format_bytes(static_cast<std::uint64_t>(*p.max_used_memory_bytes)) + ")";
  return text;
}

ForeignActivity find_foreign_activity(const model::Run& run) {
  ForeignActivity activity;
  if (!run.measurements.telemetry) return activity;
  const model::Telemetry& t = *run.measurements.telemetry;
  activity.telemetry = &t;
  for (const auto& p : t.processes) {
    bool unattributed = false;
    if (auto judged = judge_process(t, p, unattributed)) {
      (unattributed ? activity.unattributed : activity.foreign).push_back(std::move(*judged));
    }
  }
  for (const auto& gpu : t.gpus) find_idle_load(t, gpu, activity.idle_load);
  return activity;
}

std::vector<int> ForeignActivity::busy_ordinals() const {
  std::set<int> busy;
  for (const auto& f : foreign) {
    if (f.cuda_ordinal) busy.insert(*f.cuda_ordinal);
  }
  for (const auto& load : idle_load) {
    if (load.cuda_ordinal) busy.insert(*load.cuda_ordinal);
  }
  return {busy.begin(), busy.end()};
}

std::string ForeignActivity::text(int cuda_ordinal) const {
  std::vector<std::string> parts;
  for (const auto& f : foreign) {
    if (f.cuda_ordinal == cuda_ordinal) parts.push_back(process_text(*f.process));
  }
  for (const auto& load : idle_load) {
    if (load.cuda_ordinal != cuda_ordinal) continue;
    std::string what = load.max_util_percent && *load.max_util_percent > 0
                           ? fmt::format("{}% utilization", *load.max_util_percent)
                           : std::string();
    if (load.max_memory_bytes) {
      what += (what.empty() ? "" : " and ") +
              format_bytes(static_cast<std::uint64_t>(*load.max_memory_bytes)) + " of memory in use";
    }
    parts.push_back(what + " while no linkscope step ran");
  }
  return join(parts, ", ");
}

namespace {

bool holds_most(const MemoryHolder& holder) {
  return holder.total_bytes > 0 && static_cast<double>(holder.held_bytes) / static_cast<double>(holder.total_bytes) >=
                                       threshold(Threshold::kMemoryHeldShare);
}

// Without telemetry (a capture, a saved topo run): the processes and the utilization discovery read at one moment.
std::vector<MemoryHolder> holders_at_discovery(const model::Run& run) {
  std::vector<MemoryHolder> holders;
  const auto util_min = static_cast<int>(threshold(Threshold::kForeignUtilizationMin));
  for (const auto& gpu : run.system.gpus) {
    if (!gpu.cuda_ordinal || !gpu.memory_bytes || !gpu.processes || !gpu.utilization.gpu_percent) continue;
    if (*gpu.utilization.gpu_percent >= util_min) continue;
    MemoryHolder holder;
    holder.cuda_ordinal = *gpu.cuda_ordinal;
    holder.total_bytes = *gpu.memory_bytes;
    std::vector<std::string> who;
    for (const auto& process : *gpu.processes) {
      if (named_like_linkscope(process) || !process.used_memory_bytes) continue;
      holder.held_bytes += *process.used_memory_bytes;
      who.push_back(fmt::format("pid {}{} ({})", process.pid, process.name.empty() ? "" : " " + process.name,
                                format_bytes(static_cast<std::uint64_t>(*process.used_memory_bytes))));
    }
    if (who.empty() || !holds_most(holder)) continue;
    holder.who = join(who, ", ") + fmt::format(" (utilization {}% when discovery read it)", *gpu.utilization.gpu_percent);
    holders.push_back(std::move(holder));
  }
  return holders;
}

}  // namespace

std::vector<MemoryHolder> memory_holders(const ForeignActivity& activity, const model::Run& run) {
  if (!activity.watched()) return holders_at_discovery(run);
  std::vector<MemoryHolder> holders;
  for (const int ordinal : activity.busy_ordinals()) {
    const model::Gpu* gpu = run.system.gpu_by_cuda_ordinal(ordinal);
    if (gpu == nullptr || !gpu->memory_bytes || *gpu->memory_bytes <= 0) continue;
    MemoryHolder holder;
    holder.cuda_ordinal = ordinal;
    holder.total_bytes = *gpu->memory_bytes;
    // Only what was seen while no step ran tells memory held from work done: a process listed during steps alone
    // may have computed with them.
    bool computed = false, seen_idle = false;
    std::vector<std::string> who;
    for (const auto& load : activity.idle_load) {
      if (load.cuda_ordinal != ordinal) continue;
      if (load.max_util_percent && *load.max_util_percent >= threshold(Threshold::kForeignUtilizationMin)) {
        computed = true;
      }
      if (load.max_memory_bytes) {
        seen_idle = true;
        holder.held_bytes = std::max(holder.held_bytes, *load.max_memory_bytes);
      }
    }
    for (const auto& f : activity.foreign) {
      if (f.cuda_ordinal != ordinal) continue;
      who.push_back(process_text(*f.process));
      if (f.process->max_used_memory_bytes) {
        holder.held_bytes = std::max(holder.held_bytes, *f.process->max_used_memory_bytes);
      }
    }
    if (computed || !seen_idle || !holds_most(holder)) continue;
    holder.who = who.empty() ? "no process NVML lists (a VM, or another PID namespace)" : join(who, ", ");
    holders.push_back(std::move(holder));
  }
  return holders;
}

}  // namespace linkscope::diagnose
