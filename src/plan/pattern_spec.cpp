#include "plan/pattern_spec.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::plan {

namespace {

int gpus_needed_for(std::string_view name) {
  if (name == "single" || name == "bidirectional") return 2;
  if (name == "disjoint") return 4;
  return 3;  // ring, fan-in, fan-out, all-to-all
}

std::string why_more(std::string_view name) {
  if (name == "disjoint") return "two pairs that share no GPU";
  if (name == "ring" || name == "all-to-all") return "with 2 GPUs it is the same as 'bidirectional'";
  if (name == "fan-in" || name == "fan-out") return "with 2 GPUs it is the same as 'single'";
  return "a pair of GPUs";
}

std::vector<DirectedPair> edges_for(std::string_view name, const std::vector<int>& d) {
  const std::size_t n = d.size();
  std::vector<DirectedPair> edges;
  if (name == "single") {
    edges = {{d[0], d[1]}};
  } else if (name == "bidirectional") {
    edges = {{d[0], d[1]}, {d[1], d[0]}};
  } else if (name == "disjoint") {
    for (std::size_t i = 0; i + 1 < n; i += 2) edges.push_back({d[i], d[i + 1]});
  } else if (name == "ring") {
    for (std::size_t i = 0; i < n; ++i) edges.push_back({d[i], d[(i + 1) % n]});
  } else if (name == "fan-in") {
    for (std::size_t i = 1; i < n; ++i) edges.push_back({d[i], d[0]});
  } else if (name == "fan-out") {
    for (std::size_t i = 1; i < n; ++i) edges.push_back({d[0], d[i]});
  } else {  // all-to-all
    edges = all_directed_pairs(d);
  }
  return edges;
}

}  // namespace

const std::vector<std::string>& pattern_preset_names() {
  static const std::vector<std::string> names = {"single", "bidirectional", "disjoint", "ring",
                                                 "fan-in", "fan-out",       "all-to-all"};
  return names;
}

PatternPlan make_preset(std::string_view name, const std::vector<int>& devices) {
  bool known = false;
  for (const auto& candidate : pattern_preset_names()) known = known || candidate == name;
  if (!known) {
    std::string list;
    for (const auto& candidate : pattern_preset_names()) list += (list.empty() ? "" : ", ") + candidate;
    throw UsageError(fmt::format("unknown pattern preset '{}' (known: {}, all)", name, list));
  }
  PatternPlan plan;
  plan.name = std::string(name);
  plan.gpus_needed = gpus_needed_for(name);
  const int present = static_cast<int>(devices.size());
  if (present < plan.gpus_needed) {
    plan.skip_reason = fmt::format("needs {} GPUs ({}), {} present", plan.gpus_needed, why_more(name), present);
    return plan;
  }
  plan.runnable = true;
  plan.spec = {plan.name, edges_for(name, devices)};
  return plan;
}

std::vector<PatternPlan> make_presets(std::string_view names, const std::vector<int>& devices) {
  std::vector<PatternPlan> plans;
  std::size_t start = 0;
  while (start <= names.size()) {
    std::size_t comma = names.find(',', start);
    if (comma == std::string_view::npos) comma = names.size();
    const std::string_view name = names.substr(start, comma - start);
    if (name == "all") {
      for (const auto& preset : pattern_preset_names()) plans.push_back(make_preset(preset, devices));
    } else {
      plans.push_back(make_preset(name, devices));
    }
    start = comma + 1;
  }
  return plans;
}

PatternSpec parse_edges_pattern(std::string_view text) { return {"edges", parse_pairs(text, "--edges")}; }

}  // namespace linkscope::plan
