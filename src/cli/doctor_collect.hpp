#pragma once
#include <string>
#include <vector>

#include "core/run.hpp"

namespace linkscope::cli {

// `linkscope doctor` options. The live path (no --from, no --xml) hands them to collect_live_run().
struct DoctorOptions {
  std::string from_path;                      // --from RUN.json: re-diagnose a saved run
  std::string xml_path;                       // --xml FILE: diagnose a topology file alone
  std::string output_dir = "linkscope-report";  // --output DIR
  std::string format = "text";                // stdout: text summary or the json Run document
  std::string profile = "default";            // --quick / default / --full: how much the live run measures
  std::vector<std::string> env_assignments;   // --env NAME=VALUE (model NCCL as if set)
  std::string fail_on = "none";               // --fail-on none|warning|error: exit 6 at that severity
  std::vector<std::string> argv;              // the whole command line, for the Run document
};

// The live "collect" step: discover the machine, build NCCL's model, make the hypotheses (diagnose::
// make_hypotheses, before measuring) and measure the profile; progress goes to stderr, results into the returned
// Run. The caller judges the hypotheses, runs the rules and writes the report. Throws linkscope::Error subclasses
// (DeviceError without GPUs/driver, UsageError for bad options); per-item failures go into run.errors.
RunDocument collect_live_run(const DoctorOptions& options);

}  // namespace linkscope::cli
