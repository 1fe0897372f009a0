#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/run.hpp"

// `linkscope compare`: what changed between two runs, beyond noise. Numbers are matched by their identity
// (pair + method + direction + size, op + ranks + size, ladder layer, ...); a difference counts only when it is
// larger than the threshold AND than the two points' combined noise (CV or CI when recorded). Findings and
// topology facts (GPU count, NVLinks, PCIe links, versions) are compared too.
namespace linkscope::report {

enum class ChangeKind { kBetter, kWorse, kChanged };

struct Change {
  std::string category;  // "p2p", "latency", "host", "collective", "pattern", "ladder", "finding", "topology"
  std::string what;      // "ce GPU0->GPU1 at 512 MiB"
  std::string base, current;  // values as text ("393.8 GB/s", "absent", "warning")
  std::optional<double> relative;  // (current - base) / base for numbers
  std::optional<double> noise;     // combined relative noise that was exceeded
  ChangeKind kind = ChangeKind::kChanged;
  bool regression = false;  // worse beyond the threshold: fails the gate
};

struct Comparison {
  double threshold = 0.05;
  std::string base_label, current_label;
  std::vector<Change> changes;  // better/worse beyond threshold and noise, plus fact changes
  int compared = 0;             // numbers present in both runs
  int within = 0;               // of those, within the threshold or the noise
  int only_in_base = 0, only_in_current = 0;
  std::vector<std::string> missing;  // the base run's numbers the new run lacks ("ce GPU0->GPU1 at 512 MiB")
  std::vector<std::string> notes;  // e.g. "GPU UUIDs differ: matched by CUDA ordinal"
  // `compare --baseline`: the new run against the fleet's hosts of its machine type. Numbers outside the fleet fail
  // the gate as regressions do; a machine type the baseline lacks fails it as nothing compared does.
  std::optional<model::FleetComparison> fleet;
  bool regressed() const;
  // The gate cannot pass on what was not measured: a number of the base run missing in the new run, or no number
  // present in both runs (an empty or topology-only run on either side), fails it as a regression does (exit 6).
  bool incomplete() const {
    return !missing.empty() || compared == 0 || (fleet && (!fleet->type_in_baseline || fleet->metrics.empty()));
  }
  bool failed() const { return regressed() || incomplete(); }
};

// `threshold` is relative (0.05 = 5%).
Comparison compare_runs(const model::Run& base, const model::Run& current, double threshold);

// "5%", "5", "2.5%" -> 0.05 / 0.05 / 0.025 (the number is a percentage); throws UsageError otherwise.
double parse_threshold(std::string_view text);

std::string render_comparison_text(const Comparison& comparison);
// The comparison itself as JSON (`compare --format json`): a result of its own, not a run section.
nlohmann::json comparison_to_json(const Comparison& comparison);

}  // namespace linkscope::report
