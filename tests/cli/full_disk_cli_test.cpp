// Every fixture run rendered where the output cannot be written: standard output on /dev/full, and a full file
// system (the writer's fault seam LINKSCOPE_TEST_WRITE_LIMIT, in the tests' copy of the binary, and a real 1 MiB
// tmpfs where a user and mount namespace can be made). Each must exit 2 with one line naming what failed, and every input must survive byte
// for byte, with no temporary file left beside it.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;
using test::run_command;

constexpr int kUsage = 2;  // README "Exit codes": a file that cannot be written is exit 2

bool one_line(const std::string& text) { return !text.empty() && text.find('\n') == text.size() - 1; }

std::vector<std::string> fixture_runs() {
  std::vector<std::string> runs;
  for (const auto& entry : fs::directory_iterator(test::fixture("runs"))) {
    if (entry.path().extension() == ".json") runs.push_back(entry.path().string());
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

std::vector<std::string> leftovers(const std::string& directory) {
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(directory)) {
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) found.push_back(entry.path().string());
  }
  return found;
}

TEST(FullDiskCli, EveryFixtureRunToStdoutOnDevFull) {
  const auto runs = fixture_runs();
  ASSERT_GE(runs.size(), 8u);
  for (const auto& run : runs) {
    const std::string before = test::read_text(run);
    for (const char* format : {"text", "md", "html", "json"}) {
      const CommandResult result = run_command(
          "/bin/sh", {"-c", "exec \"$0\" report \"$1\" --format \"$2\" >/dev/full", LINKSCOPE_BINARY, run, format});
      EXPECT_EQ(result.exit_code, kUsage) << run << " " << format << "\n" << result.err;
      EXPECT_TRUE(one_line(result.err)) << run << " " << format << "\n" << result.err;
      EXPECT_NE(result.err.find("standard output"), std::string::npos) << result.err;
    }
    EXPECT_EQ(test::read_text(run), before) << run;
  }
}

// What a full disk does to each way a run is written: the report directory over the run's own folder (its
// run.json is the input), doctor's directory, one report file.
std::vector<std::vector<std::string>> writes_of(const std::string& dir, const std::string& input) {
  return {{"report", input, "--output", dir + "/"},
          {"doctor", "--from", input, "-o", dir},
          {"report", input, "--format", "html", "--output", dir + "/report.html"},
          {"report", input, "--format", "json", "--output", dir + "/copy.json"}};
}

TEST(FullDiskCli, EveryFixtureRunIntoAFullFileSystemKeepsItsInput) {
  for (const auto& run : fixture_runs()) {
    const std::string original = test::read_text(run);
    // A few bytes in: each output file fails as a full disk fails, after its first write.
    for (const char* limit : {"0", "4096"}) {
      test::TempDir dir;
      const std::string input = dir.write("run.json", original);
      for (const auto& args : writes_of(dir.path(), input)) {
        const CommandResult result =
            run_command(LINKSCOPE_SEAMED_BINARY, args, {std::string("LINKSCOPE_TEST_WRITE_LIMIT=") + limit});
        EXPECT_EQ(result.exit_code, kUsage) << run << " " << args[0] << " " << args.back() << "\n" << result.err;
        EXPECT_TRUE(one_line(result.err)) << result.err;
        EXPECT_EQ(test::read_text(input), original) << run << ": the input changed";
      }
      EXPECT_EQ(leftovers(dir.path()), std::vector<std::string>{}) << run;
      EXPECT_FALSE(fs::exists(dir.path() + "/report.html")) << "a failed write left a report behind";
      EXPECT_FALSE(fs::exists(dir.path() + "/copy.json"));
    }
  }
}

// The same on a real full file system: a 1 MiB tmpfs (in a user and mount namespace, so no root is needed) that
// holds the input and is then filled up. The script prints one "RESULT exit=N same=0|1 temp=N" line per write.
TEST(FullDiskCli, RealFullTmpfsKeepsTheInput) {
  const CommandResult probe = run_command("unshare", {"--user", "--map-root-user", "--mount", "true"});
  if (probe.exit_code != 0) {
    GTEST_SKIP() << "no user namespace here (the seam test above covers the writer): " << probe.err;
  }
  test::TempDir dir;
  const std::string script = R"sh(set -u
bin=$1 run=$2 mnt=$3
mount -t tmpfs -o size=1m tmpfs "$mnt" || { echo "MOUNT-FAILED"; exit 0; }
check() {
  "$bin" "$@" >/dev/null 2>"$mnt/../err.txt"; code=$?
  cmp -s "$run" "$mnt/run.json" && same=1 || same=0
  temp=$(find "$mnt" -name '*.tmp-*' | wc -l)
  echo "RESULT exit=$code same=$same temp=$temp lines=$(wc -l <"$mnt/../err.txt")"
}
cp "$run" "$mnt/run.json"
dd if=/dev/zero of="$mnt/filler" bs=4k 2>/dev/null
check report "$mnt/run.json" --output "$mnt/"
check doctor --from "$mnt/run.json" -o "$mnt"
check report "$mnt/run.json" --format html --output "$mnt/report.html"
)sh";
  const std::string script_path = dir.write("fill.sh", script);
  for (const auto& run : fixture_runs()) {
    const std::string mount_point = dir.path() + "/mnt";
    fs::create_directories(mount_point);
    const CommandResult result = run_command(
        "unshare", {"--user", "--map-root-user", "--mount", "sh", script_path, LINKSCOPE_BINARY, run, mount_point});
    if (result.out.find("MOUNT-FAILED") != std::string::npos) GTEST_SKIP() << "tmpfs cannot be mounted here";
    int checks = 0;
    std::size_t at = 0;
    while ((at = result.out.find("RESULT ", at)) != std::string::npos) {
      const std::string line = result.out.substr(at, result.out.find('\n', at) - at);
      EXPECT_NE(line.find("exit=2 "), std::string::npos) << run << ": " << line;
      EXPECT_NE(line.find("same=1"), std::string::npos) << run << ": " << line;
      EXPECT_NE(line.find("temp=0"), std::string::npos) << run << ": " << line;
      EXPECT_NE(line.find("lines=1"), std::string::npos) << run << ": " << line;
      ++checks;
      ++at;
    }
    EXPECT_EQ(checks, 3) << result.out << result.err;
  }
}

}  // namespace
}  // namespace linkscope
