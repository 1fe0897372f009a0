// core/file_set: a directory's files replaced as one set, and the signals held around it (core/write_signals).
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/file_set.hpp"
#include "core/write_faults.hpp"
#include "core/write_signals.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

namespace fs = std::filesystem;

std::map<std::string, std::string> files_in(const std::string& directory) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(directory)) {
    files[entry.path().filename().string()] = test::read_text(entry.path().string());
  }
  return files;
}

TEST(FileSet, CommitWritesEveryFileAndListsThem) {
  test::TempDir dir;
  FileSetWriter set(dir.path() + "/out", {});
  set.add("run.json", "{}");
  set.add("a.svg", "<svg/>");
  const auto written = set.commit();
  EXPECT_EQ(written, (std::vector<std::string>{dir.path() + "/out/run.json", dir.path() + "/out/a.svg"}));
  const auto files = files_in(dir.path() + "/out");
  ASSERT_EQ(files.size(), 3u) << "the two files and the list, no temporary file";
  EXPECT_EQ(files.at("run.json"), "{}");
  EXPECT_EQ(files.at("a.svg"), "<svg/>");
  EXPECT_NE(files.at(kFileSetList).find("\nrun.json\na.svg\n"), std::string::npos) << files.at(kFileSetList);
}

TEST(FileSet, AnInputTheEarlierReportWroteIsNeverRemoved) {
  // `report out/host-a.json --output out/` over a cluster report that wrote host-a.json: the new set lacks it.
  test::TempDir dir;
  {
    FileSetWriter earlier(dir.path() + "/out", {});
    earlier.add("run.json", "cluster");
    earlier.add("host-a.json", "host a");
    earlier.add("host-b.json", "host b");
    earlier.commit();
  }
  FileSetWriter set(dir.path() + "/out", {dir.path() + "/out/host-a.json"});
  set.add("run.json", "from host a");
  set.commit();
  const auto files = files_in(dir.path() + "/out");
  EXPECT_EQ(files.at("host-a.json"), "host a") << "the command's input stays";
  EXPECT_EQ(files.count("host-b.json"), 0u) << "the earlier report's other file goes";
}

TEST(FileSet, NothingChangesUntilTheCommitAndAnUncommittedSetLeavesNothing) {
  test::TempDir dir;
  dir.write("out/run.json", "old");
  {
    FileSetWriter set(dir.path() + "/out", {});
    set.add("run.json", "new");
    set.add("report.html", "<p>");
    EXPECT_EQ(test::read_text(dir.path() + "/out/run.json"), "old");
    EXPECT_FALSE(fs::exists(dir.path() + "/out/report.html"));
    EXPECT_EQ(files_in(dir.path() + "/out").size(), 3u) << "run.json and two hidden staged files";
  }
  EXPECT_EQ(files_in(dir.path() + "/out"), (std::map<std::string, std::string>{{"run.json", "old"}}));
}

TEST(FileSet, AFailedFileRemovesWhatWasStagedBeforeIt) {
  test::TempDir dir;
  dir.write("out/run.json", "old");
  FileSetWriter set(dir.path() + "/out", {});
  set.add("run.json", "new");
  set_write_faults({[] { return std::uint64_t{0}; }, {}});  // a full disk: the next file fails
  EXPECT_THROW(set.add("report.html", "<p>"), InputError);
  set_write_faults({});
  EXPECT_EQ(files_in(dir.path() + "/out"), (std::map<std::string, std::string>{{"run.json", "old"}}));
}

TEST(FileSet, RemovesOnlyTheListedFilesTheNewSetLacks) {
  test::TempDir dir;
  const std::string out = dir.path() + "/out";
  {
    FileSetWriter set(out, {});
    set.add("run.json", "1");
    set.add("old.svg", "chart");
    set.commit();
  }
  dir.write("out/mine.svg", "user");
  dir.write("outside.txt", "user");
  // A list changed by hand cannot make the writer remove anything but a plain file of the directory.
  dir.write(std::string("out/") + kFileSetList, "old.svg\n../outside.txt\n.hidden\nsub/x\n/etc/hostname\nlink\n");
  dir.write("out/.hidden", "user");
  dir.write("out/sub/x", "user");
  fs::create_symlink(dir.path() + "/outside.txt", out + "/link");
  FileSetWriter set(out, {});
  set.add("run.json", "2");
  set.commit();
  EXPECT_FALSE(fs::exists(out + "/old.svg"));
  EXPECT_EQ(test::read_text(out + "/mine.svg"), "user");
  EXPECT_EQ(test::read_text(dir.path() + "/outside.txt"), "user");
  EXPECT_EQ(test::read_text(out + "/.hidden"), "user");
  EXPECT_EQ(test::read_text(out + "/sub/x"), "user");
  EXPECT_TRUE(fs::is_symlink(out + "/link")) << "a symbolic link under a listed name is not linkscope's file";
  EXPECT_EQ(test::read_text(out + "/run.json"), "2");
}

TEST(FileSet, AListLargerThanItsLimitIsNotTrustedAndRemovesNothing) {
  test::TempDir dir;
  const std::string out = dir.path() + "/out";
  dir.write("out/old.svg", "chart");
  std::string list = "old.svg\n";
  while (list.size() <= kMaxFileSetListBytes) list += "# padding\n";
  dir.write(std::string("out/") + kFileSetList, list);
  FileSetWriter set(out, {});
  set.add("run.json", "1");
  set.commit();
  EXPECT_EQ(test::read_text(out + "/old.svg"), "chart");
  EXPECT_EQ(test::read_text(out + "/" + kFileSetList).find("old.svg"), std::string::npos) << "replaced by the new list";
}

TEST(FileSet, RefusesToWriteOverAnInputAndLeavesNothing) {
  test::TempDir dir;
  const std::string input = dir.write("out/run.json", "input");
  FileSetWriter set(dir.path() + "/out", {input});
  set.add("report.html", "<p>");
  EXPECT_THROW(set.add("run.json", "{}"), InputError);
  EXPECT_EQ(files_in(dir.path() + "/out"), (std::map<std::string, std::string>{{"run.json", "input"}}));
}

// A rename can still fail in the swap when a target changed after staging: `files` staged into `out`, then the
// target `blocked` made a folder. Returns the file and message of the InputError commit() throws.
std::pair<std::string, std::string> swap_over_a_folder(const std::string& out, const std::vector<std::string>& files,
                                                       const std::string& blocked) {
  FileSetWriter set(out, {});
  for (const auto& name : files) set.add(name, "<" + name + ">");
  fs::create_directory(out + "/" + blocked);
  try {
    set.commit();
  } catch (const InputError& e) {
    return {e.file(), e.what()};
  }
  ADD_FAILURE() << "the swap succeeded over a folder";
  return {};
}

TEST(FileSet, TheFirstRenameFailingLeavesTheDirectoryAsItWas) {
  test::TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto [file, message] = swap_over_a_folder(out, {"run.json", "b.svg"}, "run.json");
  EXPECT_EQ(file, out + "/run.json");
  EXPECT_NE(message.find("the directory is as it was"), std::string::npos) << message;
  EXPECT_EQ(files_in(out), (std::map<std::string, std::string>{{"run.json", ""}})) << "only the folder";
}

TEST(FileSet, ALaterRenameFailingStillSwapsTheOthersInAndNamesTheFile) {
  test::TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto [file, message] = swap_over_a_folder(out, {"run.json", "b.svg", "c.svg"}, "b.svg");
  EXPECT_EQ(file, out + "/b.svg");
  EXPECT_NE(message.find("the other new files are in place"), std::string::npos) << message;
  EXPECT_EQ(test::read_text(out + "/run.json"), "<run.json>");
  EXPECT_EQ(test::read_text(out + "/c.svg"), "<c.svg>");
  EXPECT_TRUE(fs::is_directory(out + "/b.svg"));
  EXPECT_EQ(files_in(out).size(), 4u) << "run.json, the folder, c.svg and the list: no temporary file";
}

TEST(FileSet, ANameAddedTwiceKeepsTheLastContent) {
  test::TempDir dir;
  FileSetWriter set(dir.path() + "/out", {});
  set.add("a.svg", "first");
  set.add("a.svg", "second");
  EXPECT_EQ(set.commit().size(), 1u);
  EXPECT_EQ(files_in(dir.path() + "/out").size(), 2u);
  EXPECT_EQ(test::read_text(dir.path() + "/out/a.svg"), "second");
}

TEST(FileSet, ASignalWhileStagingStopsTheSetAndRemovesItsFiles) {
  ::signal(SIGINT, SIG_DFL);  // as a shell starts a command, whatever the test runner set
  test::TempDir dir;
  dir.write("out/run.json", "old");
  {
    FileSetWriter set(dir.path() + "/out", {});
    set.add("run.json", "new");
    ::raise(SIGINT);  // caught: recorded, not fatal
    try {
      set.add("report.html", "<p>");
      ADD_FAILURE() << "the signal did not stop the set";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInterrupted);
      EXPECT_NE(std::string(e.what()).find("interrupted (SIGINT)"), std::string::npos) << e.what();
    }
    EXPECT_EQ(files_in(dir.path() + "/out"), (std::map<std::string, std::string>{{"run.json", "old"}}));
  }
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, SIG_DFL) << "the earlier handler is back";
}

TEST(WriteSignals, HeldSignalsWaitForReleaseAndIgnoredOnesStayIgnored) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction earlier_hup {};
  sigaction(SIGHUP, &ignore, &earlier_hup);
  ::signal(SIGTERM, SIG_DFL);
  {
    WriteSignals signals;
    ::raise(SIGHUP);
    EXPECT_EQ(signals.caught(), 0) << "an ignored SIGHUP (nohup) stays ignored";
    signals.hold();
    ::raise(SIGTERM);
    EXPECT_TRUE(signals.pending());
    EXPECT_EQ(signals.caught(), 0) << "held, not yet delivered";
    signals.release();
    EXPECT_FALSE(signals.pending());
    EXPECT_EQ(signals.caught(), SIGTERM);
    EXPECT_STREQ(WriteSignals::name(signals.caught()), "SIGTERM");
  }
  struct sigaction hup {};
  sigaction(SIGHUP, nullptr, &hup);
  EXPECT_EQ(hup.sa_handler, SIG_IGN);
  sigaction(SIGHUP, &earlier_hup, nullptr);
}

}  // namespace
}  // namespace linkscope
