// libFuzzer target: the run-file reader alone (JSON parse and the typed model::run_from_json) and its writer's
// round trip, without the diagnosis and the three renderings run_json_fuzzer adds. Those take about half a second
// per saved run under the sanitizers, so run_json_fuzzer tries a few dozen mutations a minute; this one tries
// thousands, which is what a hostile file meets first. A linkscope::Error from the reader is an accepted refusal;
// anything else (crash, sanitizer report, other exception, a written run that does not read back the same) is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "model/run_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  linkscope::model::Run run;
  try {
    run = linkscope::model::parse_run_text(text, "fuzz.json");
  } catch (const linkscope::Error&) {
    return 0;  // refused with a message: what the reader is for
  }
  // What linkscope writes it must read again, and writing that again changes nothing.
  const std::string written = linkscope::model::run_text(run);
  const std::string again = linkscope::model::run_text(linkscope::model::parse_run_text(written, "fuzz.json (as written)"));
  if (again != written) __builtin_trap();
  return 0;
}
