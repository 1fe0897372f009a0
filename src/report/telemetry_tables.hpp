#pragma once
#include <string>

#include "model/telemetry.hpp"
#include "report/report_tables.hpp"

// What the doctor watched while it measured (measurements.telemetry) as tables for the report's "During the run"
// section: the steps with the counters that grew in each, the processes seen on the GPUs, Xid events, and what
// could not be watched. Facts only; the findings say what they mean.
namespace linkscope::report {

Table telemetry_steps_table(const model::Telemetry& telemetry);      // step, when, how long, counters that grew
Table telemetry_processes_table(const model::Telemetry& telemetry);  // pid, name, GPU, whose, when, steps
Table telemetry_xid_table(const model::Telemetry& telemetry);        // time, GPU, Xid, its meaning, step
// "sampled 3 GPU(s) 412 times at 10 Hz over 41.2 s; the sampler used 0.08 s of CPU" and what was unavailable.
std::string telemetry_summary(const model::Telemetry& telemetry);

}  // namespace linkscope::report
