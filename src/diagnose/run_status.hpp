#pragma once
#include <optional>
#include <string>

#include "core/nagios_status.hpp"
#include "model/run.hpp"

// What a diagnosed run says about its machine as one state: the worst finding, and whether the machine could be
// judged at all. The doctor's exit codes and the Prometheus export read it.
namespace linkscope::diagnose {

// The worst severity among the run's findings and, for a cluster's run, every host's own; none without findings.
std::optional<model::Severity> worst_severity(const model::Run& run);

// Why the run could not judge the machine it examined, or "" when it could: the driver was unreachable
// (driver-unavailable), CUDA showed no GPU, the run stopped before its last step, or a host of the cluster could
// not be examined. A topology file alone (--xml) is judged as a file.
std::string unjudged_reason(const model::Run& run);

// The Nagios plugin state: CRITICAL for an error finding (driver-unavailable aside: it means "not judged"),
// else UNKNOWN when unjudged_reason says so, else WARNING for a warning finding, else OK. A known fault outranks
// what could not be checked, so an interrupted run that already found one still pages.
NagiosStatus nagios_status(const model::Run& run);

}  // namespace linkscope::diagnose
