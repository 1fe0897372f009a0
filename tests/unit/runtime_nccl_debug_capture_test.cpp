#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "runtime/nccl_debug_capture.hpp"
#include "support/temp_dir.hpp"

namespace linkscope::runtime {
namespace {

TEST(NcclDebugCapture, CapturesIntoAPrivateDirectoryAndCollectsEveryFile) {
  test::TempDir tmp;
  std::string directory;
  {
    NcclDebugCapture capture(Environment::from_map({{"TMPDIR", tmp.path()}}));
    ASSERT_TRUE(capture.active()) << capture.reason();
    const auto vars = capture.variables();
    EXPECT_EQ(vars.at("NCCL_DEBUG"), "INFO");
    EXPECT_EQ(vars.at("NCCL_DEBUG_SUBSYS"), "INIT,GRAPH,ENV,TUNING");
    const std::string file = vars.at("NCCL_DEBUG_FILE");
    EXPECT_EQ(file.rfind(tmp.path(), 0), 0u) << file;
    EXPECT_NE(file.find("%h.%p"), std::string::npos);
    directory = std::filesystem::path(file).parent_path();
    std::ofstream(directory + "/nccl.a.1.log") << "a:1:1 [0] NCCL INFO NCCL version 2.28.3+cuda13.0";
    std::ofstream(directory + "/nccl.a.2.log") << "a:2:2 [1] NCCL INFO Using network Socket\n";
    const std::string text = capture.collect();
    EXPECT_NE(text.find("NCCL version 2.28.3"), std::string::npos);
    EXPECT_NE(text.find("2.28.3+cuda13.0\na:2:2"), std::string::npos) << "files are joined line by line";
  }
  EXPECT_FALSE(std::filesystem::exists(directory)) << "the directory goes away with the capture";
}

TEST(NcclDebugCapture, InitOnlyAsksForNoPerCallLine) {
  // nccl-tests' host timer would time NCCL's per-call TUNING line (about 1 us per call).
  test::TempDir tmp;
  NcclDebugCapture capture(Environment::from_map({{"TMPDIR", tmp.path()}}), CaptureDetail::kInitOnly);
  ASSERT_TRUE(capture.active()) << capture.reason();
  const auto vars = capture.variables();
  EXPECT_EQ(vars.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(vars.at("NCCL_DEBUG_SUBSYS"), "INIT,GRAPH,ENV");
  EXPECT_EQ(vars.count("NCCL_DEBUG_FILE"), 1u);
}

TEST(NcclDebugCapture, ASigtermRemovesTheDirectoryAndStillEndsTheProcess) {
  // Another rank's MPI_Abort ends this one with SIGTERM: its directory (here with a log NCCL wrote) must not stay.
  test::TempDir tmp;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    NcclDebugCapture capture(Environment::from_map({{"TMPDIR", tmp.path()}}));
    capture.remove_on_sigterm();
    const std::string file = capture.variables().at("NCCL_DEBUG_FILE");
    std::ofstream(std::filesystem::path(file).parent_path() / "nccl.host.1.log") << "NCCL INFO ...\n";
    std::raise(SIGTERM);
    _exit(3);  // not reached: SIGTERM still ends the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path()));
}

TEST(NcclDebugCapture, RespectsTheUsersNcclDebug) {
  NcclDebugCapture capture(Environment::from_map({{"NCCL_DEBUG", "WARN"}}));
  EXPECT_FALSE(capture.active());
  EXPECT_NE(capture.reason().find("NCCL_DEBUG=WARN"), std::string::npos);
  EXPECT_NE(capture.reason().find("not recorded"), std::string::npos);
  EXPECT_TRUE(capture.variables().empty());
  EXPECT_EQ(capture.collect(), "");
}

TEST(NcclDebugCapture, RespectsTheUsersDebugFile) {
  NcclDebugCapture capture(Environment::from_map({{"NCCL_DEBUG_FILE", "/tmp/mine.log"}}));
  EXPECT_FALSE(capture.active());
  EXPECT_NE(capture.reason().find("/tmp/mine.log"), std::string::npos);
}

TEST(NcclDebugCapture, UnwritableTemporaryDirectoryIsReported) {
  NcclDebugCapture capture(Environment::from_map({{"TMPDIR", "/nonexistent/linkscope"}}));
  EXPECT_FALSE(capture.active());
  EXPECT_NE(capture.reason().find("/nonexistent/linkscope"), std::string::npos);
}

}  // namespace
}  // namespace linkscope::runtime
