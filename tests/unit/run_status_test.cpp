// A diagnosed run as one state (diagnose/run_status): the worst finding, and the Nagios state `doctor
// --exit-codes nagios` exits with and the Prometheus export carries.
#include "diagnose/run_status.hpp"

#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "support/run_command.hpp"

namespace linkscope::diagnose {
namespace {

model::Run healthy() {
  model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  diagnose_into(run);
  return run;
}

model::Finding finding(const std::string& id, model::Severity severity) {
  model::Finding made;
  made.id = id;
  made.severity = severity;
  return made;
}

TEST(NagiosStatus, DocumentedValues) {
  EXPECT_EQ(to_int(NagiosStatus::kOk), 0);
  EXPECT_EQ(to_int(NagiosStatus::kWarning), 1);
  EXPECT_EQ(to_int(NagiosStatus::kCritical), 2);
  EXPECT_EQ(to_int(NagiosStatus::kUnknown), 3);
  EXPECT_EQ(nagios_status_name(NagiosStatus::kCritical), "CRITICAL");
}

TEST(NagiosStatus, FindingsGiveOkWarningAndCritical) {
  model::Run run = healthy();
  ASSERT_LT(worst_severity(run).value_or(model::Severity::kInfo), model::Severity::kWarning);
  EXPECT_EQ(unjudged_reason(run), "");
  EXPECT_EQ(nagios_status(run), NagiosStatus::kOk);
  run.findings.push_back(finding("noisy-measurement", model::Severity::kWarning));
  EXPECT_EQ(nagios_status(run), NagiosStatus::kWarning);
  run.findings.push_back(finding("wrong-results", model::Severity::kError));
  EXPECT_EQ(nagios_status(run), NagiosStatus::kCritical);
  EXPECT_EQ(worst_severity(run), model::Severity::kError);
}

TEST(NagiosStatus, AMachineThatCouldNotBeJudgedIsUnknownUnlessAFaultWasFound) {
  model::Run stopped = healthy();
  stopped.config.stopped = "interrupted (SIGINT) during p2p, 1 of 9 steps done";
  stopped.findings.push_back(finding("run-incomplete", model::Severity::kWarning));
  EXPECT_EQ(nagios_status(stopped), NagiosStatus::kUnknown);
  EXPECT_NE(unjudged_reason(stopped).find("interrupted (SIGINT)"), std::string::npos);
  stopped.findings.push_back(finding("xid-during-run", model::Severity::kError));
  EXPECT_EQ(nagios_status(stopped), NagiosStatus::kCritical);

  model::Run no_driver = healthy();
  no_driver.findings = {finding("driver-unavailable", model::Severity::kError)};
  EXPECT_EQ(nagios_status(no_driver), NagiosStatus::kUnknown);

  model::Run no_gpu = healthy();
  no_gpu.system.gpus.clear();
  EXPECT_EQ(nagios_status(no_gpu), NagiosStatus::kUnknown);
  EXPECT_EQ(unjudged_reason(no_gpu), "CUDA shows no GPU");
}

TEST(NagiosStatus, AClusterCountsItsHostsFindingsAndAHostNotExamined) {
  model::Run run = healthy();
  model::Host examined;
  examined.name = "node-b";
  examined.findings = std::vector<model::Finding>{finding("pcie-link-degraded", model::Severity::kWarning)};
  run.system.hosts.push_back(examined);
  EXPECT_EQ(nagios_status(run), NagiosStatus::kWarning);
  model::Host lost;
  lost.name = "node-c";
  lost.error = "no answer within 60 s";
  run.system.hosts.push_back(lost);
  EXPECT_EQ(nagios_status(run), NagiosStatus::kUnknown);
  EXPECT_EQ(unjudged_reason(run), "host node-c could not be examined: no answer within 60 s");
}

}  // namespace
}  // namespace linkscope::diagnose
