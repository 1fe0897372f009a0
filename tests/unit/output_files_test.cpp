// Writing outputs (core/file_io, core/staged_file, core/replace_permission, core/temp_directory): the directory an
// output goes to, the permission bits a rewritten file keeps, a signal during a single-file write, the sticky
// bit's rule, and temporary directories under an unusable TMPDIR.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/file_set.hpp"
#include "core/replace_permission.hpp"
#include "core/temp_directory.hpp"
#include "core/write_faults.hpp"
#include "core/write_signals.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

namespace fs = std::filesystem;

mode_t permissions(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

std::size_t entries(const std::string& directory) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(directory), fs::directory_iterator()));
}

// The InputError `make` throws, as "FILE: what".
template <typename Make>
std::string input_error(Make make) {
  try {
    make();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

TEST(OutputDirectory, WhatCannotBeADirectoryIsAnInputErrorNamingThePathAndWhy) {
  test::TempDir dir;
  const std::string file = dir.write("afile", "x");
  const std::string long_name = dir.path() + "/" + std::string(300, 'a') + "/";
  EXPECT_NE(input_error([&] { create_output_directory(file + "/"); }).find(file + " is not a directory"),
            std::string::npos);
  EXPECT_NE(input_error([&] { create_output_directory(file + "/x/"); }).find(file + " is not a directory"),
            std::string::npos);
  EXPECT_NE(input_error([] { create_output_directory("/dev/null/x/"); }).find("/dev/null is not a directory"),
            std::string::npos);
  const std::string too_long = input_error([&] { create_output_directory(long_name); });
  EXPECT_EQ(too_long.rfind(long_name, 0), 0u) << too_long;
  EXPECT_NE(too_long.find("File name too long"), std::string::npos) << too_long;
  create_output_directory(dir.path() + "/new/sub/");
  EXPECT_TRUE(fs::is_directory(dir.path() + "/new/sub"));
}

TEST(OutputFile, ANameTooLongIsAnInputErrorAndANameNearTheLimitIsWritten) {
  test::TempDir dir;
  const std::string too_long = dir.path() + "/" + std::string(300, 'a') + ".json";
  EXPECT_NE(input_error([&] { write_file_atomically(too_long, "{}"); }).find("File name too long"), std::string::npos);
  // 250 bytes is a valid name, though ".NAME.tmp-XXXXXX" beside it would not be.
  const std::string near = dir.path() + "/" + std::string(250, 'b');
  write_file_atomically(near, "{}");
  EXPECT_EQ(test::read_text(near), "{}");
  EXPECT_EQ(entries(dir.path()), 1u);
}

TEST(OutputFile, RewritingKeepsThePermissionBitsOfTheReplacedFile) {
  test::TempDir dir;
  for (const mode_t mode : {0600, 0640, 0604}) {
    const std::string path = dir.write("out.json", "old");
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    write_file_atomically(path, "new");
    EXPECT_EQ(test::read_text(path), "new");
    EXPECT_EQ(permissions(path), mode) << std::oct << mode;
  }
}

TEST(OutputFile, ANewFileGetsWhatTheUsersUmaskAllows) {
  test::TempDir dir;
  const mode_t earlier = ::umask(027);
  write_file_atomically(dir.path() + "/new.json", "{}");
  ::umask(earlier);
  EXPECT_EQ(permissions(dir.path() + "/new.json"), 0640u);
}

TEST(OutputFile, ASetRewritingAReportKeepsEachFilesPermissionBits) {
  test::TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto write_report = [&out](const std::string& content) {
    FileSetWriter set(out, {});
    for (const char* name : {"run.json", "report.html"}) set.add(name, content);
    set.commit();
  };
  write_report("1");
  ASSERT_EQ(::chmod((out + "/run.json").c_str(), 0600), 0);
  write_report("2");
  EXPECT_EQ(permissions(out + "/run.json"), 0600u);
  EXPECT_EQ(test::read_text(out + "/run.json"), "2");
}

// A signal while a single file is written (the test's pause stands in for a slow disk): the temporary file goes,
// the earlier file stays, and the Error is the interrupted one (exit 130), as for a report directory.
TEST(OutputFile, ASignalWhileWritingRemovesTheTemporaryFileAndKeepsTheEarlierOne) {
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    ::signal(signal_number, SIG_DFL);  // as a shell starts a command
    test::TempDir dir;
    const std::string path = dir.write("out.json", "old");
    set_write_faults({{}, [signal_number](std::string_view, std::size_t, const std::function<bool()>&) {
                        ::raise(signal_number);
                      }});
    try {
      write_file_atomically(path, "new");
      ADD_FAILURE() << "the signal did not stop the write";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInterrupted);
      EXPECT_NE(std::string(e.what()).find(WriteSignals::name(signal_number)), std::string::npos) << e.what();
    }
    set_write_faults({});
    EXPECT_EQ(test::read_text(path), "old");
    EXPECT_EQ(entries(dir.path()), 1u) << "no temporary file";
    struct sigaction after {};
    sigaction(signal_number, nullptr, &after);
    EXPECT_EQ(after.sa_handler, SIG_DFL) << "the earlier handler is back";
  }
}

std::atomic<int> g_program_handler_saw{0};
extern "C" void program_handler(int signal_number) { g_program_handler_saw.store(signal_number); }

// The doctor's own stop request (its handler) must see a Ctrl-C that comes while it saves run.json.
TEST(WriteSignals, AHandlerTheProgramInstalledKeepsItsSignal) {
  struct sigaction mine {};
  mine.sa_handler = program_handler;
  struct sigaction earlier {};
  sigaction(SIGINT, &mine, &earlier);
  g_program_handler_saw.store(0);
  {
    WriteSignals signals;
    ::raise(SIGINT);
    EXPECT_EQ(signals.caught(), 0);
  }
  EXPECT_EQ(g_program_handler_saw.load(), SIGINT);
  sigaction(SIGINT, &earlier, nullptr);
}

struct stat with(uid_t owner, mode_t mode) {
  struct stat info {};
  info.st_uid = owner;
  info.st_mode = mode;
  return info;
}

TEST(ReplacePermission, TheStickyBitLetsOnlyTheOwnersOrRootReplaceAFile) {
  const auto shared = with(0, S_IFDIR | 01777);
  const auto theirs = with(1001, S_IFREG | 0644);
  const auto mine = with(1000, S_IFREG | 0644);
  EXPECT_NE(replace_refusal(shared, theirs, 1000), "") << "another user's file in a sticky directory";
  EXPECT_NE(replace_refusal(shared, theirs, 1000).find("uid 1001"), std::string::npos);
  EXPECT_EQ(replace_refusal(shared, mine, 1000), "") << "one's own file";
  EXPECT_EQ(replace_refusal(with(1000, S_IFDIR | 01777), theirs, 1000), "") << "the directory's owner";
  EXPECT_EQ(replace_refusal(shared, theirs, 0), "") << "root";
  EXPECT_EQ(replace_refusal(with(0, S_IFDIR | 0777), theirs, 1000), "") << "no sticky bit: write permission decides";
}

// A whole set refused by the sticky bit is shown by tests/cli (StickyDirectoryCli), as a user other than root.
TEST(ReplacePermission, AFileThatDoesNotExistYetNeedsNoCheck) {
  test::TempDir dir;
  EXPECT_EQ(replace_refusal(dir.path() + "/absent.json"), "");
}

TEST(TempDirectory, AnUnusableTmpdirIsAOneLineReasonNamingIt) {
  test::TempDir dir;
  const std::string file = dir.write("afile", "x");
  for (const std::string& tmpdir : {file, dir.path() + "/missing", std::string("/dev/null")}) {
    std::string why;
    EXPECT_FALSE(make_temp_directory("linkscope-test", Environment::from_map({{"TMPDIR", tmpdir}}), &why));
    EXPECT_NE(why.find(tmpdir + " (TMPDIR)"), std::string::npos) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    TempDirectory scratch("linkscope-test", Environment::from_map({{"TMPDIR", tmpdir}}));
    EXPECT_EQ(scratch.path(), "");
    EXPECT_EQ(scratch.write("facts.json", "{}"), "") << "the doctor skips its ladder, saying why";
    EXPECT_EQ(scratch.why(), why);
  }
  std::string made;
  {
    TempDirectory scratch("linkscope-test", Environment::from_map({{"TMPDIR", dir.path()}}));
    made = scratch.path();
    EXPECT_EQ(made.rfind(dir.path() + "/linkscope-test-", 0), 0u) << made;
    EXPECT_TRUE(fs::is_directory(made));
    EXPECT_EQ(scratch.write("facts.json", "{}"), made + "/facts.json");
    std::ofstream(made + "/a.log") << "x";
  }
  EXPECT_FALSE(fs::exists(made)) << "removed with its files";
}

}  // namespace
}  // namespace linkscope
