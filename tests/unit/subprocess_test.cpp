#include "core/subprocess.hpp"

#include <chrono>

#include <gtest/gtest.h>

namespace linkscope {
namespace {

TEST(Subprocess, CapturesOutputAndExitCode) {
  const ChildResult r = run_child({"/bin/sh", {"-c", "echo out; echo err >&2; exit 3"}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.started);
}

TEST(Subprocess, SetsAndUnsetsEnvironment) {
  setenv("LINKSCOPE_SUBPROCESS_GONE", "x", 1);
  ChildSpec spec{"/bin/sh", {"-c", "echo \"$NCCL_P2P_DISABLE-${LINKSCOPE_SUBPROCESS_GONE:-unset}\""}};
  spec.set_env = {"NCCL_P2P_DISABLE=1"};
  spec.unset_env = {"LINKSCOPE_SUBPROCESS_GONE"};
  EXPECT_EQ(run_child(spec).out, "1-unset\n");
  unsetenv("LINKSCOPE_SUBPROCESS_GONE");
}

TEST(Subprocess, TimeoutKillsTheWholeGroup) {
  ChildSpec spec{"/bin/sh", {"-c", "sleep 30 & sleep 30"}};
  spec.timeout_seconds = 0.3;
  const auto start = std::chrono::steady_clock::now();
  const ChildResult r = run_child(spec);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, -9);
  EXPECT_LT(seconds, 5.0);
}

TEST(Subprocess, MissingProgramIsNotStarted) {
  const ChildResult r = run_child({"/nonexistent/program", {}});
  EXPECT_FALSE(r.started);
  EXPECT_EQ(r.exit_code, 127);
}

TEST(Subprocess, FeedsStdin) {
  ChildSpec spec{"/bin/cat", {}};
  spec.stdin_text = "hello";
  EXPECT_EQ(run_child(spec).out, "hello");
}

}  // namespace
}  // namespace linkscope

namespace linkscope {
namespace {

TEST(Subprocess, LastLineIsTheFinalLineWithoutItsBreak) {
  EXPECT_EQ(last_line("progress\nlinkscope: error: no GPU\n"), "linkscope: error: no GPU");
  EXPECT_EQ(last_line("one line"), "one line");
  EXPECT_EQ(last_line("a\r\n\n"), "a");
  EXPECT_EQ(last_line(""), "");
}

}  // namespace
}  // namespace linkscope
