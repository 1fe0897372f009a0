// Output paths that cannot be written, a signal during a single-file write, another user's file in a sticky
// directory, and the test seams the linkscope binary must not have. The real binary (its copy with the write seams,
// LINKSCOPE_SEAMED_BINARY, where a write must pause), no GPU.
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/background_command.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

namespace fs = std::filesystem;
using test::run_command;

constexpr const char* kSetpriv = "/usr/bin/setpriv";  // to run as nobody what root is always allowed
constexpr int kUsage = 2;                             // README "Exit codes": a file that cannot be written
constexpr int kInterrupted = 130;                     // README "Exit codes": SIGINT/SIGTERM/SIGHUP

const std::string kRun = test::fixture("runs/h200x2-healthy.json");
const std::string kOtherRun = test::fixture("runs/hgx-h200-8gpu-synthetic.json");

bool one_error_line(const std::string& err) {
  return err.rfind("linkscope: error: ", 0) == 0 && err.find('\n') == err.size() - 1 &&
         err.find("internal error") == std::string::npos;
}

// Every entry of a directory: name -> content.
std::map<std::string, std::string> snapshot(const std::string& directory) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(directory)) {
    files[entry.path().filename().string()] = test::read_text(entry.path().string());
  }
  return files;
}

// Whether linkscope can run as the user nobody, to show what root is always allowed.
bool can_run_as_nobody() { return ::geteuid() == 0 && ::access(kSetpriv, X_OK) == 0; }

test::CommandResult as_nobody(const std::vector<std::string>& args) {
  std::vector<std::string> all{"--reuid=nobody", "--regid=nogroup", "--clear-groups", LINKSCOPE_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  return run_command(kSetpriv, all);
}

TEST(OutputPathCli, AnOutputThatCannotBeWrittenWhereItSaysIsOneLineExit2) {
  test::TempDir dir;
  const std::string file = dir.write("afile", "x");
  const std::string long_name = dir.path() + "/" + std::string(300, 'a');
  const std::vector<std::vector<std::string>> commands{
      {"report", kRun, "--format", "md", "-o", file + "/"},
      {"report", kRun, "--format", "md", "-o", "/dev/null/x/"},
      {"report", kRun, "--format", "md", "-o", long_name + "/"},
      {"report", kRun, "-o", file + "/"},
      {"report", kRun, "-o", file + "/x/"},
      {"report", kRun, "--format", "json", "-o", file + "/x.json"},
      {"report", kRun, "--format", "json", "-o", long_name + ".json"},
      {"doctor", "--from", kRun, "-o", file},
      {"doctor", "--from", kRun, "-o", long_name},
      {"doctor", "-o", file + "/report"},
      {"p2p", "--output", file + "/x.json"},
      {"p2p", "--output", long_name + ".json"},
      {"topo", "--dump-xml", file + "/x.xml"},
      {"topo", "--dump-xml", long_name + ".xml"},
  };
  for (const auto& args : commands) {
    const auto result = run_command(LINKSCOPE_BINARY, args, {"LINKSCOPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"});
    const std::string what = args[0] + " " + args.back().substr(0, 60);
    EXPECT_EQ(result.exit_code, kUsage) << what << "\n" << result.err;
    EXPECT_TRUE(one_error_line(result.err)) << what << "\n" << result.err;
    const bool names_it = result.err.find(file) != std::string::npos ||
                          result.err.find("/dev/null") != std::string::npos ||
                          result.err.find(std::string(300, 'a')) != std::string::npos;
    EXPECT_TRUE(names_it) << what << "\n" << result.err;
  }
  EXPECT_EQ(snapshot(dir.path()).size(), 1u) << "nothing but afile";
}

TEST(OutputPathCli, ADirectoryTheUserMayNotWriteIsOneLineExit2) {
  if (!can_run_as_nobody()) GTEST_SKIP() << "needs root and setpriv to run as a user the directory refuses";
  test::TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);  // root's, readable by all, writable by root alone
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"report", kRun, "--format", "md", "-o", dir.path() + "/sub/"},
           {"report", kRun, "-o", dir.path() + "/"},
           {"report", kRun, "--format", "json", "-o", dir.path() + "/out.json"},
           {"doctor", "--from", kRun, "-o", dir.path() + "/sub"}}) {
    const auto result = as_nobody(args);
    EXPECT_EQ(result.exit_code, kUsage) << args.back() << "\n" << result.err;
    EXPECT_TRUE(one_error_line(result.err)) << result.err;
    EXPECT_NE(result.err.find(dir.path()), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("Permission denied"), std::string::npos) << result.err;
  }
  EXPECT_TRUE(snapshot(dir.path()).empty());
}

// A single-file write stopped by a signal after it staged the new file (the seam pauses there): the earlier file
// stays, the temporary one goes, exit 130, as for a report directory.
TEST(OutputFileCli, ASignalWhileWritingOneFileLeavesItAsItWasAndNoTemporaryFile) {
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    test::TempDir dir;
    const std::string out = dir.write("out/out.json", "old");
    test::BackgroundCommand command(LINKSCOPE_SEAMED_BINARY, {"report", kRun, "--format", "json", "-o", out},
                                    {"LINKSCOPE_TEST_WRITE_PAUSE=staged:1"}, dir.path() + "/err");
    ASSERT_TRUE(command.wait_for_stderr("linkscope: test: paused after staged file 1\n", 60)) << command.err();
    command.send(signal_number);
    EXPECT_EQ(command.wait(60), kInterrupted) << command.err();
    EXPECT_NE(command.err().find("interrupted"), std::string::npos) << command.err();
    EXPECT_EQ(snapshot(dir.path() + "/out"), (std::map<std::string, std::string>{{"out.json", "old"}}))
        << "signal " << signal_number;
  }
}

// The linkscope binary reads no test seam: with them set, it writes as it always does.
TEST(TestSeamsCli, TheLinkscopeBinaryIgnoresTheTestSeams) {
  test::TempDir dir;
  const auto result = run_command(LINKSCOPE_BINARY, {"report", kRun, "--format", "json", "-o", dir.path() + "/a.json"},
                                  {"LINKSCOPE_TEST_WRITE_LIMIT=0", "LINKSCOPE_TEST_WRITE_PAUSE=staged:1"}, 20);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find("paused"), std::string::npos) << result.err;
  EXPECT_FALSE(test::read_text(dir.path() + "/a.json").empty());
  const auto seamed = run_command(LINKSCOPE_SEAMED_BINARY, {"report", kRun, "--format", "json", "-o",
                                                            dir.path() + "/b.json"}, {"LINKSCOPE_TEST_WRITE_LIMIT=0"});
  EXPECT_EQ(seamed.exit_code, kUsage) << "the tests' copy still has them: " << seamed.err;
}

// A shared directory (mode 1777) where another user owns report.html: the kernel refuses that one rename, so the
// swap must be refused before its first rename (run.json, which this user owns), leaving the directory as it was.
// As root every rename is allowed, so the writer runs as nobody and the earlier report belongs to nobody but for
// report.html, root's.
TEST(StickyDirectoryCli, AnotherUsersFileRefusesTheSwapBeforeAnyRename) {
  if (!can_run_as_nobody()) GTEST_SKIP() << "needs root and setpriv to act as two users";
  test::TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  const std::string shared = dir.path() + "/shared";
  fs::create_directory(shared);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  const auto first = run_command(LINKSCOPE_BINARY, {"report", kRun, "-o", shared + "/"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const struct passwd* nobody = ::getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  for (const auto& entry : fs::directory_iterator(shared)) {
    if (entry.path().filename() != "report.html") {
      ASSERT_EQ(::chown(entry.path().c_str(), nobody->pw_uid, nobody->pw_gid), 0) << entry.path();
    }
  }
  const auto before = snapshot(shared);
  const auto result = as_nobody({"report", kOtherRun, "-o", shared + "/"});
  EXPECT_EQ(result.exit_code, kUsage) << result.err;
  EXPECT_TRUE(one_error_line(result.err)) << result.err;
  EXPECT_NE(result.err.find(shared + "/report.html"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("the directory is as it was"), std::string::npos) << result.err;
  EXPECT_EQ(snapshot(shared), before) << "a file was replaced, or a temporary one stayed";
}

}  // namespace
}  // namespace linkscope
