// libFuzzer target: the run-file reader (JSON parse and the typed model::run_from_json), then what `report` does
// with the run: diagnose it and render every format. The run it writes must read back. Any linkscope::Error from
// the reader is an accepted refusal; anything else (crash, sanitizer report, other exception, hang, a written run
// that does not read back) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/report_render.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  linkscope::model::Run run;
  try {
    run = linkscope::model::parse_run_text(text, "fuzz.json");
  } catch (const linkscope::Error&) {
    return 0;  // refused with a message: what the reader is for
  }
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
