#include "report/summary_text.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "report/cluster_tables.hpp"
#include "report/four_numbers_rows.hpp"
#include "report/report_data.hpp"
#include "report/report_format.hpp"

namespace linkscope::report {

using diagnose::Severity;
using diagnose::Verdict;

std::string render_summary_text(const RunDocument& run) {
  const ReportData data = collect_report_data(run);
  std::string out;
  const auto& m = data.machine;
  out += fmt::format("linkscope {}: {}{}\n", m.subcommand.empty() ? "report" : m.subcommand,
                     m.host.empty() ? "" : m.host + ", ", m.gpu_description.empty() ? "no GPU facts" : m.gpu_description);
  std::string versions;
  if (!m.driver_version.empty()) versions += "driver " + m.driver_version;
  if (!m.cuda_version.empty()) versions += (versions.empty() ? "" : ", ") + std::string("CUDA ") + m.cuda_version;
  if (!m.nccl_version.empty()) versions += (versions.empty() ? "" : ", ") + std::string("NCCL ") + m.nccl_version;
  if (!versions.empty()) out += "  " + versions + "\n";
  out += cluster_summary_lines(run);

  int counts[3] = {0, 0, 0};
  for (const auto& f : data.findings) ++counts[static_cast<int>(f.severity)];
  if (data.findings.empty()) {
    out += "\nFindings: none\n";
  } else {
    out += fmt::format("\nFindings: {} error, {} warning, {} info\n", counts[2], counts[1], counts[0]);
  }
  for (const auto& f : data.findings) {
    out += fmt::format("  {:<8} {:<25} {}\n", severity_label(f.severity), f.id, f.title);
    if (!f.cause.empty()) out += fmt::format("  {:<8} cause: {}\n", "", clip(f.cause, 96));
    if (!f.next_command.empty()) out += fmt::format("  {:<8} next:  {}\n", "", f.next_command);
  }

  int verdicts[4] = {0, 0, 0, 0};
  for (const auto& h : data.hypotheses) ++verdicts[static_cast<int>(h.verdict)];
  if (!data.hypotheses.empty()) {
    out += fmt::format("\nHypotheses: {} confirmed, {} refuted, {} inconclusive, {} untested\n", verdicts[0], verdicts[1],
                       verdicts[2], verdicts[3]);
    for (const auto& h : data.hypotheses) {
      out += fmt::format("  {:<12} {:<30} {}\n", diagnose::verdict_name(h.verdict), h.id, clip(h.evidence, 66));
    }
  }

  const auto rows = four_numbers(data);
  if (!rows.empty()) out += "\nKey numbers (per direction):\n";
  for (const auto& row : rows) {
    auto value = [](const std::optional<double>& v) { return v ? format_gbps(*v) : std::string("n/a"); };
    auto share = [&](const std::optional<double>& v) {
      return v && row.link_rate_gbps ? " (" + format_percent(*v / *row.link_rate_gbps) + ")" : std::string();
    };
    out += fmt::format("  {} pairs: link {} | NCCL weight {} | P2P copy {}{} | busbw {}{}\n", row.pair_type,
                       value(row.link_rate_gbps),
                       row.model_weight ? format_number(*row.model_weight) : std::string("n/a"),
                       value(row.copy_gbps), share(row.copy_gbps), value(row.busbw_gbps), share(row.busbw_gbps));
  }
  return out;
}

}  // namespace linkscope::report
