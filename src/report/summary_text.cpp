#include "report/summary_text.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "core/terminal_text.hpp"
#include "core/text.hpp"
#include "report/cluster_tables.hpp"
#include "report/fleet_section.hpp"
#include "report/four_numbers_rows.hpp"
#include "report/prediction_report.hpp"
#include "report/report_data.hpp"
#include "report/report_format.hpp"

namespace linkscope::report {

std::string render_findings_text(const model::Run& run) {
  const DiagnosisTally tally = tally_diagnosis(run);
  std::string out = run.findings.empty() ? "\nFindings: none\n"
                                         : fmt::format("\nFindings: {} error, {} warning, {} info\n", tally.errors,
                                                       tally.warnings, tally.infos);
  for (const auto& f : run.findings) {
    out += fmt::format("  {:<8} {:<25} {}\n", severity_label(f.severity), visible_field(f.id), visible_field(f.title));
    if (!f.cause.empty()) out += fmt::format("  {:<8} cause: {}\n", "", visible_field(clip(f.cause, 96)));
    if (!f.next_command.empty()) out += fmt::format("  {:<8} next:  {}\n", "", visible_field(f.next_command));
  }
  return out;
}

std::string render_soak_text(const model::Run& run) {
  if (!run.measurements.soak) return "";
  const model::Soak& soak = *run.measurements.soak;
  const double seconds = soak.cycles.empty() ? 0 : soak.cycles.back().start_s + soak.cycles.back().seconds;
  return fmt::format("\nSoak: {} cycle(s) in {:.0f} s of {:.0f} s asked; {}\n", soak.cycles.size(), seconds,
                     soak.requested_s, soak.ended.empty() ? "still running" : visible_field(soak.ended));
}

std::string render_summary_text(const model::Run& run) {
  const ReportData data = collect_report_data(run);
  std::string out;
  const auto& m = data.machine;
  out += fmt::format("linkscope {}: {}{}\n", run.config.subcommand.empty() ? "report" : run.config.subcommand,
                     run.config.host.empty() ? "" : visible_field(run.config.host) + ", ",
                     m.gpu_description.empty() ? "no GPU facts" : visible_field(m.gpu_description));
  std::vector<std::string> versions;
  // Each value is one field of one line: a line break inside one (a crafted GPU name) is shown, never obeyed.
  if (!m.driver_version.empty()) versions.push_back("driver " + visible_field(m.driver_version));
  if (!m.cuda_version.empty()) versions.push_back("CUDA " + visible_field(m.cuda_version));
  if (!m.nccl_version.empty()) versions.push_back("NCCL " + visible_field(m.nccl_version));
  if (!versions.empty()) out += "  " + join(versions, ", ") + "\n";
  out += cluster_summary_lines(run);

  out += render_soak_text(run);
  out += render_findings_text(run);

  if (!run.hypotheses.empty()) {
    const DiagnosisTally tally = tally_diagnosis(run);
    out += fmt::format("\nHypotheses: {} confirmed, {} refuted, {} inconclusive, {} untested\n", tally.confirmed,
                       tally.refuted, tally.inconclusive, tally.untested);
    for (const auto& h : run.hypotheses) {
      out += fmt::format("  {:<12} {:<30} {}\n", model::verdict_name(h.verdict), h.id, clip(h.evidence, 66));
    }
  }

  if (run.config.stopped) out += "\nStopped early: " + *run.config.stopped + "\n";
  if (!run.config.skipped.empty()) {  // grouped by reason: "patterns, coll all_reduce: one GPU: ..."
    std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
    for (const auto& skipped : run.config.skipped) {
      auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& g) { return g.first == skipped.reason; });
      if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {skipped.reason, {}});
      it->second.push_back(skipped.step);
    }
    out += "\nNot run on this machine:\n";
    for (const auto& [reason, steps] : by_reason) out += "  " + join(steps, ", ") + ": " + clip(reason, 96) + "\n";
  }

  if (run.fleet) out += render_fleet_text(*run.fleet);
  out += prediction_text(data);

  const auto rows = four_numbers(data);
  if (!rows.empty()) out += "\nKey numbers (per direction):\n";
  for (const auto& row : rows) out += fmt::format("  {} pairs: {}\n", row.pair_type, key_numbers_text(row, " | "));
  return out;
}

}  // namespace linkscope::report
