#pragma once
#include <functional>
#include <string>
#include <vector>

#include "model/run.hpp"

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
  // Under MPI (doctor_cluster.cpp)
  double mpi_timeout_s = 60;                  // --timeout: how long rank 0 waits for another rank at each step
  bool cross_host_only = false;               // --cross-host-only: no host measures itself, only between hosts
  std::vector<std::string> child_unset_env;   // variables the measuring children must not inherit (the launcher's)
  std::function<void(const std::string& step)> on_step_done;  // after each measuring step (progress to rank 0)
};

// The live "collect" step: discover the machine, build NCCL's model, make the hypotheses (diagnose::
// make_hypotheses, before measuring) and measure the profile; progress goes to stderr, results into the returned
// Run. The caller judges the hypotheses, runs the rules and writes the report. Throws linkscope::Error subclasses
// (DeviceError without GPUs/driver, UsageError for bad options); per-item failures go into run.errors.
model::Run collect_live_run(const DoctorOptions& options);

// The exit code of a diagnosed run under --fail-on (6 when a finding reaches that severity, else 0).
int doctor_exit_code(const model::Run& run, const std::string& fail_on);

// `linkscope doctor` under mpirun/srun (doctor_cluster.cpp): every host's leader runs the live doctor on its own
// host, then the cross-host tests run over all ranks, and rank 0 writes one report for the cluster.
int run_doctor_cluster(const DoctorOptions& options);

}  // namespace linkscope::cli
