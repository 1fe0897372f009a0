#include "report/compare_runs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "diagnose/evidence.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/finding.hpp"
#include "diagnose/json_access.hpp"
#include "core/text.hpp"

namespace linkscope::report {

namespace {

using diagnose::Evidence;

// One comparable number of a run.
struct Measure {
  double value = 0;
  std::string unit;
  bool higher_is_better = true;
  std::optional<double> noise;  // relative
  std::string category;
  std::string what;
};

using MeasureMap = std::map<std::string, Measure>;  // key -> measure

std::uint64_t latency_bound_bytes() {
  return static_cast<std::uint64_t>(diagnose::threshold(diagnose::Threshold::kLatencyBoundMaxBytes));
}

std::string env_text(const std::map<std::string, std::string>& env) {
  std::string text;
  for (const auto& [k, v] : env) text += (text.empty() ? "" : ",") + k + "=" + v;
  return text;
}

MeasureMap measures_of(const RunDocument& run) {
  const Evidence evidence = diagnose::collect_evidence(run);
  const double assumed = diagnose::threshold(diagnose::Threshold::kCompareLatencyBoundNoise);
  MeasureMap map;
  for (const auto& p : evidence.p2p) {
    if (!p.ok()) continue;
    const std::string id = fmt::format("{} {} GPU{}->GPU{} at {}", p.method, p.direction, p.src, p.dst,
                                       format_bytes(p.bytes));
    Measure m;
    m.category = "p2p";
    if (p.bytes <= latency_bound_bytes()) {
      // Latency-bound: compare the time, with an assumed noise when the run recorded none.
      m.value = p.time_us ? *p.time_us : static_cast<double>(p.bytes) / (*p.bandwidth_gbps * 1e3);
      m.unit = "us";
      m.higher_is_better = false;
      m.noise = p.relative_noise() ? p.relative_noise() : std::optional<double>(assumed);
      m.what = id + " (time)";
    } else {
      m.value = *p.bandwidth_gbps;
      m.unit = "GB/s";
      m.noise = p.relative_noise();
      m.what = id;
    }
    map["p2p|" + id] = m;
  }
  for (const auto& l : evidence.latency) {
    if (l.status != "ok" || !l.latency_ns) continue;
    const std::string id = fmt::format("{} GPU{}->GPU{}", l.method, l.src, l.dst);
    map["latency|" + id] = {*l.latency_ns, "ns", false, std::nullopt, "latency", id};
  }
  const auto& host = diagnose::array_or_empty(diagnose::object_or_empty(run.measurements, "p2p"), "host");
  for (const auto& entry : host) {
    const auto bw = diagnose::opt_median(entry, "bandwidth_gbps");
    if (!bw) continue;
    const std::string id = fmt::format("{} GPU{} at {}", diagnose::string_or(entry, "direction", "?"),
                                       diagnose::opt_int(entry, "gpu").value_or(-1),
                                       format_bytes(static_cast<std::uint64_t>(diagnose::opt_int(entry, "bytes").value_or(0))));
    map["host|" + id] = {*bw, "GB/s", true, std::nullopt, "host", id};
  }
  for (const auto& p : evidence.collectives) {
    if (!p.ok() || p.bytes == 0) continue;
    const std::string env = env_text(p.env);
    const std::string id = fmt::format("{}{}{} {} ranks at {}{}", p.op, p.graph ? " (graph)" : "",
                                       p.in_place ? " in-place" : "", p.nranks, format_bytes(p.bytes),
                                       env.empty() ? "" : " [" + env + "]");
    Measure m;
    m.category = "collective";
    if (p.bytes <= latency_bound_bytes()) {
      if (!p.time_us) continue;
      m.value = *p.time_us;
      m.unit = "us";
      m.higher_is_better = false;
      m.noise = p.relative_noise() ? p.relative_noise() : std::optional<double>(assumed);
      m.what = id + " (time)";
    } else {
      m.value = *p.busbw_gbps;
      m.unit = "GB/s";
      m.noise = p.relative_noise();
      m.what = id + " busbw";
    }
    map["collective|" + id] = m;
  }
  for (const auto& pattern : evidence.patterns) {
    if (pattern.status != "ok" || !pattern.aggregate_gbps) continue;
    const std::string id = fmt::format("{} at {}", pattern.name, format_bytes(pattern.bytes));
    map["pattern|" + id] = {*pattern.aggregate_gbps, "GB/s", true, std::nullopt, "pattern", id + " aggregate"};
  }
  for (const auto& layer : evidence.ladder) {
    if (layer.status != "ok" || !layer.busbw_gbps) continue;
    map["ladder|" + layer.name] = {*layer.busbw_gbps, "GB/s", true, std::nullopt, "ladder", layer.name + " busbw"};
  }
  return map;
}

std::string value_text(double value, const std::string& unit) { return format_number(value) + " " + unit; }

void compare_measures(const RunDocument& base, const RunDocument& current, Comparison& out) {
  const MeasureMap a = measures_of(base);
  const MeasureMap b = measures_of(current);
  for (const auto& [key, before] : a) {
    const auto it = b.find(key);
    if (it == b.end()) {
      ++out.only_in_base;
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

void compare_findings(const RunDocument& base, const RunDocument& current, Comparison& out) {
  std::map<std::string, diagnose::Finding> before, after;
  for (const auto& f : diagnose::findings_from_json(base.findings)) before[f.id] = f;
  for (const auto& f : diagnose::findings_from_json(current.findings)) after[f.id] = f;
  for (const auto& [id, f] : after) {
    const auto it = before.find(id);
    const std::string severity(diagnose::severity_name(f.severity));
    if (it == before.end()) {
      Change change{"finding", id + ": " + f.title, "absent", severity, std::nullopt, std::nullopt,
                    f.severity >= diagnose::Severity::kWarning ? ChangeKind::kWorse : ChangeKind::kChanged,
                    f.severity >= diagnose::Severity::kWarning};
      out.changes.push_back(change);
    } else if (it->second.severity != f.severity) {
      const bool worse = f.severity > it->second.severity;
      out.changes.push_back({"finding", id + ": " + f.title, std::string(diagnose::severity_name(it->second.severity)),
                             severity, std::nullopt, std::nullopt, worse ? ChangeKind::kWorse : ChangeKind::kBetter,
                             worse && f.severity >= diagnose::Severity::kWarning});
    }
  }
  for (const auto& [id, f] : before) {
    if (after.count(id) == 0) {
      out.changes.push_back({"finding", id + ": " + f.title, std::string(diagnose::severity_name(f.severity)),
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

void compare_topology(const RunDocument& base, const RunDocument& current, Comparison& out) {
  const Evidence a = diagnose::collect_evidence(base);
  const Evidence b = diagnose::collect_evidence(current);
  if (!a.system_known || !b.system_known) return;
  const auto count_a = a.visible_ordinals().size(), count_b = b.visible_ordinals().size();
  compare_fact(out, "visible GPUs", std::to_string(count_a), std::to_string(count_b), double(count_a), double(count_b));
  compare_fact(out, "driver version", diagnose::string_or(diagnose::object_or_empty(base.system, "driver"), "version", ""),
               diagnose::string_or(diagnose::object_or_empty(current.system, "driver"), "version", ""));
  compare_fact(out, "NCCL version", a.nccl_version, b.nccl_version);
  bool uuid_differs = false;
  for (const int ordinal : a.visible_ordinals()) {
    const auto* ga = a.gpu(ordinal);
    const auto* gb = b.gpu(ordinal);
    if (ga == nullptr || gb == nullptr) continue;
    uuid_differs = uuid_differs || ga->uuid != gb->uuid;
    const std::string who = fmt::format("GPU{} ", ordinal);
    compare_fact(out, who + "name", ga->name, gb->name);
    if (ga->nvlinks_known && gb->nvlinks_known) {
      compare_fact(out, who + "active NVLinks", std::to_string(ga->active_nvlinks()), std::to_string(gb->active_nvlinks()),
                   ga->active_nvlinks(), gb->active_nvlinks());
      const auto ra = ga->active_nvlink_rate_gbps(), rb = gb->active_nvlink_rate_gbps();
      if (ra && rb && std::fabs(*ra - *rb) > 0.01 * std::max(*ra, *rb)) {
        compare_fact(out, who + "NVLink rate", value_text(*ra, "GB/s"), value_text(*rb, "GB/s"), *ra, *rb);
      }
    }
    const auto pa = ga->pcie_rate_gbps(), pb = gb->pcie_rate_gbps();
    if (pa && pb) {
      compare_fact(out, who + "PCIe link",
                   fmt::format("Gen{} x{}", *ga->pcie.current_gen, *ga->pcie.current_width),
                   fmt::format("Gen{} x{}", *gb->pcie.current_gen, *gb->pcie.current_width), *pa, *pb);
    }
  }
  if (uuid_differs) out.notes.push_back("GPU UUIDs differ between the runs: GPUs are matched by CUDA ordinal");
  for (const auto& pair : a.pairs) {
    const auto* other = b.pair(pair.a, pair.b);
    if (other == nullptr) continue;
    compare_fact(out, fmt::format("GPU{}-GPU{} relation", pair.a, pair.b), pair.relation, other->relation,
                 pair.nvlink_count ? std::optional<double>(*pair.nvlink_count) : std::nullopt,
                 other->nvlink_count ? std::optional<double>(*other->nvlink_count) : std::nullopt);
  }
}

std::string run_label(const RunDocument& run) {
  std::string host = diagnose::string_or(run.config, "host", "");
  std::string started = diagnose::string_or(run.config, "started_at", "");
  if (host.empty() && started.empty()) return "";
  return host + (started.empty() ? "" : (host.empty() ? "" : ", ") + started);
}

}  // namespace

bool Comparison::regressed() const {
  return std::any_of(changes.begin(), changes.end(), [](const Change& c) { return c.regression; });
}

double parse_threshold(std::string_view text) {
  std::string value(text);
  if (!value.empty() && value.back() == '%') value.pop_back();
  char* end = nullptr;
  const double percent = value.empty() ? -1 : std::strtod(value.c_str(), &end);
  if (value.empty() || end == nullptr || *end != '\0' || !std::isfinite(percent) || percent < 0 || percent >= 100) {
    throw UsageError(fmt::format("--threshold {}: expected a percentage such as 5% (0 to 100)", text));
  }
  return percent / 100.0;
}

Comparison compare_runs(const RunDocument& base, const RunDocument& current, double threshold) {
  Comparison out;
  out.threshold = threshold;
  out.base_label = run_label(base);
  out.current_label = run_label(current);
  compare_topology(base, current, out);
  compare_findings(base, current, out);
  compare_measures(base, current, out);
  return out;
}

std::string render_comparison_text(const Comparison& c) {
  std::string out = fmt::format("linkscope compare: {} -> {}\n", c.base_label.empty() ? "base" : c.base_label,
                                c.current_label.empty() ? "new" : c.current_label);
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
  for (const auto& note : c.notes) out += "Note: " + note + "\n";
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
      out += fmt::format("  {:<10} {:<44} {:>14} -> {:<14} {}\n", ch->category, ch->what, ch->base, ch->current, delta);
    }
  };
  list(ChangeKind::kWorse, "WORSE");
  list(ChangeKind::kBetter, "BETTER");
  list(ChangeKind::kChanged, "CHANGED (no better or worse)");
  const std::string threshold = fmt::format("{:g}%", c.threshold * 100.0);
  out += c.regressed() ? fmt::format("\nResult: REGRESSION beyond {} (exit 6)\n", threshold)
                       : fmt::format("\nResult: no regression beyond {}\n", threshold);
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
          {"only_in_new", c.only_in_current}, {"notes", c.notes},  {"changes", changes},
          {"regressed", c.regressed()}};
}

}  // namespace linkscope::report
