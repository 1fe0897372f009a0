#include "report/compare_runs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/terminal_text.hpp"
#include "core/text.hpp"
#include "model/host_copy_kind.hpp"
#include "diagnose/comparable_measures.hpp"
#include "diagnose/evidence.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"
#include "model/link_rate.hpp"
#include "report/compare_predictions.hpp"
#include "report/fleet_section.hpp"

namespace linkscope::report {

namespace {

using diagnose::copy_gbps;
using diagnose::copy_ok;
using diagnose::Evidence;
using diagnose::latency_bound_bytes;
using diagnose::Measure;
using diagnose::MeasureMap;
using model::Run;

// The text lists this many missing numbers, then how many more (a run that lost a whole sweep misses hundreds).
constexpr std::size_t kMissingListed = 20;


std::string value_text(double value, const std::string& unit) { return format_number(value) + " " + unit; }

void compare_measures(const Run& base, const Run& current, Comparison& out) {
  const MeasureMap a = diagnose::comparable_measures(base);
  const MeasureMap b = diagnose::comparable_measures(current);
  for (const auto& [key, before] : a) {
    const auto it = b.find(key);
    if (it == b.end()) {
      ++out.only_in_base;
      out.missing.push_back(before.what);
      continue;
    }
    const Measure& after = it->second;
    ++out.compared;
    if (before.value <= 0) {
      ++out.within;
      continue;
    }
    const double relative = (after.value - before.value) / before.value;
    std::optional<double> noise;
    if (before.noise && after.noise) noise = std::hypot(*before.noise, *after.noise);
    else if (before.noise) noise = before.noise;
    else if (after.noise) noise = after.noise;
    const double magnitude = std::fabs(relative);
    if (magnitude <= out.threshold || (noise && magnitude <= *noise)) {
      ++out.within;
      continue;
    }
    const bool better = before.higher_is_better ? relative > 0 : relative < 0;
    Change change;
    change.category = before.category;
    change.what = before.what;
    change.base = value_text(before.value, before.unit);
    change.current = value_text(after.value, after.unit);
    change.relative = relative;
    change.noise = noise;
    change.kind = better ? ChangeKind::kBetter : ChangeKind::kWorse;
    change.regression = !better;
    out.changes.push_back(change);
  }
  for (const auto& [key, after] : b) {
    if (a.count(key) == 0) ++out.only_in_current;
  }
}

void compare_findings(const Run& base, const Run& current, Comparison& out) {
  std::map<std::string, const model::Finding*> before, after;
  for (const auto& f : base.findings) before[f.id] = &f;
  for (const auto& f : current.findings) after[f.id] = &f;
  using model::Severity;
  for (const auto& [id, found] : after) {
    const model::Finding& f = *found;
    const auto it = before.find(id);
    const std::string severity(model::severity_name(f.severity));
    if (it == before.end()) {
      Change change{"finding", id + ": " + f.title, "absent", severity, std::nullopt, std::nullopt,
                    f.severity >= Severity::kWarning ? ChangeKind::kWorse : ChangeKind::kChanged,
                    f.severity >= Severity::kWarning};
      out.changes.push_back(change);
    } else if (it->second->severity != f.severity) {
      const bool worse = f.severity > it->second->severity;
      out.changes.push_back({"finding", id + ": " + f.title, std::string(model::severity_name(it->second->severity)),
                             severity, std::nullopt, std::nullopt, worse ? ChangeKind::kWorse : ChangeKind::kBetter,
                             worse && f.severity >= Severity::kWarning});
    }
  }
  for (const auto& [id, f] : before) {
    if (after.count(id) == 0) {
      out.changes.push_back({"finding", id + ": " + f->title, std::string(model::severity_name(f->severity)),
                             "resolved", std::nullopt, std::nullopt, ChangeKind::kBetter, false});
    }
  }
}

// A fact with an order (more is better) or without one (versions, names).
void compare_fact(Comparison& out, const std::string& what, const std::string& before, const std::string& after,
                  std::optional<double> before_value = std::nullopt, std::optional<double> after_value = std::nullopt) {
  if (before == after || before.empty() || after.empty()) return;  // a fact one run did not record is no change
  Change change{"topology", what, before.empty() ? "absent" : before, after.empty() ? "absent" : after,
                std::nullopt, std::nullopt, ChangeKind::kChanged, false};
  if (before_value && after_value && *before_value != *after_value) {
    const bool worse = *after_value < *before_value;
    change.kind = worse ? ChangeKind::kWorse : ChangeKind::kBetter;
    change.regression = worse;
  }
  out.changes.push_back(change);
}

void compare_topology(const Run& base, const Run& current, Comparison& out) {
  if (!base.system.present || !current.system.present) return;
  const Evidence a(base);
  const Evidence b(current);
  const auto count_a = a.visible_ordinals().size(), count_b = b.visible_ordinals().size();
  compare_fact(out, "visible GPUs", std::to_string(count_a), std::to_string(count_b), double(count_a), double(count_b));
  compare_fact(out, "driver version", base.system.driver.version.value_or(""), current.system.driver.version.value_or(""));
  compare_fact(out, "NCCL version", a.nccl_version, b.nccl_version);
  bool uuid_differs = false;
  for (const int ordinal : a.visible_ordinals()) {
    const auto* ga = a.gpu(ordinal);
    const auto* gb = b.gpu(ordinal);
    if (ga == nullptr || gb == nullptr) continue;
    uuid_differs = uuid_differs || ga->uuid != gb->uuid;
    const std::string who = fmt::format("GPU{} ", ordinal);
    compare_fact(out, who + "name", ga->name, gb->name);
    if (ga->nvlinks.has_value() && gb->nvlinks.has_value()) {
      compare_fact(out, who + "active NVLinks", std::to_string(ga->active_nvlinks()), std::to_string(gb->active_nvlinks()),
                   ga->active_nvlinks(), gb->active_nvlinks());
      const auto ra = model::active_nvlink_rate(*ga), rb = model::active_nvlink_rate(*gb);
      if (ra && rb && std::fabs(*ra - *rb) > 0.01 * std::max(*ra, *rb)) {
        compare_fact(out, who + "NVLink rate", value_text(*ra, "GB/s"), value_text(*rb, "GB/s"), *ra, *rb);
      }
    }
    // The link's rate as model/link_rate states it (the highest generation at the trained width): a GPU whose
    // link idles at a lower generation is no change.
    const auto pa = model::pcie_link_rate(*ga), pb = model::pcie_link_rate(*gb);
    if (pa && pb) compare_fact(out, who + "PCIe link", pa->basis, pb->basis, pa->gbps, pb->gbps);
  }
  if (uuid_differs) out.notes.push_back("GPU UUIDs differ between the runs: GPUs are matched by CUDA ordinal");
  for (const auto& pair : a.pairs) {
    const auto* other = b.pair(pair.a, pair.b);
    if (other == nullptr) continue;
    compare_fact(out, fmt::format("GPU{}-GPU{} relation", pair.a, pair.b), pair.relation, other->relation,
                 pair.nvlink_count, other->nvlink_count);
  }
}

std::string run_label(const Run& run) {
  const std::string& host = run.config.host;
  const std::string& started = run.config.started_at;
  if (host.empty() && started.empty()) return "";
  return host + (started.empty() ? "" : (host.empty() ? "" : ", ") + started);
}

}  // namespace

bool Comparison::regressed() const {
  if (fleet && fleet->outside_count() > 0) return true;
  return std::any_of(changes.begin(), changes.end(), [](const Change& c) { return c.regression; });
}

double parse_threshold(std::string_view text) {
  std::string value(text);
  if (!value.empty() && value.back() == '%') value.pop_back();
  char* end = nullptr;
  const double percent = value.empty() ? -1 : std::strtod(value.c_str(), &end);
  if (value.empty() || end == nullptr || *end != '\0' || !std::isfinite(percent) || percent < 0 || percent > 100) {
    throw UsageError(fmt::format("--threshold {}: expected a percentage such as 5% (0 to 100; at 100% only a "
                                 "time that more than doubled is a regression)", text));
  }
  return percent / 100.0;
}

Comparison compare_runs(const Run& base, const Run& current, double threshold) {
  Comparison out;
  out.threshold = threshold;
  out.base_label = run_label(base);
  out.current_label = run_label(current);
  compare_topology(base, current, out);
  compare_findings(base, current, out);
  compare_measures(base, current, out);
  compare_predictions(base, current, out);
  return out;
}

std::string render_comparison_text(const Comparison& c) {
  std::string out = fmt::format("linkscope compare: {} -> {}\n", c.base_label.empty() ? "base" : visible_field(c.base_label),
                                c.current_label.empty() ? "new" : visible_field(c.current_label));
  out += fmt::format("A number changed when it moved by more than {:g}% and by more than the two points' combined "
                     "noise (CV/CI; {} assumed up to {} when none was recorded).\n",
                     c.threshold * 100.0,
                     format_percent(diagnose::threshold(diagnose::Threshold::kCompareLatencyBoundNoise)),
                     format_bytes(latency_bound_bytes()));
  int worse = 0, better = 0, facts = 0;
  for (const auto& ch : c.changes) {
    if (!ch.relative) {
      ++facts;
    } else {
      (ch.kind == ChangeKind::kWorse ? worse : better) += 1;
    }
  }
  out += fmt::format("Compared {} numbers present in both runs: {} worse, {} better, {} within the threshold or the "
                     "noise; {} only in the base run, {} only in the new run. {} finding/topology change(s).\n",
                     c.compared, worse, better, c.within, c.only_in_base, c.only_in_current, facts);
  for (const auto& note : c.notes) out += "Note: " + visible_field(note) + "\n";
  auto list = [&](ChangeKind kind, const char* heading) {
    std::vector<const Change*> items;
    for (const auto& ch : c.changes) {
      if (ch.kind == kind) items.push_back(&ch);
    }
    if (items.empty()) return;
    // Largest moves first.
    std::stable_sort(items.begin(), items.end(), [](const Change* x, const Change* y) {
      return std::fabs(x->relative.value_or(1e9)) > std::fabs(y->relative.value_or(1e9));
    });
    out += fmt::format("\n{}:\n", heading);
    for (const auto* ch : items) {
      std::string delta = ch->relative ? fmt::format("{:+.1f}%", *ch->relative * 100.0) : std::string();
      if (ch->noise) delta += fmt::format(" (noise {})", format_percent(*ch->noise));
      out += fmt::format("  {:<10} {:<44} {:>14} -> {:<14} {}\n", ch->category, visible_field(ch->what),
                         visible_field(ch->base), visible_field(ch->current), delta);
    }
  };
  list(ChangeKind::kWorse, "WORSE");
  list(ChangeKind::kBetter, "BETTER");
  list(ChangeKind::kChanged, "CHANGED (no better or worse)");
  const std::string threshold = fmt::format("{:g}%", c.threshold * 100.0);
  if (c.fleet) out += render_fleet_text(*c.fleet);
  if (!c.missing.empty()) {
    out += fmt::format("\nMISSING in the new run ({} of the base run's numbers):\n", c.missing.size());
    const std::size_t shown = std::min(c.missing.size(), kMissingListed);
    for (std::size_t i = 0; i < shown; ++i) out += "  " + visible_field(c.missing[i]) + "\n";
    if (shown < c.missing.size()) out += fmt::format("  ... and {} more (--format json lists all)\n", c.missing.size() - shown);
  }
  if (c.regressed()) {
    out += fmt::format("\nResult: REGRESSION beyond {} (exit 6)\n", threshold);
  } else if (c.fleet && !c.fleet->type_in_baseline) {
    out += "\nResult: FAILED: the new run's machine type is not in the baseline (exit 6)\n";
  } else if (c.fleet && c.fleet->metrics.empty()) {
    out += "\nResult: FAILED: no number of the new run is in the baseline (exit 6)\n";
  } else if (c.compared == 0) {
    out += "\nResult: FAILED: no number is present in both runs, nothing was compared (exit 6)\n";
  } else if (!c.missing.empty()) {
    out += fmt::format("\nResult: FAILED: {} number(s) of the base run missing in the new run (exit 6)\n",
                       c.missing.size());
  } else {
    out += fmt::format("\nResult: no regression beyond {}\n", threshold);
  }
  return out;
}

nlohmann::json comparison_to_json(const Comparison& c) {
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& ch : c.changes) {
    changes.push_back({{"category", ch.category},
                       {"what", ch.what},
                       {"base", ch.base},
                       {"new", ch.current},
                       {"relative_change", ch.relative ? nlohmann::json(*ch.relative) : nlohmann::json()},
                       {"noise", ch.noise ? nlohmann::json(*ch.noise) : nlohmann::json()},
                       {"kind", ch.kind == ChangeKind::kWorse ? "worse" : ch.kind == ChangeKind::kBetter ? "better" : "changed"},
                       {"regression", ch.regression}});
  }
  return {{"threshold", c.threshold}, {"base", c.base_label},       {"new", c.current_label},
          {"compared", c.compared},   {"within", c.within},         {"only_in_base", c.only_in_base},
          {"only_in_new", c.only_in_current}, {"missing_in_new", c.missing}, {"notes", c.notes},
          {"changes", changes}, {"regressed", c.regressed()}, {"nothing_compared", c.compared == 0},
          {"failed", c.failed()}, {"fleet", c.fleet ? model::to_json(*c.fleet) : nlohmann::json()}};
}

}  // namespace linkscope::report
