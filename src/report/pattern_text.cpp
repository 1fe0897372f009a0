#include "report/pattern_text.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/size.hpp"
#include "core/text.hpp"

namespace linkscope::report {

namespace {

using model::PointStatus;

std::string node_label(const model::PatternResult& r) { return r.cpu_node ? fmt::format("{}", *r.cpu_node) : "-"; }

std::string optional_gbps(const std::optional<double>& value) { return value ? format_number(*value) : "-"; }

}  // namespace

std::string render_patterns_text(const model::PatternRun& run) {
  std::string out;
  const model::PatternSettings settings = model::pattern_settings(run);
  out += fmt::format("linkscope patterns: {} per edge, method {}{}, verification {}\n", format_size(settings.bytes),
                     settings.method, settings.sm_kernel ? fmt::format(" [{}]", *settings.sm_kernel) : "",
                     settings.verify ? "on" : "OFF");
  for (const auto& d : run.devices) out += fmt::format("  GPU {}  {}  {}  {}\n", d.id, d.name, d.pci_bdf, d.uuid);
  out += "aggregate = all payload bytes / (last stop - first start) over every stream; scaling = aggregate / sum of\n"
         "each edge measured alone (1.0 = the edges do not slow each other down)\n";
  for (const auto& note : run.notes) out += "note: " + note + "\n";

  const bool numa = std::any_of(run.patterns.begin(), run.patterns.end(), [](const auto& r) { return r.cpu_node.has_value(); });
  out += fmt::format("\n{:<14}{} {:>5} {:>10} {:>10} {:>8} {:>6} {:>7}  {}\n", "pattern", numa ? fmt::format(" {:>4}", "node") : "",
                     "edges", "aggregate", "sum alone", "scaling", "CV", "samples", "status");
  for (const auto& r : run.patterns) {
    const std::string node = numa ? fmt::format(" {:>4}", node_label(r)) : "";
    if (!r.aggregate_gbps) {
      out += fmt::format("{:<14}{} {:>5} {:>10} {:>10} {:>8} {:>6} {:>7}  {}: {}\n", r.name, node,
                         r.edges.empty() ? "-" : std::to_string(r.edges.size()), "-", "-", "-", "-", "-",
                         r.status == PointStatus::kNa ? "skipped" : model::to_string(r.status), r.reason);
      continue;
    }
    out += fmt::format("{:<14}{} {:>5} {:>10} {:>10} {:>8} {:>6} {:>7}  {}\n", r.name, node, r.edges.size(),
                       format_number(r.aggregate_gbps->median), optional_gbps(r.sum_alone_gbps),
                       r.scaling ? fmt::format("{:.3f}", *r.scaling) : "-", format_percent(r.cv), r.samples,
                       r.status == PointStatus::kOk ? "ok" : fmt::format("{}: {}", model::to_string(r.status), r.reason));
  }

  bool any_edges = false;
  for (const auto& r : run.patterns) any_edges = any_edges || (r.aggregate_gbps && !r.edges.empty());
  if (any_edges) {
    out += fmt::format("\nEdges (GB/s median while the whole pattern ran / measured alone{})\n",
                       numa ? "; @N = submitted from NUMA node N" : "");
    for (const auto& r : run.patterns) {
      if (!r.aggregate_gbps) continue;
      std::string line = fmt::format("{:<18}", r.name + (numa ? fmt::format(" @{}", node_label(r)) : ""));
      for (const auto& e : r.edges) {
        line += fmt::format("  {}>{} {} / {}", e.src, e.dst, e.bandwidth_gbps ? format_number(e.bandwidth_gbps->median) : "-",
                            optional_gbps(e.alone_gbps));
      }
      out += line + "\n";
      for (const auto& e : r.edges) {
        if (!e.alone_reason.empty()) out += fmt::format("  {}>{} alone: {}\n", e.src, e.dst, e.alone_reason);
      }
    }
  }

  if (run.numa) {
    const auto& sweep = *run.numa;
    std::string nodes;
    for (int n : sweep.nodes) nodes += (nodes.empty() ? "" : ",") + std::to_string(n);
    if (sweep.largest_relative_difference) {
      out += fmt::format("\nNUMA sweep over nodes {}: largest relative difference {} ({})\n", nodes,
                         format_percent(*sweep.largest_relative_difference), sweep.pattern);
    } else {
      out += fmt::format("\nNUMA sweep over nodes {}: {}\n", nodes, sweep.reason);
    }
  }

  const std::uint64_t wrong = model::total_wrong(run.patterns);
  if (settings.verify) {
    out += wrong == 0 ? "\nVerification: every destination matched its source after every sample (#wrong 0)\n"
                      : fmt::format("\nVerification FAILED: #wrong {} words\n", wrong);
  } else {
    out += "\nVerification: OFF (--no-verify)\n";
  }
  return without_trailing_spaces(out);
}

}  // namespace linkscope::report
