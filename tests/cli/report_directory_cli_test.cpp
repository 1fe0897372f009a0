// The report directory as one set (docs/reports.md "Writing the report directory"): a write that fails on any of
// its files, or a SIGINT/SIGTERM/SIGHUP while it is written, leaves the earlier report byte for byte with no
// temporary file, or (a signal during the swap) the whole new report; never a mix. The swap removes the earlier
// report's files the new one lacks, never a file linkscope did not write. The real binary, no GPU; where a write
// must fail or pause, its copy with the test seams (LINKSCOPE_SEAMED_BINARY, tests/support/write_fault_seams.cpp).
#include <signal.h>

#include <chrono>
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
using test::fixture;
using test::run_command;

constexpr int kUsage = 2;          // README "Exit codes": a file that cannot be written
constexpr int kInterrupted = 130;  // README "Exit codes": SIGINT/SIGTERM/SIGHUP
constexpr const char* kList = ".linkscope-files";

// A report was written: exit 0, or 7 when the run has an error finding (README "Exit codes"). Not a timeout (-1000)
// or a signal (-N), which `<= 7` alone would let through.
bool wrote_report(int exit_code) { return exit_code == 0 || exit_code == 7; }

// Every entry of a directory, hidden ones included: name -> content ("<dir>" for a folder).
using Snapshot = std::map<std::string, std::string>;

Snapshot snapshot(const std::string& directory) {
  Snapshot files;
  for (const auto& entry : fs::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    files[name] = entry.is_directory() ? "<dir>" : test::read_text(entry.path().string());
  }
  return files;
}

// What differs between two snapshots, one name per entry ("" when none): a short message instead of whole files.
std::string differences(const Snapshot& found, const Snapshot& expected) {
  std::string out;
  for (const auto& [name, content] : found) {
    const auto it = expected.find(name);
    if (it == expected.end()) out += " extra:" + name;
    else if (it->second != content) out += " changed:" + name;
  }
  for (const auto& [name, content] : expected) {
    if (!found.count(name)) out += " missing:" + name;
  }
  return out;
}

// The two reports: the 2-GPU run draws charts the 8-GPU model run does not (collectives, ladder, SM copies), so
// the second leaves stale files to remove.
const std::string kEarlierRun = fixture("runs/h200x2-healthy.json");
const std::string kNewRun = fixture("runs/hgx-h200-8gpu-synthetic.json");

// The writes that make a whole report directory from a saved run.
std::vector<std::vector<std::string>> report_writes(const std::string& run, const std::string& dir) {
  return {{"report", run, "--output", dir + "/"}, {"doctor", "--from", run, "-o", dir}};
}

// `write` into a fresh directory, uninterrupted: what the directory holds after it.
Snapshot written_alone(const std::vector<std::string>& write, const std::string& dir) {
  const auto result = run_command(LINKSCOPE_BINARY, write);
  EXPECT_TRUE(wrote_report(result.exit_code)) << result.exit_code << ": " << result.err;
  return snapshot(dir);
}

class ReportDirectoryCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_.path() + "/report";
    const auto result = run_command(LINKSCOPE_BINARY, {"report", kEarlierRun, "--output", dir_ + "/"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    earlier_ = snapshot(dir_);
    ASSERT_TRUE(earlier_.count(kList)) << "the report lists its files";
  }

  // The same write into a directory of its own: the complete new set.
  Snapshot new_set(std::size_t which) {
    const std::string alone = scratch_.path() + "/alone-" + std::to_string(which);
    return written_alone(report_writes(kNewRun, alone)[which], alone);
  }

  test::TempDir scratch_;
  std::string dir_;
  Snapshot earlier_;
};

TEST_F(ReportDirectoryCli, TheTwoReportsDifferAndTheNewOneLacksSomeEarlierFiles) {
  // What the tests below rely on: "old set" and "new set" are told apart, and there are stale files.
  const Snapshot fresh = new_set(0);
  EXPECT_NE(fresh.at("run.json"), earlier_.at("run.json"));
  EXPECT_NE(fresh.at("report.html"), earlier_.at("report.html"));
  std::size_t stale = 0;
  for (const auto& [name, content] : earlier_) stale += fresh.count(name) == 0 ? 1 : 0;
  EXPECT_GT(stale, 0u) << "the 2-GPU report draws no chart the 8-GPU one lacks";
}

TEST_F(ReportDirectoryCli, AWriteFailureOnAnyFileLeavesTheEarlierReportWhole) {
  for (std::size_t which = 0; which < 2; ++which) {
    // Every file of the new set fails in turn (the list, written last, included); one past the last succeeds,
    // which shows the seam counted exactly the set's files.
    const std::size_t files = new_set(which).size();
    for (std::size_t n = 1; n <= files + 1; ++n) {
      const auto write = report_writes(kNewRun, dir_)[which];
      const std::vector<std::string> seam{"LINKSCOPE_TEST_WRITE_LIMIT=0",
                                          "LINKSCOPE_TEST_WRITE_LIMIT_FILE=" + std::to_string(n)};
      const auto result = run_command(LINKSCOPE_SEAMED_BINARY, write, seam);
      if (n <= files) {
        EXPECT_EQ(result.exit_code, kUsage) << write[0] << " file " << n << "\n" << result.err;
        EXPECT_EQ(result.err.rfind("linkscope: error: " + dir_ + "/", 0), 0u) << result.err;
        EXPECT_NE(result.err.find("No space left on device"), std::string::npos) << result.err;
        EXPECT_EQ(differences(snapshot(dir_), earlier_), "") << write[0] << ": file " << n << " failed";
      } else {
        EXPECT_TRUE(wrote_report(result.exit_code)) << write[0] << " " << result.exit_code << "\n" << result.err;
        EXPECT_EQ(differences(snapshot(dir_), new_set(which)), "") << write[0];
        const auto again = run_command(LINKSCOPE_BINARY, {"report", kEarlierRun, "--output", dir_ + "/"});
        ASSERT_EQ(again.exit_code, 0) << again.err;
        ASSERT_EQ(differences(snapshot(dir_), earlier_), "") << "writing the earlier report again restores it exactly";
      }
    }
  }
}

// `write` with the writer paused at `pause`, `signal_number` sent there; returns the exit code.
int interrupted_write(const std::vector<std::string>& write, const std::string& pause, int signal_number,
                      const std::string& err_path, std::string* err) {
  test::BackgroundCommand command(LINKSCOPE_SEAMED_BINARY, write, {"LINKSCOPE_TEST_WRITE_PAUSE=" + pause}, err_path);
  const std::string announced = "linkscope: test: paused after " + pause.substr(0, pause.find(':')) + " file " +
                                pause.substr(pause.find(':') + 1) + "\n";
  EXPECT_TRUE(command.wait_for_stderr(announced, 60)) << command.err();
  const auto sent = std::chrono::steady_clock::now();
  command.send(signal_number);
  const int code = command.wait(60);
  // The pause ends when the writer sees the signal (caught while staging, pending while it is held during the
  // swap), else only after 30 s: a quick end shows the signal was caught or held, not lost.
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(15)) << pause;
  *err = command.err();
  return code;
}

TEST_F(ReportDirectoryCli, ASignalWhileStagingLeavesTheEarlierReportWhole) {
  for (std::size_t which = 0; which < 2; ++which) {
    const std::size_t files = new_set(which).size() - 1;  // the set's files; the list is staged at the commit
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      for (const std::size_t k : {std::size_t{1}, files}) {
        std::string err;
        const auto write = report_writes(kNewRun, dir_)[which];
        const int code = interrupted_write(write, "staged:" + std::to_string(k), signal_number,
                                           scratch_.path() + "/err.txt", &err);
        EXPECT_EQ(code, kInterrupted) << write[0] << " signal " << signal_number << " after " << k << "\n" << err;
        EXPECT_NE(err.find("interrupted (SIG"), std::string::npos) << err;
        EXPECT_NE(err.find("the directory is as it was"), std::string::npos) << err;
        EXPECT_EQ(differences(snapshot(dir_), earlier_), "")
            << write[0] << ": signal " << signal_number << " after staging " << k;
      }
    }
  }
}

TEST_F(ReportDirectoryCli, ASignalWhileSwappingLeavesTheWholeNewReport) {
  for (std::size_t which = 0; which < 2; ++which) {
    const Snapshot fresh = new_set(which);
    const std::size_t files = fresh.size() - 1;
    for (const std::size_t k : {std::size_t{1}, files}) {
      std::string err;
      const auto write = report_writes(kNewRun, dir_)[which];
      const int code = interrupted_write(write, "committed:" + std::to_string(k), SIGINT,
                                         scratch_.path() + "/err.txt", &err);
      EXPECT_EQ(code, kInterrupted) << write[0] << " after " << k << "\n" << err;
      EXPECT_NE(err.find("the new set is complete"), std::string::npos) << err;
      EXPECT_EQ(differences(snapshot(dir_), fresh), "") << write[0] << ": SIGINT after renaming " << k << " files";
      const auto again = run_command(LINKSCOPE_BINARY, {"report", kEarlierRun, "--output", dir_ + "/"});
      ASSERT_EQ(again.exit_code, 0) << again.err;
      ASSERT_EQ(differences(snapshot(dir_), earlier_), "");
    }
  }
}

TEST_F(ReportDirectoryCli, TheSwapRemovesTheEarlierReportsFilesButNoUserFile) {
  // A user's files beside the report: one named as linkscope names its charts, a hidden one, a folder.
  scratch_.write("report/notes.txt", "my notes\n");
  scratch_.write("report/my-chart.svg", "<svg/>");
  scratch_.write("report/p2p-heatmap-mine.svg", "<svg>mine</svg>");
  scratch_.write("report/.keep", "");
  fs::create_directories(dir_ + "/images");
  for (std::size_t which = 0; which < 2; ++which) {
    const Snapshot fresh = new_set(which);
    const auto result = run_command(LINKSCOPE_BINARY, report_writes(kNewRun, dir_)[which]);
    EXPECT_TRUE(wrote_report(result.exit_code)) << result.exit_code << ": " << result.err;
    Snapshot expected = fresh;
    expected["notes.txt"] = "my notes\n";
    expected["my-chart.svg"] = "<svg/>";
    expected["p2p-heatmap-mine.svg"] = "<svg>mine</svg>";
    expected[".keep"] = "";
    expected["images"] = "<dir>";
    EXPECT_EQ(differences(snapshot(dir_), expected), "") << "earlier files stayed, or user files went";
    const auto back = run_command(LINKSCOPE_BINARY, {"report", kEarlierRun, "--output", dir_ + "/"});
    ASSERT_EQ(back.exit_code, 0) << back.err;
  }
}

// The live doctor saves run.json after every step, so what it measured survives a crash; stopped while it writes
// the report at the end, DIR keeps that run.json beside the earlier report's other files (docs/reports.md).
// Without a driver (NVML pointed at nothing, as DoctorCli does) the live doctor measures nothing but still writes.
TEST_F(ReportDirectoryCli, ALiveDoctorStoppedWhileWritingKeepsItsRunBesideTheEarlierReport) {
  test::BackgroundCommand doctor(LINKSCOPE_SEAMED_BINARY, {"doctor", "--quick", "-o", dir_},
                                 {"LINKSCOPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1",
                                  "LINKSCOPE_TEST_WRITE_PAUSE=staged:2"},
                                 scratch_.path() + "/doctor.err");
  ASSERT_TRUE(doctor.wait_for_stderr("linkscope: test: paused after staged file 2\n", 60)) << doctor.err();
  doctor.send(SIGINT);
  EXPECT_EQ(doctor.wait(60), kInterrupted) << doctor.err();
  Snapshot expected = earlier_;
  const Snapshot found = snapshot(dir_);
  ASSERT_TRUE(found.count("run.json"));
  expected["run.json"] = found.at("run.json");
  EXPECT_EQ(differences(found, expected), "") << "only run.json, the doctor's own checkpoint, is new";
  EXPECT_NE(found.at("run.json"), earlier_.at("run.json"));
  EXPECT_NE(found.at("run.json").find("/nonexistent/libnvidia-ml.so.1"), std::string::npos)
      << "the checkpoint is this run's";
}

// Two processes writing one directory: the second waits while the first swaps (it holds the directory's lock, here
// paused after its first rename), then swaps its own set over the first's whole one. Without the lock the second
// would swap in at once and the first's remaining renames would land on top of it: a mix of the two reports.
TEST_F(ReportDirectoryCli, TwoWritersSwapOneAfterTheOther) {
  for (std::size_t which = 0; which < 2; ++which) {
    test::BackgroundCommand first(LINKSCOPE_SEAMED_BINARY, report_writes(kNewRun, dir_)[which],
                                  {"LINKSCOPE_TEST_WRITE_PAUSE=committed:1"}, scratch_.path() + "/first.err");
    ASSERT_TRUE(first.wait_for_stderr("linkscope: test: paused after committed file 1\n", 60)) << first.err();
    test::BackgroundCommand second(LINKSCOPE_BINARY, report_writes(kEarlierRun, dir_)[which],
                                   {"LINKSCOPE_TEST_WRITE_PAUSE"}, scratch_.path() + "/second.err");
    EXPECT_TRUE(second.wait_for_stderr(": another linkscope process is writing a report here; waiting for it\n", 60))
        << second.err();
    first.send(SIGINT);
    EXPECT_EQ(first.wait(60), kInterrupted) << first.err();
    const int second_code = second.wait(60);
    EXPECT_TRUE(wrote_report(second_code)) << second_code << ": " << second.err();
    // The second writer's set, whole: what `report` alone writes into a fresh directory (SetUp's earlier_), or
    // the doctor's equivalent.
    const std::string alone = scratch_.path() + "/second-alone-" + std::to_string(which);
    EXPECT_EQ(differences(snapshot(dir_), written_alone(report_writes(kEarlierRun, alone)[which], alone)), "")
        << report_writes(kEarlierRun, dir_)[which][0] << ": the two reports mixed";
  }
}

TEST_F(ReportDirectoryCli, ASignalEndsTheWaitForAnotherWriterAndChangesNothing) {
  const Snapshot fresh = new_set(0);
  test::BackgroundCommand first(LINKSCOPE_SEAMED_BINARY, report_writes(kNewRun, dir_)[0],
                                {"LINKSCOPE_TEST_WRITE_PAUSE=committed:1"}, scratch_.path() + "/first.err");
  ASSERT_TRUE(first.wait_for_stderr("linkscope: test: paused after committed file 1\n", 60)) << first.err();
  test::BackgroundCommand second(LINKSCOPE_BINARY, report_writes(kEarlierRun, dir_)[1],
                                 {"LINKSCOPE_TEST_WRITE_PAUSE"}, scratch_.path() + "/second.err");
  ASSERT_TRUE(second.wait_for_stderr(": another linkscope process is writing a report here; waiting for it\n", 60))
      << second.err();
  second.send(SIGTERM);
  EXPECT_EQ(second.wait(60), kInterrupted) << second.err();
  EXPECT_NE(second.err().find("the directory is as it was"), std::string::npos) << second.err();
  first.send(SIGINT);
  EXPECT_EQ(first.wait(60), kInterrupted) << first.err();
  EXPECT_EQ(differences(snapshot(dir_), fresh), "") << "the first writer's set, whole, and nothing the second staged";
}

TEST_F(ReportDirectoryCli, TheRunJsonInputIsNeverReplacedOrRemoved) {
  // The report directory holding the run it renders: refused before anything is staged.
  const std::string run = dir_ + "/run.json";
  const auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--from", run, "-o", dir_});
  EXPECT_EQ(result.exit_code, kUsage) << result.err;
  EXPECT_NE(result.err.find("refusing to write over an input"), std::string::npos) << result.err;
  EXPECT_EQ(differences(snapshot(dir_), earlier_), "");
}

}  // namespace
}  // namespace linkscope
