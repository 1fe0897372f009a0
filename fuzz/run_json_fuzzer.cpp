// libFuzzer target: the run-file reader (JSON parse and the typed model::run_from_json), then what `report` does
// with the run: diagnose it and render every format. The run it writes must read back. Any linkscope::Error from
// the reader is an accepted refusal; anything else (crash, sanitizer report, other exception, hang, a written run
// that does not read back) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "accepted_run.hpp"
#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/report_render.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<linkscope::model::Run> accepted = accepted_run(data, size);
  if (!accepted) return 0;
  linkscope::model::Run& run = *accepted;
  // Past the reader, nothing may throw: these are what `report` runs on every accepted file.
  linkscope::diagnose::diagnose_into(run, /*remake_hypotheses=*/true);
  using linkscope::report::ReportFormat;
  for (ReportFormat format : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
    if (linkscope::report::render_report(run, format).empty()) __builtin_trap();  // each prints at least a header
  }
  // What linkscope writes it must read again (report --format json, doctor's run.json).
  const std::string written = linkscope::model::run_text(run);
  (void)linkscope::model::parse_run_text(written, "fuzz.json (as written)");
  return 0;
}
