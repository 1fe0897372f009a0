// The doctor's terminal summary says when a run stopped early and which steps this machine could not have, grouped
// by the reason, so a short report is not mistaken for a clean one.
#include <gtest/gtest.h>

#include "model/run.hpp"
#include "report/summary_text.hpp"

namespace linkscope::report {
namespace {

TEST(SummaryText, NamesTheStopAndTheStepsNotRunGroupedByReason) {
  model::Run run = model::make_run("doctor", {"linkscope", "doctor"});
  run.config.stopped = "interrupted (SIGINT) during p2p, 2 of 5 steps done";
  run.config.skipped = {{"patterns", "one GPU: no pair"},
                        {"coll all_reduce", "NCCL: libnccl.so.2 not found"},
                        {"ladder", "one GPU: no pair"}};
  const std::string text = render_summary_text(run);
  EXPECT_NE(text.find("Stopped early: interrupted (SIGINT) during p2p, 2 of 5 steps done"), std::string::npos) << text;
  EXPECT_NE(text.find("Not run on this machine:\n  patterns, ladder: one GPU: no pair\n"
                      "  coll all_reduce: NCCL: libnccl.so.2 not found\n"),
            std::string::npos)
      << text;
}

TEST(SummaryText, ACompleteRunSaysNothingAboutStops) {
  const model::Run run = model::make_run("doctor", {"linkscope", "doctor"});
  const std::string text = render_summary_text(run);
  EXPECT_EQ(text.find("Stopped early"), std::string::npos) << text;
  EXPECT_EQ(text.find("Not run on this machine"), std::string::npos) << text;
}

}  // namespace
}  // namespace linkscope::report
