#pragma once
#include <functional>
#include <string>
#include <vector>

#include "cli/findings_exit.hpp"
#include "fleet/baseline.hpp"
#include "model/run.hpp"

namespace linkscope::cli {

// `linkscope doctor` options. The live path (no --from, no --xml) hands them to collect_live_run().
struct DoctorOptions {
  std::string from_path;                      // --from RUN.json: re-diagnose a saved run
  std::string xml_path;                       // --xml FILE: diagnose a topology file alone
  std::string capture_path;                   // --capture FILE: diagnose a captured machine (nothing measured)
  std::string nccl_version;                   // --nccl-version X.Y.Z with --xml (default: the newest modelled)
  std::string output_dir = "linkscope-report";  // --output DIR
  std::string format = "text";                // stdout: text summary or the json Run document
  std::string profile = "default";            // --quick / default / --full: how much the live run measures
  std::vector<std::string> env_assignments;   // --env NAME=VALUE (model NCCL as if set)
  FindingsExit exit;                          // --fail-on and --exit-codes
  std::string prometheus_path;                // --prometheus FILE.prom: the diagnosed run as a node-exporter textfile
  std::string soak;                           // --soak DURATION: repeat the profile's steps until it has passed
  std::string baseline_path;                  // --baseline FILE: judge the run against a fleet baseline (src/fleet)
  std::vector<std::string> argv;              // the whole command line, for the Run document
  // Under MPI (doctor_cluster.cpp)
  double mpi_timeout_s = 60;                  // --timeout: how long rank 0 waits for another rank at each step
  bool cross_host_only = false;               // --cross-host-only: no host measures itself, only between hosts
  std::vector<std::string> child_unset_env;   // variables the measuring children must not inherit (the launcher's)
  std::function<void(const std::string& step)> on_step_done;  // after each measuring step (progress to rank 0)
  // After discovery and after each measuring step: the run so far, so a crash, a watchdog or Ctrl-C leaves the last
  // complete state on disk.
  std::function<void(const model::Run& run)> checkpoint;
};

// The live "collect" step: discover the machine, build NCCL's model, make the hypotheses (diagnose::
// make_hypotheses, before measuring) and measure the profile; progress goes to stderr, results into the returned
// Run. The caller judges the hypotheses, runs the rules and writes the report. A broken machine is data, not an
// error: without a driver, without a GPU CUDA can use, or without NCCL the run holds what could be found and says
// why the rest was not measured; a step that fails is recorded and the others still run; SIGINT/SIGTERM stop the
// measuring (config.stopped says where). Throws only UsageError for bad options.
model::Run collect_live_run(const DoctorOptions& options);

// `doctor --soak DURATION`: the live run repeated, cycle after cycle, until the duration has passed (a cycle that
// would end after it is not started) or a signal; after every cycle `on_cycle` gets the diagnosed run (the last
// cycle's measurements, every cycle's summary in measurements.soak) so the report on disk is always complete.
model::Run run_soak(const DoctorOptions& options, double seconds, const std::function<void(const model::Run&)>& on_cycle);

// `doctor --capture FILE`: the captured machine's facts through the same discovery, model and hypotheses as a live
// run, nothing measured (the run says so). Throws InputError for a file that is not a readable capture.
model::Run collect_captured_run(const DoctorOptions& options);

// --prometheus FILE: the diagnosed run as a node-exporter textfile, written atomically (core/file_io), never over
// one of `inputs`; nothing without the option.
void write_doctor_prometheus(const DoctorOptions& options, const model::Run& run,
                             const std::vector<std::string>& inputs = {});

// `linkscope doctor` under mpirun/srun (doctor_cluster.cpp): every host's leader runs the live doctor on its own
// host, then the cross-host tests run over all ranks, and rank 0 writes one report for the cluster. With a
// `baseline` (--baseline), rank 0 judges every host's run and the cluster's against it.
int run_doctor_cluster(const DoctorOptions& options, const fleet::Baseline* baseline = nullptr);

}  // namespace linkscope::cli
