// libFuzzer target: the run-file reader alone (JSON parse and the typed model::run_from_json) and its writer's
// round trip, without the diagnosis and the three renderings run_json_fuzzer adds. Those take about half a second
// per saved run under the sanitizers, so run_json_fuzzer tries a few dozen mutations a minute; this one tries
// thousands, which is what a hostile file meets first. A linkscope::Error from the reader is an accepted refusal;
// anything else (crash, sanitizer report, other exception, a written run that does not read back the same) is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "accepted_run.hpp"
#include "model/run_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::optional<linkscope::model::Run> run = accepted_run(data, size);
  if (!run) return 0;
  // What linkscope writes it must read again, and writing that again changes nothing.
  const std::string written = linkscope::model::run_text(*run);
  const std::string again = linkscope::model::run_text(linkscope::model::parse_run_text(written, "fuzz.json (as written)"));
  if (again != written) __builtin_trap();
  return 0;
}
